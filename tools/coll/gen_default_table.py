#!/usr/bin/env python3
"""Compile share/tuning/ethermpi-default.tuning into src/coll/coll_table_default.c.
With --check, exit 1 if the generated file is out of date (a unit test runs this)."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SRC = ROOT / "share/tuning/ethermpi-default.tuning"
OUT = ROOT / "src/coll/coll_table_default.c"


def render():
    lines = ["/* Generated from share/tuning/ethermpi-default.tuning by tools/coll/gen_default_table.py. */",
             '#include "coll/coll.h"', "", "const char empi_tune_default_text[] ="]
    for line in SRC.read_text().splitlines():
        esc = line.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'    "{esc}\\n"')
    lines[-1] += ";"
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    text = render()
    if "--check" in sys.argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run tools/coll/gen_default_table.py")
            sys.exit(1)
        sys.exit(0)
    OUT.write_text(text)
