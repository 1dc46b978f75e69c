# put/fence/get correctness: every rank checks every other rank's values (64 KiB
# values from ranks 0-7, binary data with zeros, two rounds of overwrites).
source "$(dirname "$0")/common.sh"
NP=$1
KEYS=${2:-4}
run -n "$NP" "$PROG" kv "$KEYS" "$MARK"
expect_status 0
expect_count out '^kv ok rank [0-9]+ of '"$NP"'$' "$NP"
[ ! -s "$WORK/err" ] || fail "unexpected stderr"
expect_clean
echo "PASS kv np=$NP keys=$KEYS (${ELAPSED_MS} ms)"
