# Ranks started by another launcher that serves PMI-2 (srun --mpi=pmi2 on Slurm; here MPICH's
# Hydra mpiexec, from PyPI) bootstrap through it: puts, fences and gets of 64 KiB values in two
# rounds of overwrites across 2, 4 and 8 ranks, then MPI programs on top. Hydra's kvs-fence does
# not wait for the other ranks, and a faster rank may overwrite a value a slower one still reads:
# both are handled (bootstrap_pmi.c). Skipped without the MPICH package.
#   bash pmi_hydra.sh MPIEXEC BOOT_TEST MPICH_PREFIX BUILD_DIR
source "$(dirname "$0")/common.sh"
HYDRA=$1/bin/mpiexec
BUILD=$2
[ -x "$HYDRA" ] || { echo "SKIP: no MPICH at $1"; exit 77; }
for np in 2 4 8; do
    bash "$(dirname "$0")/kv.sh" "$HYDRA" "$PROG" "$np" || fail "kv over PMI-2 at $np ranks"
done
for prog in mpi/coll_smoke mpi/pt2pt_order mpi_rma/rma_ops; do
    timeout 120 "$HYDRA" -n 4 "$BUILD/tests/$prog" >"$WORK/out" 2>"$WORK/err" || fail "$prog under Hydra"
    expect_count out '^PASS' 1
done
echo "PASS pmi_hydra"
