# --timeout (and MPIEXEC_TIMEOUT) end a hung job with exit 124.
source "$(dirname "$0")/common.sh"
run -n 3 --timeout 1 "$PROG" sleep "$MARK"
expect_status 124
expect_in err 'timed out after 1 seconds'
[ "$ELAPSED_MS" -ge 900 ] || fail "ended too early (${ELAPSED_MS} ms)"
expect_faster_than 3500
expect_clean
MPIEXEC_TIMEOUT=1 run -n 2 "$PROG" sleep "$MARK"
expect_status 124
expect_clean
# Ranks that ignore SIGTERM are SIGKILLed after the grace period.
run -n 2 --timeout 1 "$PROG" stubborn "$MARK"
expect_status 124
expect_faster_than 3500
expect_clean
echo "PASS timeout"
