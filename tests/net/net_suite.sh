#!/bin/bash
# The multi-host suite (docs/NETWORK.md): the point-to-point, datatype and collective test
# programs run across several "hosts", plus host failure handling.
#   net_suite.sh MODE TRANSPORT BUILD_DIR
#   MODE loopback  fake hosts on this machine: the rsh stand-in sets EMPI_HOSTNAME per host, so
#                  the network transport carries traffic between them (runs anywhere); where
#                  namespaces can be made, their twin runs the programs and this a short list
#   MODE netns     four network namespaces joined by veth pairs to a bridge, each entered with a
#                  hostname of its own; needs root and iproute2, else the suite is skipped (77)
#   TRANSPORT      tcp, udp or hybrid (EMPI_TRANSPORT); skipped when this build lacks it; or
#                  ofi-tcp, ofi-rxm, ofi-rxd: EMPI_TRANSPORT=ofi over libfabric's provider tcp,
#                  "tcp;ofi_rxm" or "udp;ofi_rxd" (a shorter program list: libfabric takes about
#                  a second to load in every rank), ofi-rxd-loss: the same with 1% of datagrams
#                  dropped in every namespace (nftables; netns only); udp-loss: our udp transport
#                  under that loss (the short list too; with UDP GSO one dropped packet is a whole
#                  run of datagrams, a burst loss; tests/net_udp has the 5% cases)
# Everything the suite creates (namespaces, links, files) is removed on every exit path.
set -u
mode=$1
transport=$2
build=$3
here=$(cd "$(dirname "$0")" && pwd)
MPIEXEC=$build/tools/mpiexec/mpiexec
tmp=$(mktemp -d)
source "$here/netns_lib.sh"

case $mode in
    loopback) setup_loopback ;;
    netns) setup_netns ;;
    *) fail "unknown mode $mode" ;;
esac
export EMPI_TRANSPORT=$transport
# Hybrid with at most 2 tcp peers per rank: with one rank per host, hosts next to each other on
# the ring talk tcp and the others udp, so both halves of hybrid carry traffic.
[ "$transport" = hybrid ] && export EMPI_HYBRID_TCP_PEERS=2
quick=0
loss=0
case $transport in
    udp-loss) export EMPI_TRANSPORT=udp; quick=1; loss=1 ;;
    ofi-*)
        export EMPI_TRANSPORT=ofi
        quick=1
        case $transport in
            ofi-tcp) export EMPI_OFI_PROVIDER=tcp ;;
            ofi-rxm) export EMPI_OFI_PROVIDER="tcp;ofi_rxm" ;;
            ofi-rxd) export EMPI_OFI_PROVIDER="udp;ofi_rxd" ;;
            ofi-rxd-loss) export EMPI_OFI_PROVIDER="udp;ofi_rxd"; loss=1 ;;
            *) fail "unknown transport $transport" ;;
        esac
        # Loopback hosts all share this machine's addresses: bind libfabric to one.
        [ "$mode" = loopback ] && export EMPI_NET_ADDR=127.0.0.1
        ;;
esac
if [ "$loss" -gt 0 ]; then
    [ "$mode" = netns ] || skip "datagram loss is emulated in network namespaces only"
    command -v nft >/dev/null || skip "no nft (nftables)"
    for ns in "${namespaces[@]}"; do
        ip netns exec "$ns" nft -f - <<NFT || skip "nftables unusable in namespaces"
table inet emloss {
    chain out {
        type filter hook output priority 0;
        meta l4proto udp numgen random mod 100 < $loss drop
    }
}
NFT
    done
    echo "dropping $loss% of outgoing udp datagrams in every namespace"
fi
# Every "host" shares this machine's few cores, which no rank can see from its own host's rank
# count: have waiting ranks give their core away as on an oversubscribed host.
export EMPI_YIELD=always

host_list() { local IFS=,; echo "${hosts[*]:0:$1}"; }

# run NHOSTS NP PROGRAM ARGS...: ranks in even blocks over the first NHOSTS hosts.
run() {
    local nh=$1 np=$2
    shift 2
    "$MPIEXEC" -hosts "$(host_list "$nh")" -n "$np" --timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
}

