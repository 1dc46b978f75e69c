# Helpers shared by the launcher tests. Sourced by each test script, which is run as
#   bash <test>.sh MPIEXEC BOOT_TEST [args...]
# Every test runs with a private TMPDIR, and tags its job with a unique marker
# argument so that leftover processes can be found.
set -u
MPIEXEC=$1
PROG=$2
shift 2

WORK=$(mktemp -d)
export TMPDIR=$WORK
MARK="empi-shell-test-$$-$RANDOM"
BG_PID=   # a background mpiexec, stopped (with its ranks) if the test fails early
trap '[ -n "$BG_PID" ] && kill -TERM "$BG_PID" 2>/dev/null && wait "$BG_PID"; rm -rf "$WORK"' EXIT

fail() {
    echo "FAIL: $*" >&2
    for f in "$WORK"/out "$WORK"/err; do
        [ -f "$f" ] && { echo "--- $f (head)" >&2; head -c 3000 "$f" >&2; }
    done
    exit 1
}

# wait_for_ready N: until $WORK/out has N lines starting with "ready". A job started in the
# background truncates its output only once it runs: start it with start_job, which removes the
# previous job's output first, so that its "ready" lines are not counted as the new job's.
wait_for_ready() {
    for _ in $(seq 400); do
        [ "$(grep -c '^ready' "$WORK/out" 2>/dev/null || true)" -ge "${1}" ] 2>/dev/null && return 0
        sleep 0.05
    done
    fail "ranks did not start"
}

# start_job ARGS...: mpiexec ARGS in the background, output to $WORK/out and err; BG_PID set.
start_job() {
    rm -f "$WORK/out" "$WORK/err"
    "$MPIEXEC" "$@" >"$WORK/out" 2>"$WORK/err" &
    BG_PID=$!
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# run ARGS...: runs mpiexec with stdout/stderr in $WORK/out, $WORK/err; sets STATUS
# and ELAPSED_MS. Stdin comes from /dev/null unless the caller redirects.
run() {
    local t0
    t0=$(now_ms)
    "$MPIEXEC" "$@" >"$WORK/out" 2>"$WORK/err"
    STATUS=$?
    ELAPSED_MS=$(( $(now_ms) - t0 ))
}

expect_status() {
    [ "$STATUS" -eq "$1" ] || fail "exit status $STATUS, expected $1"
}

expect_in() { # FILE PATTERN (grep -E)
    grep -Eq -- "$2" "$WORK/$1" || fail "$1 lacks /$2/"
}

expect_not_in() {
    ! grep -Eq -- "$2" "$WORK/$1" || fail "$1 unexpectedly has /$2/"
}

expect_count() { # FILE PATTERN N
    local n
    n=$(grep -Ec -- "$2" "$WORK/$1")
    [ "$n" -eq "$3" ] || fail "$1 has $n lines matching /$2/, expected $3"
}

expect_faster_than() { # MS
    [ "$ELAPSED_MS" -lt "$1" ] || fail "took ${ELAPSED_MS} ms, limit $1 ms"
}

# Processes whose command line holds our marker (the ranks and their children).
leftover_pids() {
    local f pid
    # "e[m]pi-..." matches the marker but not grep's own command line.
    for f in $(grep -las -- "${MARK:0:1}[${MARK:1:1}]${MARK:2}" /proc/[0-9]*/cmdline); do
        pid=${f#/proc/}; pid=${pid%/cmdline}
        [ "$pid" = "$$" ] || [ "$pid" = "$BASHPID" ] || echo "$pid"
    done
}

# After a job: no process of it, no socket, no /dev/shm/empi-<jobid>* entry.
expect_clean() {
    local jobid left
    sleep 0.1 # let the kernel finish reaping orphans that init adopted
    left=$(leftover_pids)
    [ -z "$left" ] || { ps -o pid,ppid,stat,cmd -p $left >&2; fail "processes left: $left"; }
    jobid=$(sed -n 's/^\(\[0\] \)\{0,1\}jobid \([0-9a-f]*\)$/\2/p' "$WORK/out" | head -n1)
    [ -n "$jobid" ] || fail "rank 0 did not print its jobid"
    ! ls /dev/shm/empi-"$jobid"* >/dev/null 2>&1 || fail "/dev/shm/empi-$jobid* left behind"
    no_socket "$jobid"
}

# mpiexec's bootstrap socket has an abstract name (no file): it must be closed.
no_socket() {
    ! grep -q "@empi-$1\$" /proc/net/unix || fail "bootstrap socket @empi-$1 still open"
    ! ls "$WORK"/empi-* >/dev/null 2>&1 || fail "left in TMPDIR: $(ls "$WORK"/empi-*)"
}
