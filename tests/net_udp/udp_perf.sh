#!/bin/bash
# Numbers of docs/NETWORK-UDP.md (not a test; root): a raw busy-polling UDP ping-pong
# (raw_udp_pingpong) vs empi-bench latency and bw over the udp transport, one rank in each of two
# network namespaces on a bridge (tests/net/netns_lib.sh), or two fake hosts on loopback.
#   udp_perf.sh BUILD_DIR [netns|loopback]
# On a shared machine run it as SCHED_FIFO (chrt -f 10 ...) so both sides of a ping-pong get a core.
set -u
build=$1
mode=${2:-netns}
here=$(cd "$(dirname "$0")/../net" && pwd)
tmp=$(mktemp -d)
source "$here/netns_lib.sh"
raw=$build/tests/net_udp/raw_udp_pingpong
if [ "$mode" = netns ]; then
    setup_netns 2
    on1="ip netns exec ${prefix}h1" on2="ip netns exec ${prefix}h2" addr=${hosts[1]}
else
    setup_loopback
    on1="" on2="" addr=127.0.0.1
fi
echo "# raw UDP ping-pong, busy-polling ($mode)"
for size in 8 1024; do
    $on2 "$raw" server 7001 "$size" 20000 &
    jobs_started+=($!)
    sleep 0.3
    $on1 "$raw" client "$addr" 7001 "$size" 20000
    wait
done
export EMPI_TRANSPORT=udp
for args in "latency -m 1:4K -i 20000" "bw -m 64K:4M -i 100"; do
    echo "# empi-bench $args over udp ($mode)"
    # shellcheck disable=SC2086
    "$build/tools/mpiexec/mpiexec" -hosts "${hosts[0]},${hosts[1]}" -n 2 --timeout 300 \
        "$build/bench/empi-bench" $args | grep -v '^#'
done
