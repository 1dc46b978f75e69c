#!/bin/bash
# Hosts whose only address in common is a private bridge address every one of them carries (docker0's
# 172.17.0.1): a peer's address that is also ours leads back to this host, so the transports must
# reach the peer by its other one. tcp was refused ("cannot connect to rank 1 at 172.17.0.1") and
# udp sent to itself forever.
#   net_routed.sh BUILD_DIR    (root; skipped where namespaces cannot be made)
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
source "$here/netns_lib.sh"
setup_netns 2 routed
for transport in tcp udp hybrid; do
    EMPI_TRANSPORT=$transport "$build/tools/mpiexec/mpiexec" -hosts "${hosts[0]},${hosts[1]}" -n 4 --timeout 60 \
        "$build/tests/mpi/coll_smoke" >"$tmp/out" 2>"$tmp/err" || fail "coll_smoke over $transport"
    echo "ok   coll_smoke over $transport"
done
