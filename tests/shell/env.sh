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

# The rank facts under the names MPICH's and Open MPI's launchers use, for wrapper scripts (the
# local ones as EMPI_LOCAL_*: this runs on one host and, from tests/net, across two).
run -n 3 -envall "$PROG" env OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE MPI_LOCALRANKID EMPI_LOCAL_RANK \
    MPI_LOCALNRANKS EMPI_LOCAL_SIZE OMPI_COMM_WORLD_LOCAL_RANK OMPI_COMM_WORLD_LOCAL_SIZE "$MARK"
expect_status 0
for r in 0 1 2; do
    expect_in out "^rank $r OMPI_COMM_WORLD_RANK=$r\$"
done
expect_count out '^rank [0-2] OMPI_COMM_WORLD_SIZE=3$' 3
same=$(awk -F'[ =]' '$1 == "rank" { v[$2, $3] = $4 }
    END { for (r = 0; r < 3; r++)
              if (v[r, "MPI_LOCALRANKID"] != "" && v[r, "MPI_LOCALRANKID"] == v[r, "EMPI_LOCAL_RANK"] &&
                  v[r, "OMPI_COMM_WORLD_LOCAL_RANK"] == v[r, "EMPI_LOCAL_RANK"] &&
                  v[r, "MPI_LOCALNRANKS"] == v[r, "EMPI_LOCAL_SIZE"] &&
                  v[r, "OMPI_COMM_WORLD_LOCAL_SIZE"] == v[r, "EMPI_LOCAL_SIZE"]) n++
          print n + 0 }' "$WORK/out")
[ "$same" = 3 ] || fail "local rank and size under the other launchers' names differ from EMPI_LOCAL_* ($same of 3 agree)"
echo "PASS env launcher names"
