#!/bin/bash
# The udp transport under real loss: four network namespaces ("hosts", each with its own
# hostname) on a bridge, where nftables drops a random 1% and then 5% of every outgoing UDP
# datagram (`numgen random mod 100 < N drop`); the bootstrap runs over TCP and is spared.
# Every message must still arrive intact and in order. Skipped (77) without root or namespaces.
#   udp_netns_loss.sh BUILD_DIR
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
MPIEXEC=$build/tools/mpiexec/mpiexec
prefix="eu$$"
subnet="10.$((150 + $$ % 50)).$(($$ / 50 % 250))"
bridge=""
namespaces=()
out=$(mktemp)

cleanup() {
    for ns in "${namespaces[@]}"; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    [ -n "$bridge" ] && ip link del "$bridge" 2>/dev/null
    rm -f "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; head -40 "$out"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
command -v ip >/dev/null && command -v nft >/dev/null && command -v unshare >/dev/null ||
    skip "needs ip, nft and unshare"
bridge="${prefix}br"
ip link add "$bridge" type bridge 2>/dev/null || { bridge=""; skip "cannot create a bridge"; }
# mpiexec runs here, in the root namespace, and reaches the hosts over the bridge.
ip addr add "$subnet.254/24" dev "$bridge" && ip link set "$bridge" up || fail "bridge setup"
hosts=()
for i in 1 2 3 4; do
    ns="${prefix}h$i"
    ip netns add "$ns" 2>/dev/null || skip "cannot create network namespaces"
    namespaces+=("$ns")
    ip link add "${prefix}v$i" type veth peer name eth0 netns "$ns" &&
        ip link set "${prefix}v$i" master "$bridge" up &&
        ip -n "$ns" addr add "$subnet.$i/24" dev eth0 && ip -n "$ns" link set eth0 up &&
        ip -n "$ns" link set lo up || fail "namespace $ns setup"
    ip netns exec "$ns" nft add table inet empiloss && ip netns exec "$ns" nft add chain inet empiloss out \
        '{ type filter hook output priority 0; }' || skip "nftables does not work in a namespace"
    hosts+=("$subnet.$i")
done
# tests/net's rsh stand-in enters the namespace of host $NET_SUBNET.i with a hostname of its own.
export EMPI_LAUNCHER_RSH="$here/../net/netns_rsh.sh" NET_PREFIX="$prefix" NET_SUBNET="$subnet"
export EMPI_TRANSPORT=udp EMPI_YIELD=always
unset EMPI_BOOTSTRAP_ADDR EMPI_UDP_DROP_RATE

set_loss() {
    for ns in "${namespaces[@]}"; do
        ip netns exec "$ns" nft flush chain inet empiloss out &&
            ip netns exec "$ns" nft add rule inet empiloss out meta l4proto udp \
                numgen random mod 100 '<' "$1" counter drop ||
            fail "nft rule in $ns"
    done
}

# run NHOSTS NP PROGRAM ARGS...
run() {
    local nh=$1 np=$2 t0=$SECONDS
    shift 2
    local IFS=,
    "$MPIEXEC" -hosts "${hosts[*]:0:$nh}" -n "$np" --timeout 240 "$@" >"$out" 2>&1 ||
        fail "loss $loss%: $np ranks on $nh hosts: $*"
    unset IFS
    echo "ok   loss $loss%: $np ranks on $nh hosts: $(basename "$1") ($((SECONDS - t0)) s)"
}

dropped() {
    local total=0
    for ns in "${namespaces[@]}"; do
        n=$(ip netns exec "$ns" nft list chain inet empiloss out | grep -o 'packets [0-9]*' | awk '{print $2}')
        total=$((total + ${n:-0}))
    done
    echo "$total"
}

for loss in 1 5; do
    set_loss "$loss"
    ip netns exec "${namespaces[0]}" nft list chain inet empiloss out | grep -q "numgen random mod 100 < $loss" ||
        fail "rule not installed"
    run 2 2 "$build/tests/net_udp/udp_pt2pt_patterns"
    run 4 4 "$build/tests/net_udp/udp_pt2pt_patterns"
    run 4 8 "$build/tests/net_udp/udp_pt2pt_patterns"
    run 2 2 "$build/tests/mpi/pt2pt_large" 16777216
    run 4 4 "$build/tests/mpi/pt2pt_order"
    run 4 4 "$build/tests/mpi_dt/dt_pt2pt"
    run 4 4 "$build/tests/mpi_coll/coll_stress"
    n=$(dropped)
    [ "$n" -gt 0 ] || fail "nftables dropped nothing at $loss%"
    echo "     nftables dropped $n datagrams at $loss%"
done
echo "PASS"
