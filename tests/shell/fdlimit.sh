# A job whose pipes and connections outgrow the soft descriptor limit (a common 1024 with more
# than about 500 ranks): mpiexec raises the limit as far as the job needs. poll() failed with
# EINVAL on every call and mpiexec spun at full CPU, reaping nothing and deaf to SIGTERM.
source "$(dirname "$0")/common.sh"
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt 1024 ]; then
    echo "SKIP: hard descriptor limit $hard"
    exit 77
fi
ulimit -Sn 128
run -n 100 "$PROG" exitcode 0 0 "$MARK"
expect_status 0
echo "PASS fdlimit"
