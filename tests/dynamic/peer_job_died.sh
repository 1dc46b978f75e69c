# A process of a connected job dies (peer_job_died.c): a server job (2 ranks) accepts a client job
# (2 ranks), then client processes exit without MPI_Finalize.
#  - still connected, with every server rank waiting for client rank 0: the server job ends within
#    seconds, non-zero, saying which process of which job died (it used to wait until its timeout);
#  - right after MPI_Comm_disconnect (five times: server ranks may still be in theirs, which ended
#    the server job at first): the server job is not affected and exits 0.
# Nothing may be left behind either way.
#   bash peer_job_died.sh MPIEXEC PEER_JOB_DIED
source "$(dirname "$0")/../shell/common.sh"

one_case() { # MODE
    local mode=$1 portfile="$WORK/port-$1" t0 status
    rm -f "$portfile"
    t0=$(now_ms)
    start_job --timeout 40 -n 2 "$PROG" server "$portfile" "$mode" "$MARK"
    "$MPIEXEC" --timeout 40 -n 2 "$PROG" client "$portfile" "$mode" "$MARK" >"$WORK/client.out" 2>"$WORK/client.err"
    local client_status=$?
    wait "$BG_PID"
    status=$?
    BG_PID=
    local took=$(( $(now_ms) - t0 ))
    [ "$client_status" -ne 0 ] || fail "$mode: the client job whose rank died exited 0"
    grep -q "client rank 0 exits" "$WORK/client.out" || fail "$mode: the client did not get to its exit"
    if [ "$mode" = connected ]; then
        [ "$status" -ne 0 ] || fail "connected: the server job exited 0"
        grep -Eq "process 0 of job [0-9a-f]+, connected to this job through communicator .*ended without MPI_Finalize" \
            "$WORK/err" || fail "connected: no message naming the dead process"
        [ "$took" -lt 20000 ] || fail "connected: the server job took $took ms to end"
    else
        [ "$status" -eq 0 ] || fail "disconnected: the server job exited $status"
        grep -q "^server PASS$" "$WORK/out" || fail "disconnected: no 'server PASS'"
    fi
    sleep 0.1
    local left
    left=$(leftover_pids)
    [ -z "$left" ] || fail "$mode: processes left: $left"
    echo "$mode: server status $status, client status $client_status, $took ms"
}

one_case connected
for _ in 1 2 3 4 5; do one_case disconnected; done
echo "PASS peer_job_died"