# The programs check their own results and exit non-zero (or abort) on any mismatch.
# The sum over every rank's debug summary in the last run's stderr of "<N> WHAT".
summed() {
    grep -o "[0-9]* $1" "$tmp/err" | awk '{n += $1} END {print n + 0}'
}
expect_pass() {
    local what="$*" t0=$SECONDS
    run "$@"
    [ "$status" -eq 0 ] || fail "$what: exit status $status"
    echo "ok   $what ($((SECONDS - t0)) s)"
}

# The transport must exist in this build.
run 4 4 "$build/tests/mpi/init_basic"
if [ "$status" -ne 0 ]; then
    grep -q "this build lacks" "$tmp/err" && skip "EMPI_TRANSPORT=$transport: not built"
    fail "a two-host job does not start over $transport"
fi

mpi=$build/tests/mpi
started=$(date +%s)
if [ "$mode" = loopback ] && netns_usable; then
    # The same transport code runs in the namespace suite; what differs here is that every host
    # has the same address (only ports tell them apart).
    expect_pass 3 3 "$mpi/pt2pt_order"
    expect_pass 2 4 "$mpi/coll_smoke"
    expect_pass 3 3 "$build/tests/mpi_rma/rma_ops"
    expect_pass 2 2 "$mpi/pt2pt_large" 4194304
    echo "done in $(($(date +%s) - started)) s (the namespace suite runs the other programs)"
    exit 0
fi
if [ "$quick" = 1 ]; then
    expect_pass 3 3 "$mpi/pt2pt_order"
    expect_pass 3 3 "$mpi/pt2pt_modes"
    expect_pass 2 4 "$mpi/coll_smoke"
    EMPI_ASYNC_PROGRESS=1 expect_pass 3 3 "$build/tests/mpi_progress/async_progress"
    # One rank per host: accumulates, fetch-and-ops and compare-and-swaps go through the
    # provider's atomics where it has them (tcp;ofi_rxm; plain tcp has none, and udp;ofi_rxd's
    # are off by default: docs/OFI.md).
    EMPI_DEBUG=1 expect_pass 3 3 "$build/tests/mpi_rma/rma_atomic"
    if [ "$EMPI_TRANSPORT" = ofi ] && [[ "${EMPI_OFI_PROVIDER:-}" == *ofi_rxm* ]]; then
        n=$(summed "one-sided atomics")
        [ "$n" -gt 0 ] || fail "rma_atomic made no provider atomics over $EMPI_OFI_PROVIDER"
        echo "     $n provider atomics in rma_atomic"
    fi
    # Derived origin, target and result types take the provider's atomics too, run by run, so
    # they stay atomic with the contiguous accumulates racing them.
    EMPI_DEBUG=1 expect_pass 3 3 "$build/tests/mpi_rma/rma_atomic_layouts" derived
    if [ "$EMPI_TRANSPORT" = ofi ] && [[ "${EMPI_OFI_PROVIDER:-}" == *ofi_rxm* ]]; then
        n=$(summed "one-sided atomics")
        [ "$n" -gt 0 ] || fail "derived-datatype accumulates made no provider atomics over $EMPI_OFI_PROVIDER"
        echo "     $n provider atomics in rma_atomic_layouts derived"
        # With EMPI_OFI_ATOMIC_SELF=on (auto turns it on for providers whose atomics run in the
        # NIC), a target's own accumulates go through the provider too: more atomics, same results.
        EMPI_OFI_ATOMIC_SELF=on EMPI_DEBUG=1 expect_pass 3 3 "$build/tests/mpi_rma/rma_atomic_layouts" derived
        n_self=$(summed "one-sided atomics")
        [ "$n_self" -gt "$n" ] || fail "EMPI_OFI_ATOMIC_SELF=on: $n_self provider atomics, not more than $n"
        echo "     $n_self provider atomics with the targets' own accumulates"
        EMPI_OFI_ATOMIC_SELF=on expect_pass 3 3 "$build/tests/mpi_rma/rma_atomic"
    fi
    expect_pass 3 3 "$build/tests/mpi_rma/rma_atomic_layouts"
    # Two ranks per host: targets share their node, so accumulates go by active messages.
    expect_pass 2 4 "$build/tests/mpi_rma/rma_atomic"
    # Gets and puts between hosts read and write the target's window with fi_read and fi_write
    # where the provider can (the debug summary at finalize counts them); accumulates and locks go
    # by active messages.
    EMPI_DEBUG=1 expect_pass 3 3 "$build/tests/mpi_rma/rma_ops"
    [ "$EMPI_TRANSPORT" = ofi ] && for what in reads writes; do
        n=$(summed "one-sided $what")
        [ "$n" -gt 0 ] || fail "rma_ops made no one-sided $what over $EMPI_OFI_PROVIDER"
        echo "     $n one-sided $what in rma_ops"
    done
    expect_pass 2 4 "$build/tests/mpi_dt/dt_pt2pt"
    EMPI_DEBUG=1 expect_pass 2 2 "$mpi/pt2pt_large" 16777216
    if [ "$EMPI_TRANSPORT" = udp ]; then
        # The loss really happened and was repaired (the udp summary at finalize counts resends).
        resent=$(summed resent)
        [ "$resent" -gt 0 ] || fail "no udp datagram was resent under $loss% loss"
        echo "     $resent datagrams resent in pt2pt_large"
    fi
    echo "done in $(($(date +%s) - started)) s"
    exit 0
