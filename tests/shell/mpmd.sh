# MPMD (app contexts separated by ':'), MPI_APPNUM, -usize / MPI_UNIVERSE_SIZE, -wdir per context,
# and errors in a context, on this host and through proxies on fake remote hosts.
#   bash mpmd.sh MPIEXEC BOOT_TEST MPMD_TEST
source "$(dirname "$0")/common.sh"
APP=$(readlink -f "$1")
FAKE_RSH="$(cd "$(dirname "$0")/../net" && pwd)/fake_rsh.sh"
# The ranks share this machine's cores with everything else a parallel ctest runs.
export EMPI_YIELD=always

# expect_lines EXPECTED: the ranks' lines (any order) are exactly these.
expect_lines() {
    sort -n -k2 "$WORK/out" >"$WORK/got"
    printf '%s\n' "$1" >"$WORK/want"
    diff "$WORK/want" "$WORK/got" >&2 || fail "output differs (want, got) above"
}

# Three contexts: one program with two argument lists, and another program found in PATH (a link
# under another name); -env belongs to its context and overrides -genv, which is for all.
mkdir "$WORK/bin" && ln -s "$APP" "$WORK/bin/other_app"
export PATH="$WORK/bin:$PATH"
run -n 2 -genv MPMD_VAR g "$APP" alpha "$MARK" : -n 3 -env MPMD_VAR two other_app beta gamma "$MARK" \
    : "$APP" delta "$MARK"
expect_status 0
expect_lines "rank 0 size 6 appnum 0 universe 6 sum 5 prog mpmd_test var g args alpha $MARK
rank 1 size 6 appnum 0 universe 6 sum 5 prog mpmd_test var g args alpha $MARK
rank 2 size 6 appnum 1 universe 6 sum 5 prog other_app var two args beta gamma $MARK
rank 3 size 6 appnum 1 universe 6 sum 5 prog other_app var two args beta gamma $MARK
rank 4 size 6 appnum 1 universe 6 sum 5 prog other_app var two args beta gamma $MARK
rank 5 size 6 appnum 2 universe 6 sum 5 prog mpmd_test var g args delta $MARK"

# -nargs K: the K words after the program are its arguments, ':' and options included; a count
# that does not end at ':' or the end of the line is an error.
run -n 1 -nargs 3 "$APP" ":" -n "$MARK" : -n 1 -nargs 0 "$APP"
expect_status 0
expect_count out "^rank 0 size 2 appnum 0 universe 2 sum 1 prog mpmd_test var - args : -n $MARK\$" 1
expect_count out "^rank 1 size 2 appnum 1 universe 2 sum 1 prog mpmd_test var - args\$" 1
run -n 1 -nargs 1 "$APP" a b
expect_status 1
expect_count err "nargs 1: the program .* is not followed by 1 arguments" 1

# -usize and its spellings; the environment variable; never below the job's size; and the
# hosts' slots by default.
run -usize 12 -n 2 "$APP" "$MARK"
expect_status 0
expect_count out "^rank [01] size 2 appnum 0 universe 12 sum 0 prog mpmd_test var - args $MARK\$" 2
run -n 1 "$APP" "$MARK" : --universe-size=9 -n 1 "$APP" "$MARK"
expect_count out "^rank [01] size 2 appnum [01] universe 9 sum 1 prog mpmd_test var - args $MARK\$" 2
MPIEXEC_UNIVERSE_SIZE=7 run -n 3 "$APP" "$MARK"
expect_count out "^rank [0-2] size 3 appnum 0 universe 7 sum 0 prog mpmd_test var - args $MARK\$" 3
run -usize 1 -n 2 "$APP" "$MARK"
expect_count out "^rank [01] size 2 appnum 0 universe 2 sum 0 prog mpmd_test var - args $MARK\$" 2
run -hosts localhost:4,127.0.0.1:3 -n 2 "$APP" "$MARK"
expect_count out "^rank [01] size 2 appnum 0 universe 7 sum 0 prog mpmd_test var - args $MARK\$" 2

# Every rank is told the path of the mpiexec that runs it.
run -n 1 "$PROG" env EMPI_MPIEXEC "$MARK"
expect_in out "^rank 0 EMPI_MPIEXEC=$(readlink -f "$MPIEXEC")\$"

