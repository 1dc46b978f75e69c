# Output of many ranks is forwarded line by line: no line is ever torn or mixed,
# nothing is lost, each rank's lines keep their order, partial tails are flushed (as they
# are, without a newline added, unless the output is tagged).
source "$(dirname "$0")/common.sh"
NP=4 N=2000 LEN=500
TAG=${1:-}
run -n $NP $TAG "$PROG" lines $N $LEN "$MARK"
expect_status 0
awk -v np=$NP -v n=$N -v len=$LEN -v tagged="$TAG" '
    BEGIN { bad = 0 }
    {
        line = $0
        if (tagged != "") {
            if (!match(line, /^\[[0-9]+\] /)) { print "untagged: " substr(line,1,80); bad++; next }
            tagrank = substr(line, 2, RLENGTH - 3) + 0
            line = substr(line, RLENGTH + 1)
        }
        # the last partial line of a rank is passed on at its end of file as it is, so the next line of
        # another rank (jobid included: rank 0 may be forwarded later) can follow on the same line
        tails += gsub(/tail-without-newline-[0-9]+/, "", line)
        if (line ~ /^jobid /) next
        if (line == "") next
        if (!match(line, /^<[0-9]+:[0-9]+:[a-z]+>$/)) { print "torn: " substr(line,1,80); bad++; next }
        split(substr(line, 2), f, ":")
        r = f[1] + 0; i = f[2] + 0
        if (tagged != "" && tagrank != r) { print "wrong tag: " substr($0,1,40); bad++ }
        if (length(f[3]) != len + 1) { print "bad length on " r ":" i; bad++ }
        if (i != next_i[r]) { print "order " r ": got " i " want " next_i[r]; bad++ }
        next_i[r] = i + 1; count++
    }
    END {
        if (count != np * n) { print "lines: " count " want " np * n; bad++ }
        if (tails != np) { print "tails: " tails " want " np; bad++ }
        exit bad > 0
    }' "$WORK/out" || fail "stdout corrupted"
expect_count err '^(\[[0-9]+\] )?<err [0-9]+:[0-9]+>$' $(( NP * ((N + 2) / 3) ))
if [ -z "$TAG" ]; then
    run -n 1 "$PROG" lines 1 10 "$MARK"
    expect_status 0
    [ "$(tail -c 23 "$WORK/out" | od -An -c | tr -d ' \n')" = "\ntail-without-newline-0" ] ||
        fail "the last partial line did not come out as written: $(tail -c 30 "$WORK/out" | od -An -c)"
fi
echo "PASS lines $TAG"
