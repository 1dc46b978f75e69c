# Option spellings of MPICH and Open MPI, tagging, help, version, host checks.
source "$(dirname "$0")/common.sh"
for spelling in "-n 2" "-np 2" "--np 2" "--np=2" "-n 2 -ppn 2 --oversubscribe" \
                "-n 2 -hosts localhost" "-n 2 --host localhost:2" "--allow-run-as-root -np 2" \
                "-n 2 --use-hwthread-cpus --bind-to core --map-by core -v"; do
    run $spelling "$PROG" exitcode 0 0 "$MARK"
    expect_status 0
done
run -n 2 --tag-output "$PROG" env EMPI_RANK "$MARK"
expect_in out '^\[0\] rank 0 EMPI_RANK=0$'
expect_in out '^\[1\] rank 1 EMPI_RANK=1$'
run -n 2 -prepend-rank "$PROG" env EMPI_RANK "$MARK"
expect_in out '^\[1\] rank 1 EMPI_RANK=1$'
# Open MPI's --mca: ignored, with a warning naming it
run -np 2 --mca btl self,vader "$PROG" exitcode 0 0 "$MARK"
expect_status 0
expect_in err 'ignoring --mca btl self,vader'
# -wdir: the ranks run there, and a relative program is looked up there
mkdir -p "$WORK/wd"
cp "$PROG" "$WORK/wd/prog_copy"
(cd / && "$MPIEXEC" -n 2 -wdir "$WORK/wd" ./prog_copy exitcode 0 0 "$MARK") || fail "-wdir with a relative program"
run -n 2 --wdir="$WORK/wd" sh -c 'pwd'
expect_status 0
[ "$(grep -c "^$WORK/wd\$" "$WORK/out")" -eq 2 ] || fail "-wdir: ranks ran in $(cat "$WORK/out")"
run -n 2 -wdir "$WORK/none" "$PROG" exitcode 0 0 "$MARK"
[ "$STATUS" -ne 0 ] || fail "a missing -wdir accepted"
expect_in err "cannot enter working directory"
# --bind-to and --report-bindings reach the ranks as EMPI_BIND_TO / EMPI_REPORT_BINDINGS
# (the binding itself is tested by mpi_misc/binding); Open MPI's modifiers are dropped
run -n 2 --bind-to core:overload-allowed "$PROG" env EMPI_BIND_TO "$MARK"
expect_status 0
expect_in out 'rank 1 EMPI_BIND_TO=core$'
run -n 1 --report-bindings "$PROG" env EMPI_REPORT_BINDINGS "$MARK"
expect_in out 'rank 0 EMPI_REPORT_BINDINGS=1$'
run -n 1 --bind-to socket "$PROG" env EMPI_BIND_TO "$MARK"
expect_in err 'bind-to socket is not supported'
expect_in out 'EMPI_BIND_TO=none$'
# a host file's comments are whole lines, however long (past 511 bytes their tail became hosts)
{ printf '# %0600d\n' 0; echo localhost; } >"$WORK/hostfile"
run -n 2 -f "$WORK/hostfile" "$PROG" exitcode 0 0 "$MARK"
expect_status 0
# an empty MPIEXEC_TIMEOUT is no timeout, as an empty MPIEXEC_UNIVERSE_SIZE is no size
MPIEXEC_TIMEOUT= run -n 1 "$PROG" exitcode 0 0 "$MARK"
expect_status 0
# why a program cannot be executed
printf '#!/nonexistent/interpreter\n' >"$WORK/badinterp"
chmod +x "$WORK/badinterp"
run -n 1 "$WORK/badinterp"
expect_status 127
expect_in err 'cannot execute .*badinterp: No such file or directory'
run --help
expect_status 0
expect_in out 'Usage: mpiexec'
run --version
expect_status 0
expect_in out 'EtherMPI'
run -n 2 -hosts elsewhere.example "$PROG" exitcode 0 0  # unresolvable: fails before starting anything
[ "$STATUS" -ne 0 ] || fail "unresolvable remote host accepted"
expect_in err "cannot resolve host 'elsewhere.example'"
run -n 2 --bogus-option "$PROG"
[ "$STATUS" -ne 0 ] || fail "unknown option accepted"
run -n 0 "$PROG"
[ "$STATUS" -ne 0 ] || fail "-n 0 accepted"
# Per-rank output files: MPICH's patterns (one file for both streams when they agree) and
# Open MPI's directory layout; nothing of the ranks' output reaches the terminal then
run -n 3 -outfile-pattern "$WORK/o.%r" -errfile-pattern "$WORK/o.%r" sh -c 'echo "out $EMPI_RANK"; echo "err $EMPI_RANK" >&2'
expect_status 0
for r in 0 1 2; do
    [ "$(cat "$WORK/o.$r")" = "$(printf 'out %s\nerr %s' $r $r)" ] || fail "-outfile-pattern: o.$r holds $(cat "$WORK/o.$r")"
