# Stdin reaches rank 0 (all of it, also more than a pipe buffer); others read EOF.
source "$(dirname "$0")/common.sh"
printf 'one\ntwo\nthree\n' >"$WORK/in"
run -n 3 "$PROG" stdin "$MARK" <"$WORK/in"
expect_status 0
expect_in out '^rank 0 stdin bytes 14 lines 3$'
expect_count out '^rank [12] stdin bytes 0 lines 0$' 2
head -c 3000000 /dev/zero | tr '\0' '\n' >"$WORK/in"
run -n 2 "$PROG" stdin "$MARK" <"$WORK/in"
expect_status 0
expect_in out '^rank 0 stdin bytes 3000000 lines 3000000$'
# ... and through a pipe, where mpiexec must wait for rank 0 to keep up.
run -n 2 "$PROG" stdin "$MARK" < <(cat "$WORK/in")
expect_status 0
expect_in out '^rank 0 stdin bytes 3000000 lines 3000000$'
# An endless stdin that rank 0 never reads: the job ends as it would without one. (Across hosts
# mpiexec's send to the proxy that had exited failed, and it dropped the connection with the
# proxy's exit report unread: "lost contact with host". The proxy also queued all it was sent.)
for _ in 1 2 3 4 5 6; do   # a race: it came about every other run
    run -n 2 "$PROG" exitcode 0 0 "$MARK" < <(yes)
    expect_status 0
done
echo "PASS stdin"
