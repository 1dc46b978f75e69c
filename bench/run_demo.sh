#!/bin/sh
# Short latency + bandwidth table for the README demo.
# usage: bench/run_demo.sh [MPIEXEC] [EMPI_BENCH] [NP]
#   defaults: mpiexec and empi-bench from PATH, 2 processes.
set -e
mpiexec=${1:-mpiexec}
bench=${2:-empi-bench}
np=${3:-2}
here=$(dirname "$(readlink -f "$0")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sizes="-m 1:64K -i 1000 -x 100"
"$mpiexec" -n "$np" "$bench" latency $sizes --json "$tmp/latency.json" >/dev/null
"$mpiexec" -n "$np" "$bench" bw $sizes --json "$tmp/bw.json" >/dev/null
# The table formatter lives in the compare tool: next to this script in the
# source tree (../tools/empi-bench) or in bin/ when installed.
for tool in "$here/../tools/empi-bench/empi-bench-compare" "$here/../../bin/empi-bench-compare" \
            "$(command -v empi-bench-compare 2>/dev/null || true)"; do
  if [ -n "$tool" ] && [ -f "$tool" ]; then
    exec python3 "$tool" table "$tmp/latency.json" "$tmp/bw.json"
  fi
done
echo "run_demo.sh: empi-bench-compare not found" >&2
exit 1
