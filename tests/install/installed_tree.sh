#!/bin/bash
# The installed tree as users meet it: `cmake --install` into a fresh prefix, then the layout the
# README promises, the wrappers' -show/--showme answers, pkg-config, and a CMake project using
# find_package(MPI) built with that prefix's mpicc and run with its mpiexec.
#   usage: installed_tree.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)   # the registries empi-info must list
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/mpicc bin/mpicxx bin/mpic++ bin/mpiexec bin/mpirun bin/empi-info include/mpi.h \
         lib/libmpi_abi.so.1 lib/libmpi_abi.so lib/libmpi.so lib/pkgconfig/mpi.pc \
         share/ethermpi/ethermpi-default.tuning; do
    [ -e "$prefix/$f" ] || fail "installed tree lacks $f"
done
soname=$(objdump -p "$prefix/lib/libmpi_abi.so.1" | awk '/SONAME/ {print $2}')
[ "$soname" = libmpi_abi.so.1 ] || fail "SONAME is '$soname'"
[ "$(readlink "$prefix/lib/libmpi.so")" = libmpi_abi.so.1 ] || fail "libmpi.so does not point at libmpi_abi.so.1"

show=$("$prefix/bin/mpicc" -show)
case $show in *"-I$prefix/include"*"-lmpi_abi"*) ;; *) fail "mpicc -show: $show" ;; esac
[ "$("$prefix/bin/mpicc" --showme:compile)" = "-I$prefix/include" ] || fail "--showme:compile: $("$prefix/bin/mpicc" --showme:compile)"
case $("$prefix/bin/mpicc" --showme:link) in *"-L$prefix/lib"*"-lmpi_abi"*) ;; *) fail "--showme:link" ;; esac
# -show anywhere (build systems append it), arguments kept in order, spaces too
show=$("$prefix/bin/mpicc" -c 'a b.c' -o x.o -show)
[ "$show" = "cc -I$prefix/include -c a b.c -o x.o" ] || fail "mpicc ... -show: $show"
[ "$("$prefix/bin/mpicc" -c x.c -compile_info)" = "-I$prefix/include" ] || fail "-compile_info last"
if command -v pkg-config >/dev/null; then
    # Build with nothing but pkg-config's flags and run the result.
    pcflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs mpi)
    cc "$src/hello.c" $pcflags -o "$work/hello_pc" || fail "cannot build with pkg-config mpi flags: $pcflags"
    "$prefix/bin/mpiexec" -n 2 "$work/hello_pc" | grep -q '^PASS: 2 ranks' || fail "program built with pkg-config flags"
fi
info=$("$prefix/bin/empi-info") || fail "empi-info failed"
grep -q EMPI_EAGER_LIMIT <<<"$info" || fail "empi-info does not list the tunables"
# every tunable of the registry, as many as the header says, "(set)" on exactly the one given
names=$(sed -n 's/^EMPI_TUNABLE(\([a-z0-9_]*\),.*/\1/p' "$repo/src/core/tunables.def" | tr a-z A-Z)
[ "$(wc -w <<<"$names")" -gt 50 ] || fail "cannot read the tunables of $repo/src/core/tunables.def"
for name in $names; do
    grep -q "^  EMPI_$name " <<<"$info" || fail "empi-info does not list EMPI_$name"
done
# every collective algorithm of the registry, under its collective's heading
while read -r coll alg; do
    awk -v c="  $coll" -v a="$alg" '$0 == c {inside = 1; next} /^  [a-z]/ {inside = 0} inside && $1 == a {found = 1}
        END {exit !found}' <<<"$info" || fail "empi-info does not list the $coll algorithm $alg"
done < <(sed -n 's/^ *{EMPI_COLL_\([A-Z_]*\), "\([a-z0-9_]*\)".*/\1 \2/p' "$repo/src/coll/coll_select.c" | tr A-Z a-z)
[ "$(grep -c '^ *{EMPI_COLL_' "$repo/src/coll/coll_select.c")" -gt 20 ] || fail "cannot read the algorithm registry"
"$prefix/bin/empi-info" --no-such-option >/dev/null 2>&1 && fail "empi-info accepted an unknown option"
listed=$(sed -n '/^Tunables (/,/^$/p' <<<"$info" | grep -c '^  EMPI_')
grep -q "^Tunables ($listed;" <<<"$info" || fail "empi-info lists $listed tunables, its header says otherwise"
unset_all=$(env | sed -n 's/^\(EMPI_[A-Z0-9_]*\)=.*/-u \1/p')
set_lines=$(env $unset_all EMPI_UDP_GSO=0 "$prefix/bin/empi-info" | grep '(set)') || fail "no tunable shown as set"
[ "$(wc -l <<<"$set_lines")" = 1 ] && grep -q '^  EMPI_UDP_GSO ' <<<"$set_lines" ||
    fail "empi-info marks as set: $set_lines"

cmake -S "$src" -B "$work/user" -DMPI_C_COMPILER="$prefix/bin/mpicc" -DMPIEXEC_EXECUTABLE="$prefix/bin/mpiexec" \
    >"$work/user-configure.log" 2>&1 || { cat "$work/user-configure.log"; fail "find_package(MPI) project did not configure"; }
cmake --build "$work/user" >"$work/user-build.log" 2>&1 || { cat "$work/user-build.log"; fail "user project did not build"; }
out=$("$prefix/bin/mpiexec" -n 3 "$work/user/hello")
echo "$out"
[ "$out" = "PASS: 3 ranks, sum of ranks 3" ] || fail "user program output: $out"
rm -rf "$work"
echo "PASS installed tree"
