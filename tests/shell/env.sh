# -genv, -env and -x (with value, and exporting the current value) reach every rank, and the
# rank facts under the names of MPICH's and Open MPI's launchers.
source "$(dirname "$0")/common.sh"
export EMPI_TEST_FROM_SHELL=inherited
run -n 3 -genv EMPI_T1 "value one" -env EMPI_T2 two -x EMPI_T3=three \
    -x EMPI_TEST_FROM_SHELL "$PROG" env EMPI_T1 EMPI_T2 EMPI_T3 EMPI_TEST_FROM_SHELL "$MARK"
expect_status 0
expect_count out '^rank [0-2] EMPI_T1=value one$' 3
expect_count out '^rank [0-2] EMPI_T2=two$' 3
expect_count out '^rank [0-2] EMPI_T3=three$' 3
expect_count out '^rank [0-2] EMPI_TEST_FROM_SHELL=inherited$' 3
echo "PASS env"

# The rank facts under the names MPICH's and Open MPI's launchers use, for wrapper scripts.
run -n 3 -envall "$PROG" env OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE MPI_LOCALRANKID MPI_LOCALNRANKS "$MARK"
expect_status 0
for r in 0 1 2; do
    expect_in out "^rank $r OMPI_COMM_WORLD_RANK=$r\$"
    expect_in out "^rank $r MPI_LOCALRANKID=$r\$"
done
expect_count out '^rank [0-2] OMPI_COMM_WORLD_SIZE=3$' 3
expect_count out '^rank [0-2] MPI_LOCALNRANKS=3$' 3
echo "PASS env launcher names"
