#!/bin/bash
# MPI overhead over libfabric (docs/OFI.md): 8-byte latency and bandwidth between two network
# namespaces, with empi-bench over EMPI_TRANSPORT=ofi and with libfabric's own fi_pingpong, for
# each provider. Needs root, iproute2 and libfabric-bin.
#   scripts/ofi_bench.sh BUILD_DIR [PROVIDER...]   (default: tcp "tcp;ofi_rxm" "udp;ofi_rxd")
set -u
build=$(cd "$1" && pwd)
shift
providers=("$@")
[ ${#providers[@]} -gt 0 ] || providers=(tcp "tcp;ofi_rxm" "udp;ofi_rxd")
here=$(cd "$(dirname "$0")/.." && pwd)
prefix="eb$$"
subnet="10.$((200 + $$ % 50)).$(($$ / 50 % 250))"
bridge="${prefix}br"
cleanup() {
    for i in 1 2; do
        for pid in $(ip netns pids "${prefix}h$i" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
        ip netns del "${prefix}h$i" 2>/dev/null
    done
    ip link del "$bridge" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

ip link add "$bridge" type bridge && ip addr add "$subnet.254/24" dev "$bridge" && ip link set "$bridge" up || exit 1
for i in 1 2; do
    ns="${prefix}h$i"
    ip netns add "$ns" && ip link add "${prefix}v$i" type veth peer name eth0 netns "$ns" &&
        ip link set "${prefix}v$i" master "$bridge" up && ip -n "$ns" addr add "$subnet.$i/24" dev eth0 &&
        ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up || exit 1
done
export EMPI_LAUNCHER_RSH="$here/tests/net/netns_rsh.sh" NET_PREFIX="$prefix" NET_SUBNET="$subnet"
export EMPI_TRANSPORT=ofi

for prov in "${providers[@]}"; do
    echo "=== provider $prov"
    ip netns exec "${prefix}h1" fi_pingpong -p "$prov" -e rdm -S 8 -I "${ITERS:-20000}" >/tmp/$prefix.srv 2>&1 &
    sleep 0.5
    ip netns exec "${prefix}h2" fi_pingpong -p "$prov" -e rdm -S 8 -I "${ITERS:-20000}" "$subnet.1" 2>&1 | tail -2
    wait
    ip netns exec "${prefix}h1" fi_pingpong -p "$prov" -e rdm -S 1048576 -I "${BW_ITERS:-200}" >/tmp/$prefix.srv 2>&1 &
    sleep 0.5
    ip netns exec "${prefix}h2" fi_pingpong -p "$prov" -e rdm -S 1048576 -I "${BW_ITERS:-200}" "$subnet.1" 2>&1 | tail -1
    wait
    rm -f /tmp/$prefix.srv
    EMPI_OFI_PROVIDER=$prov "$build/tools/mpiexec/mpiexec" -hosts "$subnet.1,$subnet.2" -n 2 \
        "$build/bench/empi-bench" latency -m 8:8 -i "${ITERS:-20000}" | grep -v '^#'
    EMPI_OFI_PROVIDER=$prov "$build/tools/mpiexec/mpiexec" -hosts "$subnet.1,$subnet.2" -n 2 \
        "$build/bench/empi-bench" bw -m 8:1M -i "${MPI_BW_ITERS:-100}" | grep -v '^#'
done
