# Shared by net_suite.sh and net_perf.sh (sourced; the caller sets `here` and `tmp`): fake hosts
# on this machine (setup_loopback) or NHOSTS network namespaces on a bridge (setup_netns), and
# removal of everything created, on every exit path (EXIT trap).
prefix="em$$"          # names of namespaces and links: short (interface names have 15 chars)
bridge=""
namespaces=()
jobs_started=()

cleanup() {
    for pid in "${jobs_started[@]}"; do kill -9 "$pid" 2>/dev/null; done
    for ns in "${namespaces[@]}"; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    for link in $(ip -o link show 2>/dev/null | grep -o "${prefix}v[0-9]*"); do ip link del "$link" 2>/dev/null; done
    [ -n "$bridge" ] && ip link del "$bridge" 2>/dev/null
    [ -e "/run/netns/${prefix}probe" ] && ip netns del "${prefix}probe" 2>/dev/null   # netns_usable cut short
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

skip() { echo "SKIP: $*"; exit 77; }
fail() {
    echo "FAIL: $*"
    for f in out err; do [ -s "$tmp/$f" ] && { echo "--- $f"; head -40 "$tmp/$f"; }; done
    exit 1
}

setup_loopback() {
    hosts=(hA hB hC hD)
    export EMPI_LAUNCHER_RSH="$here/fake_rsh.sh" EMPI_BOOTSTRAP_ADDR=127.0.0.1
}

# 0 when setup_netns can work here (root, iproute2, a namespace can be made).
netns_usable() {
    [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null && command -v unshare >/dev/null || return 1
    ip netns add "${prefix}probe" 2>/dev/null || return 1
    ip netns del "${prefix}probe"
}

# setup_netns [NHOSTS [routed]]: routed gives each host a /32 address with an on-link route (no
# subnet in common, as on a routed cluster) and a bridge of its own carrying the same private
# address on every host, like docker0's 172.17.0.1.
setup_netns() {
    [ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
    command -v ip >/dev/null && command -v unshare >/dev/null || skip "no ip (iproute2) or unshare"
    local subnet="10.$((200 + $$ % 50)).$(($$ / 50 % 250))"
    bridge="${prefix}br"
    ip link add "$bridge" type bridge 2>/dev/null || { bridge=""; skip "cannot create a bridge"; }
    ip addr add "$subnet.254/24" dev "$bridge" && ip link set "$bridge" up || fail "bridge setup"
    hosts=()
    for i in $(seq "${1:-4}"); do
        local ns="${prefix}h$i"
        ip netns add "$ns" 2>/dev/null || skip "cannot create network namespaces"
        namespaces+=("$ns")
        ip link add "${prefix}v$i" type veth peer name eth0 netns "$ns" &&
            ip link set "${prefix}v$i" master "$bridge" up &&
            ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up || fail "namespace $ns setup"
        if [ "${2:-}" = routed ]; then
            ip -n "$ns" addr add "$subnet.$i/32" dev eth0 && ip -n "$ns" route add "$subnet.0/24" dev eth0 &&
                ip -n "$ns" link add dock0 type veth peer name dock0p && ip -n "$ns" link set dock0p up &&
                ip -n "$ns" addr add 172.17.0.1/16 dev dock0 && ip -n "$ns" link set dock0 up ||
                fail "namespace $ns: routed setup"
        else
            ip -n "$ns" addr add "$subnet.$i/24" dev eth0 || fail "namespace $ns setup"
        fi
        hosts+=("$subnet.$i")
    done
    mkdir -p "$tmp/pids"
    export EMPI_LAUNCHER_RSH="$here/netns_rsh.sh" NET_PREFIX="$prefix" NET_SUBNET="$subnet" \
        NET_PIDDIR="$tmp/pids"
    unset EMPI_BOOTSTRAP_ADDR
}

