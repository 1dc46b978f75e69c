# mpiexec's stdout a non-blocking pipe (event-loop parents such as CI runners share theirs so)
# whose reader starts late: every line still arrives. Writes that met EAGAIN were dropped
# silently (60 of 8000 lines came through).
source "$(dirname "$0")/common.sh"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
NP=4 N=2000 LEN=200
python3 - "$MPIEXEC" "$PROG" "$MARK" $NP $N $LEN >"$WORK/out" 2>"$WORK/err" <<'PY'
import fcntl, os, re, subprocess, sys, time
mpiexec, prog, mark, np_, n, length = sys.argv[1:7]
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
p = subprocess.Popen([mpiexec, "-n", np_, prog, "lines", n, length, mark], stdout=w, stdin=subprocess.DEVNULL)
os.close(w)
time.sleep(1.0)
data = b""
while True:
    chunk = os.read(r, 1 << 20)
    if not chunk:
        break
    data += chunk
rc = p.wait()
# each rank ends with a tail without a newline, which the next rank's line may follow
data = re.sub(rb"tail-without-newline-[0-9]+", b"", data)
lines = sum(1 for l in data.split(b"\n") if re.fullmatch(rb"<[0-9]+:[0-9]+:[a-z]+>", l))
print("status", rc, "lines", lines)
PY
expect_in out "^status 0 lines $((NP * N))$"
echo "PASS nonblock"
