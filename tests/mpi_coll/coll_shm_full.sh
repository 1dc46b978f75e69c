#!/bin/bash
# coll_shm_full under a private 64 MiB /dev/shm (a mount namespace of its own: the real /dev/shm is
# untouched). Skipped (77) where mount namespaces are not allowed.
#   coll_shm_full.sh MPIEXEC PROGRAM
mpiexec=$1 prog=$2
unshare -m --propagation private true 2>/dev/null || { echo "SKIP: no mount namespaces here"; exit 77; }
exec unshare -m --propagation private bash -c \
    'mount -t tmpfs -o size=64m tmpfs /dev/shm && exec "$0" -n 4 --timeout 120 "$1"' "$mpiexec" "$prog"
