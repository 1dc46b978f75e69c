#!/usr/bin/env python3
"""Check every constant of include/mpi.h against the values the MPI-5.0 standard ABI fixes.

usage: check_constants.py CC INCLUDE_DIR TABLE [--header-only]
Compiles a program that prints each constant of TABLE as an integer using the mpi.h found in
INCLUDE_DIR, and compares with TABLE. Also checks the type layout the ABI fixes (sizes of
MPI_Aint, MPI_Count, MPI_Offset, MPI_Status and handle types).
"""
import pathlib
import subprocess
import sys
import tempfile

cc, include_dir, table_path = sys.argv[1:4]
table = {}
for line in pathlib.Path(table_path).read_text().splitlines():
    if line and not line.startswith("#"):
        name, value = line.split("\t")
        table[name] = int(value)

layout = {
    "sizeof(MPI_Aint)": 8, "sizeof(MPI_Count)": 8, "sizeof(MPI_Offset)": 8,
    "sizeof(MPI_Status)": 32, "offsetof(MPI_Status, MPI_SOURCE)": 0, "offsetof(MPI_Status, MPI_TAG)": 4,
    "offsetof(MPI_Status, MPI_ERROR)": 8, "sizeof(MPI_Comm)": 8, "sizeof(MPI_Datatype)": 8,
    "sizeof(MPI_Request)": 8, "(MPI_Aint)-1 < 0": 1,
}
lines = ['#include <stddef.h>', '#include <stdint.h>', '#include <stdio.h>', '#include "mpi.h"', 'int main(void) {']
for name in table:
    lines.append(f'    printf("{name} %lld\\n", (long long)(intptr_t){name});')
for expr in layout:
    lines.append(f'    printf("%s %lld\\n", "{expr}", (long long)({expr}));')
lines.append("    return 0;\n}")

with tempfile.TemporaryDirectory() as tmp:
    src = pathlib.Path(tmp, "constants.c")
    src.write_text("\n".join(lines) + "\n")
    exe = pathlib.Path(tmp, "constants")
    build = subprocess.run([cc, "-std=c11", "-Wall", "-I", include_dir, str(src), "-o", str(exe)],
                           capture_output=True, text=True)
    if build.returncode != 0:
        print(build.stderr[-4000:])
        print("FAIL: mpi.h does not define every constant of the standard ABI (see the errors above)")
        sys.exit(1)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout

got = {}
for line in out.splitlines():
    key, value = line.rsplit(" ", 1)
    got[key] = int(value)
expected = dict(table)
expected.update(layout)
bad = [(k, v, got.get(k)) for k, v in expected.items() if got.get(k) != v]
for name, want, have in bad:
    print(f"MISMATCH {name}: standard {want}, mpi.h {have}")
print(f"{len(expected) - len(bad)} passed, {len(bad)} failed")
sys.exit(1 if bad else 0)
