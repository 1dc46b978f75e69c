#!/bin/bash
# The udp transport under real loss: four network namespaces ("hosts", each with its own
# hostname) on a bridge (tests/net/netns_lib.sh), where nftables drops a random 1% and then 5% of
# every outgoing UDP datagram (`numgen random mod 100 < N drop`); the bootstrap runs over TCP and
# is spared. Every message must still arrive intact and in order. Skipped (77) without root,
# namespaces or nftables.
#   udp_netns_loss.sh BUILD_DIR
set -u
build=$1
here=$(cd "$(dirname "$0")/../net" && pwd)
tmp=$(mktemp -d)
source "$here/netns_lib.sh"
command -v nft >/dev/null || skip "no nft"
setup_netns 4
for ns in "${namespaces[@]}"; do
    ip netns exec "$ns" nft add table inet empiloss && ip netns exec "$ns" nft add chain inet empiloss out \
        '{ type filter hook output priority 0; }' || skip "nftables does not work in a namespace"
done
export EMPI_TRANSPORT=udp EMPI_YIELD=always
unset EMPI_UDP_DROP_RATE

set_loss() {
    for ns in "${namespaces[@]}"; do
        ip netns exec "$ns" nft flush chain inet empiloss out &&
            ip netns exec "$ns" nft add rule inet empiloss out meta l4proto udp \
                numgen random mod 100 '<' "$1" counter drop || fail "nft rule in $ns"
    done
}

dropped() {
    local total=0 n
    for ns in "${namespaces[@]}"; do
        n=$(ip netns exec "$ns" nft list chain inet empiloss out | grep -o 'packets [0-9]*' | awk '{print $2}')
        total=$((total + ${n:-0}))
    done
    echo "$total"
}

# run NHOSTS NP PROGRAM ARGS...
run() {
    local nh=$1 np=$2 t0=$SECONDS IFS=,
    shift 2
    "$build/tools/mpiexec/mpiexec" -hosts "${hosts[*]:0:$nh}" -n "$np" --timeout 240 "$@" \
        >"$tmp/out" 2>"$tmp/err" || fail "loss $loss%: $np ranks on $nh hosts: $*"
    echo "ok   loss $loss%: $np ranks on $nh hosts: ${1##*/} ($((SECONDS - t0)) s)"
}

for loss in 1 5; do
    set_loss "$loss"
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
