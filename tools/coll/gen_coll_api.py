#!/usr/bin/env python3
"""Write src/coll/coll_api_gen.c and src/coll/neighbor/neighbor_api_gen.c: the PMPI_ entry point
of every collective and neighborhood collective (blocking, _c, nonblocking, persistent) as a
one-line call into coll_api.c or neighbor/neighbor_api.c. Signatures come from
tools/abi/abi_functions.txt. With --check, exit 1 if a file is out of date."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FUNCS = ROOT / "tools/abi/abi_functions.txt"
OUT = ROOT / "src/coll/coll_api_gen.c"
NEIGHBOR_OUT = ROOT / "src/coll/neighbor/neighbor_api_gen.c"

# base name -> call template; {fn} name, {mode}, {req}; C = True for the _c forms
CALLS = {
    "Barrier": "empi_coll_barrier({fn}, comm, {mode}, {req})",
    "Bcast": "empi_coll_bcast({fn}, buffer, count, datatype, root, comm, {mode}, {req})",
    "Reduce": "empi_coll_red({fn}, EMPI_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, {mode}, {req})",
    "Allreduce": "empi_coll_red({fn}, EMPI_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, {mode}, {req})",
    "Scan": "empi_coll_red({fn}, EMPI_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, {mode}, {req})",
    "Exscan": "empi_coll_red({fn}, EMPI_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, {mode}, {req})",
    "Reduce_scatter_block": "empi_coll_red({fn}, EMPI_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, {mode}, {req})",
    "Reduce_scatter": "empi_coll_reduce_scatter({fn}, sendbuf, recvbuf, {I}recvcounts, {C}recvcounts, datatype, op, comm, {mode}, {req})",
    "Gather": "empi_coll_gather({fn}, EMPI_COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, {mode}, {req})",
    "Scatter": "empi_coll_gather({fn}, EMPI_COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, {mode}, {req})",
    "Allgather": "empi_coll_gather({fn}, EMPI_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, {mode}, {req})",
    "Alltoall": "empi_coll_gather({fn}, EMPI_COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, {mode}, {req})",
    "Gatherv": "empi_coll_gatherv({fn}, EMPI_COLL_GATHERV, sendbuf, sendcount, NULL, NULL, NULL, NULL, sendtype, recvbuf, 0, {I}recvcounts, {C}recvcounts, {I}displs, {C}displs, recvtype, root, comm, {mode}, {req})",
    "Allgatherv": "empi_coll_gatherv({fn}, EMPI_COLL_ALLGATHERV, sendbuf, sendcount, NULL, NULL, NULL, NULL, sendtype, recvbuf, 0, {I}recvcounts, {C}recvcounts, {I}displs, {C}displs, recvtype, 0, comm, {mode}, {req})",
    "Scatterv": "empi_coll_gatherv({fn}, EMPI_COLL_SCATTERV, sendbuf, 0, {I}sendcounts, {C}sendcounts, {I}displs, {C}displs, sendtype, recvbuf, recvcount, NULL, NULL, NULL, NULL, recvtype, root, comm, {mode}, {req})",
    "Alltoallv": "empi_coll_alltoallv({fn}, EMPI_COLL_ALLTOALLV, sendbuf, {I}sendcounts, {C}sendcounts, {I}sdispls, {C}sdispls, sendtype, NULL, recvbuf, {I}recvcounts, {C}recvcounts, {I}rdispls, {C}rdispls, recvtype, NULL, comm, {mode}, {req})",
    "Alltoallw": "empi_coll_alltoallv({fn}, EMPI_COLL_ALLTOALLW, sendbuf, {I}sendcounts, {C}sendcounts, {I}sdispls, {C}sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, {I}recvcounts, {C}recvcounts, {I}rdispls, {C}rdispls, MPI_DATATYPE_NULL, recvtypes, comm, {mode}, {req})",
}

# Neighborhood collectives. The displacements of the w forms are MPI_Aint in both forms (int slot NULL).
NEIGHBOR_CALLS = {
    "Neighbor_allgather": "empi_neighbor_uniform({fn}, EMPI_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, {mode}, {req})",
    "Neighbor_allgatherv": "empi_neighbor_allgatherv({fn}, sendbuf, sendcount, sendtype, recvbuf, {I}recvcounts, {C}recvcounts, {I}displs, {C}displs, recvtype, comm, {mode}, {req})",
    "Neighbor_alltoall": "empi_neighbor_uniform({fn}, EMPI_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, {mode}, {req})",
    "Neighbor_alltoallv": "empi_neighbor_alltoallv({fn}, sendbuf, {I}sendcounts, {C}sendcounts, {I}sdispls, {C}sdispls, sendtype, recvbuf, {I}recvcounts, {C}recvcounts, {I}rdispls, {C}rdispls, recvtype, comm, {mode}, {req})",
    "Neighbor_alltoallw": "empi_neighbor_alltoallw({fn}, sendbuf, {I}sendcounts, {C}sendcounts, sdispls, sendtypes, recvbuf, {I}recvcounts, {C}recvcounts, rdispls, recvtypes, comm, {mode}, {req})",
}

# output file -> (what it holds, the header of its internal entry points, templates)
OUTPUTS = {
    OUT: ("the collective PMPI_ entry points", "coll/coll_api.h", CALLS),
    NEIGHBOR_OUT: ("the neighborhood collective PMPI_ entry points", "coll/neighbor/neighbor_api.h", NEIGHBOR_CALLS),
}


def functions():
    out = {}
    for line in FUNCS.read_text().splitlines():
        m = re.match(r"^(.*?\W)(MPI_\w+)\((.*)\);$", line.strip())
        if m:
            out[m.group(2)] = (m.group(1).strip(), m.group(3))
    return out


def render(what, header, calls):
    funcs = functions()
    lines = [f"/* Generated by tools/coll/gen_coll_api.py: {what}. */",
             '#include <stddef.h>', "", f'#include "{header}"', '#include "core/error.h"', '#include "core/global.h"', ""]
    for base, tmpl in calls.items():
        forms = [(base, "EMPI_COLL_BLOCKING", "NULL"), ("I" + base.lower(), "EMPI_COLL_NONBLOCKING", "request"),
                 (base + "_init", "EMPI_COLL_PERSISTENT", "request")]
        for name, mode, req in forms:
            for c in ("", "_c"):
                full = "MPI_" + name + c
                if full not in funcs:
                    continue
                rettype, params = funcs[full]
                is_c = c == "_c"
                call = tmpl.format(fn=f'"{full}"', mode=mode, req=req,
                                   I="NULL, " if is_c else "", C="" if is_c else "NULL, ")
                # the template lists (int array, count array) pairs as "{I}x, {C}x": drop the wrong one
                call = re.sub(r"NULL, (\w+), ", r"NULL, ", call) if False else call
                call = fix_pairs(call, is_c)
                # persistent forms: the info handle is checked (no hint is acted on)
                pre = f'    EMPI_CHECK(empi_coll_check_info("{full}", comm, info));\n' if "info" in params else ""
                lines.append(f"EMPI_WEAK_ALIAS({name}{c})")
                lines.append(f"{rettype} PMPI_{name}{c}({params})")
                lines.append("{")
                lines.append(pre + f"    return {call};")
                lines.append("}")
                lines.append("")
    return "\n".join(lines) + "\n"


def fix_pairs(call, is_c):
    # "{I}x" became "NULL, x" for _c (int slot NULL, count slot x) - the template put I before C:
    # int form:  "x, NULL, x"  -> want "x, NULL"
    # _c form:   "NULL, x, x"  -> want "NULL, x"
    args = [a.strip() for a in call[call.index("(") + 1:-1].split(",")]
    out, i = [], 0
    while i < len(args):
        if i + 2 < len(args) and args[i] == "NULL" and args[i + 1] == args[i + 2] and args[i + 1] != "NULL":
            out += ["NULL", args[i + 1]]  # _c: int slot NULL, count slot x
            i += 3
        elif i + 2 < len(args) and args[i + 1] == "NULL" and args[i] == args[i + 2] and args[i] != "NULL":
            out += [args[i], "NULL"]      # int: int slot x, count slot NULL
            i += 3
        else:
            out.append(args[i])
            i += 1
    return call[:call.index("(") + 1] + ", ".join(out) + ")"


if __name__ == "__main__":
    stale = 0
    for out, args in OUTPUTS.items():
        text = render(*args)
        if "--check" not in sys.argv:
            out.write_text(text)
        elif not out.exists() or out.read_text() != text:
            print(f"out of date: {out.relative_to(ROOT)} (run tools/coll/gen_coll_api.py)")
            stale = 1
    sys.exit(stale)
