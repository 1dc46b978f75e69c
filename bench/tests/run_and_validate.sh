#!/bin/sh
# Runs a few cases with --json and validates every file against the schema.
# usage: run_and_validate.sh MPIEXEC EMPI_BENCH OUTDIR [PYTHON]
set -e
mpiexec=$1 bench=$2 out=$3 py=${4:-python3}
here=$(dirname "$0")
mkdir -p "$out"
rm -f "$out"/*.json
"$mpiexec" -n 2 "$bench" latency -m 1:64 -i 10 -x 2 -c -f --json "$out/latency.json"
"$mpiexec" -n 2 "$bench" latency_test -m 1:64 -i 10 -x 2 -c --json "$out/latency_test.json"
"$mpiexec" -n 2 "$bench" mbw_mr -m 1:64 -i 10 -x 2 -c --json "$out/mbw_mr.json"
"$mpiexec" -n 2 "$bench" barrier -i 10 -x 2 --json "$out/barrier.json"
"$mpiexec" -n 3 "$bench" gather -m 1:1K -i 10 -x 2 -c -b --json "$out/gather_back_to_back.json"
# The root moves at every call (-r): every rank's turn as root is checked byte for byte.
"$mpiexec" -n 3 "$bench" scatterv -m 1:4K -i 10 -x 2 -c -r --json "$out/scatterv_rotate_root.json"
"$mpiexec" -n 3 "$bench" ireduce -m 4:4K -i 10 -x 2 -c -r -b --json "$out/ireduce_rotate_root.json"
"$mpiexec" -n 2 "$bench" iallreduce -m 4:64 -i 10 -x 2 -c -f --json "$out/iallreduce.json"
"$mpiexec" -n 2 "$bench" put_bw -s pscw -m 1:64 -i 10 -x 2 -c --json "$out/put_bw.json"
"$mpiexec" -n 2 "$bench" init --json "$out/init.json"
"$mpiexec" -n 1 "$bench" pack_indexed -m 1:4K -i 10 -x 2 -c --json "$out/pack_indexed.json"
"$mpiexec" -n 2 "$bench" vector_bw -m 1:4K -i 10 -x 2 -c --json "$out/vector_bw.json"
exec "$py" "$here/validate_json.py" "$out"/*.json