fi
# One rank per host (network only), then two per host (shared memory and network mixed).
for prog in pt2pt_order pt2pt_any pt2pt_probe pt2pt_modes pt2pt_sendrecv pt2pt_isendrecv \
            pt2pt_persistent pt2pt_completion pt2pt_truncate pt2pt_status pt2pt_cancel pt2pt_bsend \
            coll_smoke; do
    expect_pass 3 3 "$mpi/$prog"
done
for prog in pt2pt_order pt2pt_any pt2pt_probe pt2pt_modes pt2pt_isendrecv pt2pt_bsend coll_smoke; do
    expect_pass 2 4 "$mpi/$prog"
done
expect_pass 3 3 "$build/tests/mpi_dt/dt_pt2pt"
expect_pass 2 4 "$build/tests/mpi_dt/dt_pt2pt"
expect_pass 3 3 "$build/tests/mpi_coll/coll_nonblocking"
expect_pass 2 2 "$mpi/pt2pt_large" 67108864
expect_pass 2 3 "$mpi/pt2pt_large" 1048579
expect_pass 2 4 "$mpi/pt2pt_many_requests" 20000
expect_pass 2 2 "$mpi/threads_pt2pt"
# tcp knobs: eager connection setup (every pair at once), epoll instead of direct polling, and tiny
# socket buffers with a tiny backlog (partial writes, EMPI_AGAIN back-pressure on every packet).
EMPI_TCP_EAGER_CONNECT=1 expect_pass 3 6 "$mpi/coll_smoke"
EMPI_TCP_POLL_DIRECT=0 expect_pass 3 3 "$mpi/pt2pt_order"
EMPI_TCP_SNDBUF=4k EMPI_TCP_RCVBUF=4k EMPI_TCP_MAX_INFLIGHT=8k expect_pass 2 2 "$mpi/pt2pt_large" 4194304
EMPI_TCP_SNDBUF=4k EMPI_TCP_RCVBUF=4k EMPI_TCP_MAX_INFLIGHT=8k expect_pass 3 3 "$mpi/pt2pt_order"
expect_pass 4 4 "$build/tests/mpi_coll/coll_sweep"
expect_pass 2 4 "$build/tests/mpi_coll/coll_sweep"
expect_pass 3 6 "$build/tests/mpi_coll/coll_stress"
# One-sided operations between hosts go by active messages (every operation, synchronization and
# datatype; the concurrency guarantees, pair types included), and mixed with direct ones on a host.
expect_pass 3 3 "$build/tests/mpi_rma/rma_ops"
expect_pass 2 4 "$build/tests/mpi_rma/rma_ops"
expect_pass 3 3 "$build/tests/mpi_rma/rma_atomic"
expect_pass 2 4 "$build/tests/mpi_rma/rma_atomic"
expect_pass 2 2 "$build/tests/mpi_rma/rma_dynamic"
EMPI_ASYNC_PROGRESS=1 expect_pass 2 2 "$build/tests/mpi_rma/rma_dynamic" 200
expect_pass 2 2 "$build/tests/mpi_rma/rma_edges"
# Splits by type across hosts (the node is the shared-memory resource).
expect_pass 2 4 "$build/tests/mpi_misc/hw_info"
# MPI-IO with processes on several hosts: the shared file pointer lives in a one-sided window.
expect_pass 3 3 "$build/tests/mpi_io/io_shared"
expect_pass 2 4 "$build/tests/mpi_io/io_shared"
expect_pass 2 4 "$build/tests/mpi_io/io_coll"
# Dynamic processes with a job on several hosts: children spawned on the root's host, and two
# halves of a job through a port, reach the other group over tcp whatever EMPI_TRANSPORT says.
expect_pass 2 2 "$build/tests/dynamic/spawn"
expect_pass 2 4 "$build/tests/dynamic/accept_connect"
expect_pass 2 2 "$build/tests/dynamic/spawn_host" "${hosts[2]}"
# A progress thread completes one-sided operations, rendezvous and a broadcast tree aimed at ranks
# that compute outside MPI (one rank per host: every operation crosses the network).
EMPI_ASYNC_PROGRESS=1 expect_pass 3 3 "$build/tests/mpi_progress/async_progress"
EMPI_ASYNC_PROGRESS=1 expect_pass 2 4 "$build/tests/mpi_progress/async_progress"

