#!/bin/bash
# EtherMPI against MPICH across two network namespaces (docs/NETWORK.md, docs/OFI.md): the same
# empi-bench sources built for each library, one rank per namespace, ranks pinned to cores 0 and 1,
# the two libraries alternating for ROUNDS rounds. Needs root, iproute2 and MPICH from PyPI
# (scripts/peers.sh mpich).
#   scripts/net_compare.sh BUILD_DIR MODE ROUNDS CASE [ARGS...]     e.g. ... build tcp 3 bw -m 64K:4M -i 50
#   MODE tcp|udp|hybrid  ours over EMPI_TRANSPORT=MODE; MPICH over UCX on tcp (UCX_TLS=tcp,self)
#        ofi:PROVIDER    both over libfabric's PROVIDER; ours loads MPICH's bundled libfabric, so
#                        both stand on the same provider code
# MPICH starts through Hydra into the namespaces (-launcher ssh -launcher-exec with the namespace
# rsh stand-in); MPIR_CVAR_NOLOCAL keeps it off shared memory, which namespaces do not separate.
set -u
build=$(cd "$1" && pwd)
mode=$2
rounds=$3
shift 3
here=$(cd "$(dirname "$0")/../tests/net" && pwd)
src=$(cd "$(dirname "$0")/../bench/src" && pwd)
mpich=${EMPI_PEERS_DIR:-$HOME/.cache/empi/peers}/mpich
tmp=$(mktemp -d)
source "$here/netns_lib.sh"
[ -x "$mpich/bin/mpicc" ] || fail "no MPICH in $mpich: run scripts/peers.sh mpich"
setup_netns 2

"$mpich/bin/mpicc" -std=c11 -O2 -o "$tmp/empi-bench-mpich" "$src"/*.c -lm || fail "empi-bench does not build with MPICH"
cat >"$tmp/pin.sh" <<'EOF'
#!/bin/sh
exec taskset -c $(( ${EMPI_RANK:-${PMI_RANK:-0}} % 2 )) "$@"
EOF
# Hydra calls its launcher like ssh, with options first and the command as one string.
cat >"$tmp/hydra_rsh.sh" <<EOF
#!/bin/bash
while [ "\${1:0:1}" = "-" ]; do shift; done
host=\$1; shift
exec "$here/netns_rsh.sh" "\$host" sh -c "\$*"
EOF
chmod +x "$tmp/pin.sh" "$tmp/hydra_rsh.sh"

case $mode in
    ofi:*)
        provider=${mode#ofi:}
        ours_env=(EMPI_TRANSPORT=ofi "EMPI_OFI_PROVIDER=$provider" "LD_LIBRARY_PATH=$mpich/lib/mpich")
        mpich_env=(-genv MPIR_CVAR_CH4_NETMOD ofi -genv FI_PROVIDER "$provider") ;;
    *)
        ours_env=("EMPI_TRANSPORT=$mode")
        mpich_env=(-genv UCX_TLS tcp,self) ;;
esac
row() { grep -v '^#' | awk '{printf "%s:%s ", $1, $2} END {print ""}'; }
for r in $(seq "$rounds"); do
    echo "ours  $(env "${ours_env[@]}" "$build/tools/mpiexec/mpiexec" -x LD_LIBRARY_PATH \
        -hosts "${hosts[0]},${hosts[1]}" -n 2 --timeout 300 "$tmp/pin.sh" "$build/bench/empi-bench-run" "$@" | row)"
    echo "mpich $(LD_LIBRARY_PATH=$mpich/lib "$mpich/bin/mpiexec" -launcher ssh -launcher-exec "$tmp/hydra_rsh.sh" \
        -localhost "$NET_SUBNET.254" -hosts "${hosts[0]},${hosts[1]}" -n 2 -genv LD_LIBRARY_PATH "$mpich/lib" \
        -genv MPIR_CVAR_NOLOCAL 1 "${mpich_env[@]}" "$tmp/pin.sh" "$tmp/empi-bench-mpich" "$@" 2>&1 | row)"
done
