# A client presenting a wrong (or empty) cookie is refused; the real one gets in.
source "$(dirname "$0")/common.sh"
run -n 2 "$PROG" cookie "$MARK"
expect_status 0
expect_count out '^cookie refused rank [01]$' 2
expect_clean
echo "PASS cookie"
