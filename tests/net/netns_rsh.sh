#!/bin/sh
# EMPI_LAUNCHER_RSH for the namespace suite: "host" i is the address $NET_SUBNET.i; the command
# runs inside network namespace ${NET_PREFIX}h<i> with a UTS namespace of its own named
# ${NET_PREFIX}h<i>, so the ranks there see a separate host. Called like ssh: HOST CMD ARGS...
# Every step below execs, so this pid becomes the remote proxy's: it is recorded per host for the
# test that kills a whole host (`ip netns pids` alone has come back empty under parallel tests).
host=$1
shift
ns="${NET_PREFIX}h${host##*.}"
[ -n "$NET_PIDDIR" ] && echo $$ >>"$NET_PIDDIR/$ns"
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$ns" "$@"
