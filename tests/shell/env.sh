# -genv, -env and -x (with value, and exporting the current value) reach every rank.
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
