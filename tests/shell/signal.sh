# SIGINT or SIGTERM to mpiexec ends every rank; exit 128+signal.
source "$(dirname "$0")/common.sh"
for sig in INT TERM; do
    start_job -n 4 "$PROG" sleep "$MARK"
    wait_for_ready 4
    t0=$(now_ms)
    kill -"$sig" "$BG_PID"
    wait "$BG_PID"
    STATUS=$?
    BG_PID=
    ELAPSED_MS=$(( $(now_ms) - t0 ))
    want=$([ "$sig" = INT ] && echo 130 || echo 143)
    expect_status "$want"
    expect_faster_than 3000
    expect_in err 'received signal'
    expect_clean
done
# Even SIGKILL to mpiexec (no chance to clean up) takes the ranks down with it.
start_job -n 3 "$PROG" sleep "$MARK"
wait_for_ready 3
kill -KILL "$BG_PID"
wait "$BG_PID" 2>/dev/null
BG_PID=
sleep 0.2
left=$(leftover_pids)
[ -z "$left" ] || fail "ranks survived SIGKILL of mpiexec: $left"
# The bootstrap socket has no file to leave behind. (The library unlinks its segments once every
# rank has mapped them; this test's ranks keep theirs on purpose, and nobody was left to clean.)
jobid=$(sed -n 's/^jobid //p' "$WORK/out")
[ -n "$jobid" ] || fail "rank 0 did not print its jobid"
no_socket "$jobid"
rm -f /dev/shm/empi-"$jobid"*
echo "PASS signal"
