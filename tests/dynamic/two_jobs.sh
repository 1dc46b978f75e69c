# Two separate mpiexec jobs meet through the name service: a server job (2 ranks) publishes a
# service name and accepts, a client job (3 ranks) looks the name up and connects; they exchange
# verified data (accept_connect.c in server/client mode). Both jobs must exit 0 with empty stderr,
# and leave no process, no /dev/shm/empi-<jobid>* entry and nothing in their TMPDIR behind.
#   bash two_jobs.sh MPIEXEC ACCEPT_CONNECT
source "$(dirname "$0")/../shell/common.sh"
SERVERS=2
CLIENTS=3
SERVICE="empi-test-two-jobs-$$-$RANDOM"

show_client() {
    for f in "$WORK"/client.out "$WORK"/client.err; do
        [ -f "$f" ] && { echo "--- $f (head)" >&2; head -c 3000 "$f" >&2; }
    done
}
fail_both() { show_client; fail "$@"; }

# The server job, in the background ($WORK/out, $WORK/err); the client starts once the name is
# published, and looks it up exactly once.
start_job --timeout 40 -n "$SERVERS" "$PROG" server "$SERVICE" "$CLIENTS" "$MARK"
for _ in $(seq 600); do
    grep -q '^published ' "$WORK/out" 2>/dev/null && break
    kill -0 "$BG_PID" 2>/dev/null || break
    sleep 0.05
done
grep -q "^published $SERVICE\$" "$WORK/out" || fail "the server job did not publish $SERVICE"

"$MPIEXEC" --timeout 30 -n "$CLIENTS" "$PROG" client "$SERVICE" "$SERVERS" "$MARK" \
    >"$WORK/client.out" 2>"$WORK/client.err"
CLIENT_STATUS=$?
# A failed client leaves the server waiting for it: fail now (the exit trap stops the server job).
[ "$CLIENT_STATUS" -eq 0 ] || fail_both "client job exit status $CLIENT_STATUS"
wait "$BG_PID"
SERVER_STATUS=$?
BG_PID=
[ "$SERVER_STATUS" -eq 0 ] || fail_both "server job exit status $SERVER_STATUS"
grep -q '^server PASS$' "$WORK/out" || fail_both "server job did not print 'server PASS'"
grep -q '^client PASS$' "$WORK/client.out" || fail_both "client job did not print 'client PASS'"
[ ! -s "$WORK/err" ] || fail_both "unexpected stderr from the server job"
[ ! -s "$WORK/client.err" ] || fail_both "unexpected stderr from the client job"

# Nothing left behind by either job.
sleep 0.1 # let the kernel finish reaping orphans that init adopted
left=$(leftover_pids)
[ -z "$left" ] || { ps -o pid,ppid,stat,cmd -p $left >&2; fail_both "processes left: $left"; }
for f in out client.out; do
    jobid=$(sed -n 's/^jobid \([0-9a-f]*\)$/\1/p' "$WORK/$f" | head -n1)
    [ -n "$jobid" ] || fail_both "rank 0 of the job writing $f did not print its jobid"
    ! ls /dev/shm/empi-"$jobid"* >/dev/null 2>&1 || fail_both "/dev/shm/empi-$jobid* left behind"
done
extra=$(ls -A "$WORK" | grep -Ev '^(out|err|client\.out|client\.err)$')
[ -z "$extra" ] || fail_both "left in the jobs' TMPDIR: $extra"
echo "PASS two_jobs servers=$SERVERS clients=$CLIENTS"