# -wdir belongs to its context; -gwdir is for the contexts without one.
mkdir "$WORK/d1" "$WORK/d2" "$WORK/d3"
run -n 1 -wdir "$WORK/d1" "$PROG" cwd "$MARK" : -n 2 -wdir "$WORK/d2" "$PROG" cwd "$MARK" \
    : -gwdir "$WORK/d3" -n 1 "$PROG" cwd "$MARK"
expect_status 0
for want in "0 cwd $WORK/d1" "1 cwd $WORK/d2" "2 cwd $WORK/d2" "3 cwd $WORK/d3"; do
    expect_in out "^rank $want\$"
done

# A bad context: nothing runs, a message says what is wrong, exit status 1 (127: no program).
bad() { # STATUS MESSAGE ARGS...
    local want=$1 msg=$2
    shift 2
    run "$@"
    expect_status "$want"
    expect_in err "$msg"
    [ ! -s "$WORK/out" ] || fail "mpiexec $* started something"
}
bad 1 "no program given after the last ':' \(in app context 2\)" -n 2 "$APP" "$MARK" :
bad 1 "no program given before ':' \(in app context 2\)" -n 2 "$APP" : : -n 1 "$APP"
bad 1 "no program given before ':'" : -n 1 "$APP"
bad 1 "no program given after the last ':' \(in app context 2\)" -n 1 "$APP" : -n 2
bad 1 "-n needs a positive number, got 'x' \(in app context 2\)" -n 1 "$APP" : -n x "$APP"
bad 1 "-np needs a positive number, got '0' \(in app context 3\)" -n 1 "$APP" : "$APP" : -np 0 "$APP"
bad 1 "-usize needs a positive number, got 'many'" -usize many -n 1 "$APP"
bad 127 "cannot find executable 'no-such-program-$MARK'" -n 1 "$APP" : -n 1 "no-such-program-$MARK"

# The same across hosts: the proxies get each rank's program, arguments, -env and appnum, and
# tell the ranks their own path.
export EMPI_LAUNCHER_RSH=$FAKE_RSH EMPI_BOOTSTRAP_ADDR=127.0.0.1
run -hosts hA,hB -ppn 1 -n 3 -env MPMD_VAR one "$APP" alpha "$MARK" : -n 2 other_app beta "$MARK" \
    : -env MPMD_VAR three "$APP" gamma "$MARK"
expect_status 0
expect_lines "rank 0 size 6 appnum 0 universe 6 sum 4 prog mpmd_test var one args alpha $MARK
rank 1 size 6 appnum 0 universe 6 sum 4 prog mpmd_test var one args alpha $MARK
rank 2 size 6 appnum 0 universe 6 sum 4 prog mpmd_test var one args alpha $MARK
rank 3 size 6 appnum 1 universe 6 sum 4 prog other_app var - args beta $MARK
rank 4 size 6 appnum 1 universe 6 sum 4 prog other_app var - args beta $MARK
rank 5 size 6 appnum 2 universe 6 sum 4 prog mpmd_test var three args gamma $MARK"
run -hosts hA,hB -ppn 1 -n 1 -wdir "$WORK/d1" "$PROG" cwd "$MARK" : -n 1 -wdir "$WORK/d2" "$PROG" cwd "$MARK"
expect_status 0
expect_in out "^rank 0 cwd $WORK/d1\$"
expect_in out "^rank 1 cwd $WORK/d2\$"
# -host belongs to its context: one rank on hA, two on hB (an even split of the job's ranks over
# both entries put one of the second context's ranks on hA).
run -n 1 -host hA "$PROG" env EMPI_HOSTNAME "$MARK" : -n 2 -host hB "$PROG" env EMPI_HOSTNAME "$MARK"
expect_status 0
expect_in out '^rank 0 EMPI_HOSTNAME=hA$'
expect_in out '^rank 1 EMPI_HOSTNAME=hB$'
expect_in out '^rank 2 EMPI_HOSTNAME=hB$'
bad 1 "app context 2 has no hosts while others give theirs with -host" -n 1 -host hA "$PROG" : -n 1 "$PROG"
run -hosts hA -usize 5 -n 1 "$PROG" env EMPI_MPIEXEC EMPI_UNIVERSE_SIZE "$MARK"
expect_status 0
expect_in out "^rank 0 EMPI_MPIEXEC=$(readlink -f "$MPIEXEC")\$"
expect_in out "^rank 0 EMPI_UNIVERSE_SIZE=5\$"

[ -z "$(leftover_pids)" ] || fail "processes left: $(leftover_pids)"
echo "PASS mpmd"
