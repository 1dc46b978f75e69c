# Without mpiexec the client is a world of one.
source "$(dirname "$0")/common.sh"
env -u EMPI_RANK "$PROG" singleton >"$WORK/out" 2>"$WORK/err"
STATUS=$?
expect_status 0
expect_in out '^singleton ok$'
echo "PASS singleton"