# Killing one host's ranks mid-job ends the job with a message naming them, and nothing stays.
hold_job() {
    # The background job truncates the output only once it runs: the previous job's "ready" lines
    # must not be counted as this one's.
    rm -f "$tmp/out" "$tmp/err"
    "$MPIEXEC" -hosts "$(host_list 3)" -n 6 --timeout 120 "$build/tests/net/net_hold" 100 \
        >"$tmp/out" 2>"$tmp/err" &
    job=$!
    jobs_started+=("$job")
    for _ in $(seq 300); do
        [ "$(grep -c ready "$tmp/out" 2>/dev/null || true)" = 6 ] && return 0
        kill -0 "$job" 2>/dev/null || break
        sleep 0.1
    done
    fail "net_hold did not start on all hosts"
}
end_of_job() {
    for _ in $(seq 300); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$job" 2>/dev/null && fail "the job did not end after $1"
    wait "$job"
    status=$?
    [ "$status" -ne 0 ] || fail "the job exited 0 after $1"
}
victim=${hosts[1]}
# The pids of ranks 2 and 3 (the victim host's), from their "rank R pid P host H ready" lines.
victim_rank_pids() { awk '$1 == "rank" && ($2 == 2 || $2 == 3) {print $4}' "$tmp/out"; }

hold_job
kill -9 $(victim_rank_pids)
end_of_job "host $victim's ranks were killed"
grep -Eq "rank [23] \(pid [0-9]+ on host $victim\) killed by signal 9" "$tmp/err" ||
    fail "no message naming the killed ranks on host $victim"
echo "ok   killing host $victim's ranks ends the job: $(grep -m1 'killed by' "$tmp/err")"

if [ "$mode" = netns ]; then
    rm -f "$tmp/pids/${prefix}h2"
    hold_job
    # The whole host goes: every process in its namespace (proxy, ranks) dies at once. The proxy's
    # pid comes from the rsh stand-in, the ranks' from their output; `ip netns pids` adds the rest.
    kill -9 $(cat "$tmp/pids/${prefix}h2") $(victim_rank_pids) $(ip netns pids "${prefix}h2") 2>/dev/null
    end_of_job "host $victim died"
    grep -Eq "(lost contact with host $victim|on host $victim\) killed)" "$tmp/err" ||
        fail "no message naming host $victim"
    echo "ok   losing host $victim ends the job: $(grep -m1 -E 'lost contact|killed' "$tmp/err")"
    for ns in "${namespaces[@]}"; do
        [ -z "$(ip netns pids "$ns")" ] || fail "processes left in $ns after the job"
    done
fi
jobid_files=$(ls /dev/shm 2>/dev/null | grep -c '^empi-' || true)
echo "done in $(($(date +%s) - started)) s ($jobid_files empi-* files in /dev/shm from any job)"
