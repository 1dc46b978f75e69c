#!/bin/bash
# Numbers for docs/NETWORK-UDP.md (not a test): 8-byte latency of a raw busy-polling UDP ping-pong
# and of MPI over the udp transport (tcp alongside), then MPI bandwidth, on loopback between two
# fake hosts and between two network namespaces on a bridge (when root). Each figure is the best of
# REPEAT runs, to filter out a busy machine.
#   udp_perf.sh BUILD_DIR [REPEAT]
set -u
build=$1
repeat=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
MPIEXEC=$build/tools/mpiexec/mpiexec
BENCH=$build/bench/empi-bench
RAW=$build/tests/net_udp/raw_udp_pingpong
prefix="ep$$"
bridge=""
namespaces=()
cleanup() {
    for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null; done
    [ -n "$bridge" ] && ip link del "$bridge" 2>/dev/null
}
trap cleanup EXIT

best() { sort -g | "$@" | head -1; }   # best min: `best cat`; best max: `best tac`

# raw_latency SERVER_PREFIX CLIENT_PREFIX ADDR
raw_latency() {
    for i in $(seq "$repeat"); do
        port=$((47000 + RANDOM % 1000))
        $1 "$RAW" server $port 8 20000 &
        sleep 0.3
        $2 "$RAW" client "$3" $port 8 20000 | awk '{print $3}'
        wait
    done | best cat
}

# mpi_figure TRANSPORT HOSTS CASE SIZES COLUMN-PICK
mpi_latency() {
    for i in $(seq "$repeat"); do
        EMPI_TRANSPORT=$1 "$MPIEXEC" -hosts "$2" -n 2 "$BENCH" latency -m 8:8 -i 20000 | awk '$1 == 8 {print $2}'
    done | best cat
}
mpi_bw() {
    for i in $(seq "$repeat"); do
        EMPI_TRANSPORT=$1 "$MPIEXEC" -hosts "$2" -n 2 "$BENCH" bw -m "$3:$3" -i 500 | awk -v s="$3" '$1 == s {print $2}'
    done | best tac
}

report() {
    local where=$1 hosts=$2 raw
    raw=$(raw_latency "$3" "$4" "$5")
    echo "$where: raw UDP ping-pong 8 B: $raw us"
    for t in udp tcp; do
        lat=$(mpi_latency $t "$hosts")
        echo "$where: MPI over $t 8 B: $lat us ($(awk -v a="$lat" -v b="$raw" 'BEGIN {printf "%.2f", a / b}') x raw)"
        for s in 65536 1048576 4194304; do
            echo "$where: MPI over $t bandwidth $s B: $(mpi_bw $t "$hosts" $s) MB/s"
        done
    done
}

EMPI_LAUNCHER_RSH="$here/../net/fake_rsh.sh" EMPI_BOOTSTRAP_ADDR=127.0.0.1 \
    report loopback h1,h2 "" "" 127.0.0.1

if [ "$(id -u)" -eq 0 ] && ip link add "${prefix}br" type bridge 2>/dev/null; then
    bridge="${prefix}br"
    subnet="10.$((100 + $$ % 50)).$(($$ / 50 % 250))"
    ip addr add "$subnet.254/24" dev "$bridge" && ip link set "$bridge" up
    for i in 1 2; do
        ns="${prefix}h$i"
        ip netns add "$ns" && namespaces+=("$ns")
        ip link add "${prefix}v$i" type veth peer name eth0 netns "$ns"
        ip link set "${prefix}v$i" master "$bridge" up
        ip -n "$ns" addr add "$subnet.$i/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
    done
    EMPI_LAUNCHER_RSH="$here/../net/netns_rsh.sh" NET_PREFIX="$prefix" NET_SUBNET="$subnet" \
        report netns "$subnet.1,$subnet.2" "ip netns exec ${prefix}h1" "ip netns exec ${prefix}h2" "$subnet.1"
fi
