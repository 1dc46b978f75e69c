#!/bin/bash
# Rank placement of the multi-host launcher over fake hosts (fake_rsh.sh): host files with
# slots, -ppn, even blocks, wrap-around, and this host mixed with remote ones.
#   placement.sh MPIEXEC NET_HOLD
set -u
MPIEXEC=$1
HOLD=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export EMPI_LAUNCHER_RSH="$here/fake_rsh.sh" EMPI_BOOTSTRAP_ADDR=127.0.0.1 EMPI_YIELD=always

fail() { echo "FAIL: $*"; cat "$tmp/out" "$tmp/err" 2>/dev/null | head -20; exit 1; }

# expect "ARGS" "host of rank 0,host of rank 1,..."
expect() {
    # shellcheck disable=SC2086
    "$MPIEXEC" $1 --timeout 60 "$HOLD" 0 >"$tmp/out" 2>"$tmp/err" || fail "mpiexec $1: exit $?"
    got=$(awk '$1 == "rank" {print $2, $6}' "$tmp/out" | sort -n | awk '{print $2}' | paste -sd,)
    [ "$got" = "$2" ] || fail "mpiexec $1: ranks on $got, expected $2"
    echo "ok   $1 -> $got"
}

printf 'hA slots=2\n# a comment\nhB:1\n\nhC\n' >"$tmp/hosts"
expect "-f $tmp/hosts -n 5" "hA,hA,hB,hC,hA"
expect "-hosts hA,hB -ppn 1 -n 4" "hA,hB,hA,hB"
expect "-hosts hA,hB -n 5" "hA,hA,hA,hB,hB"
expect "-hosts hA:1,hB:3 -n 4" "hA,hB,hB,hB"
me=$(hostname)
expect "-hosts $me,hB -n 4" "$me,$me,hB,hB"
# Two entries that are the same host share it: one node, and the job still runs.
expect "-hosts hA,hA -ppn 1 -n 2" "hA,hA"
echo "PASS placement"
