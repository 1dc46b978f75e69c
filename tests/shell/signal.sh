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
# Even SIGKILL to mpiexec (no chance to clean up) takes the ranks down with it, and its janitor
# removes the job's /dev/shm files (these ranks keep theirs on purpose, as a rank killed between
# creating a segment and unlinking it would).
start_job -n 3 "$PROG" sleep "$MARK"
wait_for_ready 3
jobid=$(sed -n 's/^jobid //p' "$WORK/out")
[ -n "$jobid" ] || fail "rank 0 did not print its jobid"
ls /dev/shm/empi-"$jobid"* >/dev/null 2>&1 || fail "the ranks made no /dev/shm file to leave behind"
kill -KILL "$BG_PID"
wait "$BG_PID" 2>/dev/null
BG_PID=
for _ in $(seq 40); do
    left=$(leftover_pids)
    [ -z "$left" ] && ! ls /dev/shm/empi-"$jobid"* >/dev/null 2>&1 && break
    sleep 0.05
done
[ -z "$left" ] || fail "processes survived SIGKILL of mpiexec: $left"
! ls /dev/shm/empi-"$jobid"* >/dev/null 2>&1 || fail "/dev/shm/empi-$jobid* left behind after SIGKILL of mpiexec"
no_socket "$jobid"
echo "PASS signal"
