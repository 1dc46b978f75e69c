# What mpiexec passes on: SIGUSR1 and SIGUSR2 reach every rank and the job goes on; ranks of a
# job started with SIGINT and SIGQUIT ignored (`mpiexec ... &` in a script) get them back, so the
# SIGINT mpiexec forwards ends them; a reader that leaves (`mpiexec ... | head -1`) ends the job
# with the status of a command killed by SIGPIPE.
source "$(dirname "$0")/common.sh"
for sig in USR1 USR2; do
    start_job -n 3 "$PROG" usr "$MARK"
    wait_for_ready 3
    kill -"$sig" "$BG_PID"
    wait "$BG_PID"
    STATUS=$?
    BG_PID=
    expect_status 0
    num=$(kill -l "$sig")
    expect_count out "^rank [0-9] got signal $num\$" 3
    expect_clean
done

rm -f "$WORK/out" "$WORK/err"
bash -c 'trap "" INT QUIT; exec "$@"' mpiexec "$MPIEXEC" -n 2 "$PROG" sleep "$MARK" >"$WORK/out" 2>"$WORK/err" &
BG_PID=$!
wait_for_ready 2
for pid in $(leftover_pids); do
    [ "$pid" != "$BG_PID" ] || continue   # mpiexec itself (bash exec'd it) keeps its dispositions
    ignored=$(sed -n 's/^SigIgn:\s*//p' "/proc/$pid/status")
    # SIGINT is 2 and SIGQUIT 3: bits 1 and 2 of the mask
    [ $(( 0x$ignored & 0x6 )) -eq 0 ] || fail "rank process $pid ignores SIGINT or SIGQUIT (SigIgn $ignored)"
done
kill -TERM "$BG_PID"
wait "$BG_PID"
BG_PID=
expect_clean

set -o pipefail
t0=$(now_ms)
timeout 30 "$MPIEXEC" -n 2 "$PROG" chatter "$MARK" 2>"$WORK/err" | head -n 1 >"$WORK/out"
STATUS=$?
ELAPSED_MS=$(( $(now_ms) - t0 ))
set +o pipefail
expect_status 141
expect_faster_than 10000
[ "$(wc -l <"$WORK/out")" -eq 1 ] || fail "head did not get its line"
sleep 0.2
left=$(leftover_pids)
[ -z "$left" ] || fail "processes left after the reader went: $left"
echo "PASS forward"