done
[ ! -s "$WORK/out" ] && [ ! -s "$WORK/err" ] || fail "-outfile-pattern: output also on the terminal"
# stderr first into the shared file: neither stream truncates the other
run -n 1 -outfile-pattern "$WORK/s.%r" -errfile-pattern "$WORK/./s.%r" sh -c 'echo err >&2; sleep 0.2; echo out'
[ "$(cat "$WORK/s.0")" = "$(printf 'err\nout')" ] || fail "shared output file holds $(cat "$WORK/s.0")"
run -n 2 --output-filename "$WORK/od" sh -c 'echo "out $EMPI_RANK"; echo "err $EMPI_RANK" >&2'
expect_status 0
[ "$(cat "$WORK/od/1/rank.1/stdout")" = "out 1" ] && [ "$(cat "$WORK/od/1/rank.0/stderr")" = "err 0" ] ||
    fail "--output-filename: $(find "$WORK/od" -type f)"
expect_in out '^out 1$'   # Open MPI copies to the terminal too...
run -n 11 --output-filename "$WORK/od2:nocopy,nojobid" sh -c 'echo "out $EMPI_RANK"'
[ "$(cat "$WORK/od2/rank.03/stdout")" = "out 3" ] || fail "--output-filename:nojobid: $(ls "$WORK/od2")"
[ ! -s "$WORK/out" ] || fail "--output-filename:nocopy still copied"   # ...unless told not to
run -n 1 -outfile-pattern "" "$PROG" exitcode 0 0 "$MARK"
[ "$STATUS" -ne 0 ] || fail "an empty -outfile-pattern accepted"
: >"$WORK/afile"
run -n 2 -outfile-pattern "$WORK/o.%r" -errfile-pattern "$WORK/afile/x/%r" "$PROG" exitcode 0 0 "$MARK"
[ "$STATUS" -ne 0 ] || fail "an unwritable output file accepted"
expect_in err "cannot write rank 0's output"
run -n 2 -outfile-pattern "$WORK/none/x/%r" "$PROG" env EMPI_RANK "$MARK"   # a directory is created
expect_status 0
grep -q '^rank 1 EMPI_RANK=1$' "$WORK/none/x/1" || fail "-outfile-pattern into a new directory"
# -print-all-exitcodes names every rank's; --display-map every rank's host
run -n 3 -print-all-exitcodes --display-map "$PROG" exitcode 2 4 "$MARK"
expect_in err '^mpiexec: rank 0: exit code 0$'
expect_in err '^mpiexec: rank 2: exit code 4$'
expect_in out '^mpiexec: rank 1 on this host'
# MPICH's launcher choice and environment lists, Open MPI's -N and --rank-by
for spelling in "-launcher ssh" "-bootstrap fork" "-genvlist PATH,HOME" "-envlist PATH" "-N 2" "--rank-by core"; do
    run -n 2 $spelling "$PROG" exitcode 0 0 "$MARK"
    expect_status 0
done
run -n 2 -launcher fork -hosts localhost,elsewhere.example "$PROG" exitcode 0 0 "$MARK"
[ "$STATUS" -ne 0 ] || fail "-launcher fork with a remote host accepted"
run -n 2 -launcher slurm "$PROG" exitcode 0 0 "$MARK"
[ "$STATUS" -ne 0 ] || fail "-launcher slurm accepted"
expect_in err 'launcher slurm is not supported'
echo "PASS options"
