#!/bin/bash
# Measurements of docs/NETWORK.md between two network namespaces (one rank each):
# raw busy-polling TCP ping-pong (tcp_pingpong) vs empi-bench latency, bw, mbw_mr, get_latency,
# put_latency and acc_latency.
#   net_perf.sh BUILD_DIR [TRANSPORT] [quick]     (root; prints the results; quick: 8 B latency only)
# On a shared machine run it with a raised priority (nice -n -15) so that both sides of each
# ping-pong get a core: busy-polling figures measure the scheduler otherwise.
set -u
build=$1
transport=${2:-tcp}
quick=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
source "$here/netns_lib.sh"
setup_netns 2
ns1="${prefix}h1" ns2="${prefix}h2"
echo "# raw TCP ping-pong, busy-polling, TCP_NODELAY: size one-way-us"
sizes="8 1024"
[ -n "$quick" ] && sizes=8
for size in $sizes; do
    ip netns exec "$ns2" "$build/tests/net/tcp_pingpong" -s 7000 "$size" 20000 &
    jobs_started+=($!)
    sleep 0.3
    ip netns exec "$ns1" "$build/tests/net/tcp_pingpong" -c "${hosts[1]}" 7000 "$size" 20000
    wait
done
export EMPI_TRANSPORT=$transport
bench() {
    echo "# empi-bench $* over $transport"
    "$build/tools/mpiexec/mpiexec" -hosts "${hosts[0]},${hosts[1]}" -n 2 --timeout 300 \
        "$build/bench/empi-bench-run" "$@" | grep -v '^#'
}
if [ -n "$quick" ]; then
    bench latency -m 8:8 -i 20000
    exit 0
fi
bench latency -m 1:4K -i 10000
bench bw -m 64K:4M -i 50
bench mbw_mr -m 1:1K -i 1000
bench get_latency -s flush -m 8:64K -i 2000
bench put_latency -s flush -m 8:64K -i 2000
bench acc_latency -s flush -m 8:8K -i 2000
