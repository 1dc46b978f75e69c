#!/bin/bash
# Checks of the libfabric netmod on loopback "hosts" (fake hosts through EMPI_HOSTNAME, as the
# multi-host suite's loopback mode), beyond the test programs that suite runs over each provider:
#   - a provider libfabric does not have fails the job at MPI_Init with a message, no hang
#   - rendezvous messages are read with fi_read, and the copy pipeline works when reads are off
#   - a tiny credit window (flow control) still moves thousands of messages
#   - four hosts, one rank each, every pair over libfabric
#   - empi-info lists the providers and the one a job would use
#   ofi_checks.sh BUILD_DIR NET_TEST_DIR
set -u
build=$1
net=$2
MPIEXEC=$build/tools/mpiexec/mpiexec
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

skip() { echo "SKIP: $*"; exit 77; }
fail() {
    echo "FAIL: $*"
    for f in out err; do [ -s "$tmp/$f" ] && { echo "--- $f"; head -40 "$tmp/$f"; }; done
    exit 1
}

"$build/tools/info/empi-info" --brief >"$tmp/info" 2>&1 || fail "empi-info failed"
grep -q "built without libfabric" "$tmp/info" && skip "this build has no libfabric netmod (apt-get install libfabric-dev)"

export EMPI_LAUNCHER_RSH="$net/fake_rsh.sh" EMPI_BOOTSTRAP_ADDR=127.0.0.1 EMPI_NET_ADDR=127.0.0.1
export EMPI_TRANSPORT=ofi EMPI_YIELD=always

run() { # HOSTS NP PROGRAM ARGS...
    local hosts=$1 np=$2
    shift 2
    "$MPIEXEC" -hosts "$hosts" -n "$np" --timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
}
expect_pass() {
    local what="$*"
    run "$@"
    [ "$status" -eq 0 ] || fail "$what: exit status $status"
    echo "ok   $what"
}

# empi-info: the providers tested below are listed, and a choice is named.
grep -q "udp;ofi_rxd" "$tmp/info" || fail "empi-info does not list udp;ofi_rxd"
grep -q "would use: tcp;ofi_rxm" "$tmp/info" || fail "empi-info names no provider for EMPI_TRANSPORT=ofi"
echo "ok   empi-info lists the providers: $(grep -c domains: "$tmp/info") of them"

# An unknown provider: MPI_Init fails everywhere with a message naming it.
EMPI_OFI_PROVIDER=nosuchprovider run hA,hB 2 "$build/tests/mpi/init_basic"
[ "$status" -ne 0 ] || fail "a job over a missing provider succeeded"
grep -q 'no usable provider "nosuchprovider"' "$tmp/err" || fail "no message naming the missing provider"
echo "ok   a missing provider ends the job at MPI_Init with: $(grep -m1 'no usable' "$tmp/err")"

# Rendezvous: reads with fi_read (counted at EMPI_DEBUG=1), else the copy pipeline.
for prov in "tcp;ofi_rxm" "udp;ofi_rxd"; do
    EMPI_DEBUG=1 EMPI_OFI_PROVIDER=$prov expect_pass hA,hB 2 "$build/tests/mpi/pt2pt_large" 4194304
    reads=$(grep -o '[0-9]* rendezvous reads' "$tmp/err" | awk '{s += $1} END {print s + 0}')
    [ "$reads" -gt 0 ] || fail "$prov: no rendezvous read was made"
    echo "ok   $prov: $reads rendezvous reads"
done
EMPI_DEBUG=1 EMPI_OFI_RMA_READ=0 EMPI_OFI_PROVIDER="tcp;ofi_rxm" expect_pass hA,hB 2 "$build/tests/mpi/pt2pt_large" 4194304
grep -q " 0 rendezvous reads" "$tmp/err" || fail "EMPI_OFI_RMA_READ=0 still read"
grep -q "[1-9][0-9]* rendezvous reads" "$tmp/err" && fail "EMPI_OFI_RMA_READ=0 still read"
echo "ok   EMPI_OFI_RMA_READ=0: the copy pipeline carries rendezvous messages"

# Flow control: two credits per peer, thousands of messages in flight.
EMPI_OFI_CREDITS=2 EMPI_OFI_PROVIDER="udp;ofi_rxd" expect_pass hA,hB 4 "$build/tests/mpi/pt2pt_many_requests" 5000

# Every pair over libfabric.
EMPI_OFI_PROVIDER="udp;ofi_rxd" expect_pass hA,hB,hC,hD 4 "$build/tests/mpi_coll/coll_nonblocking"
EMPI_OFI_PROVIDER="tcp;ofi_rxm" expect_pass hA,hB,hC,hD 4 "$build/tests/mpi/pt2pt_any"
echo "all ofi checks passed"
