#!/bin/bash
# `sbxbench run -w pipe,cc,FILE` under process, sh, bwrap and unshare: every sample succeeds, the
# results carry throughput and overhead, a user's description with redirections (append included)
# and a pipeline does what it says inside every mechanism, a corrupted transfer fails every sample,
# and a malformed description stops the run with exit 2 before anything is written.
# Usage: run-workloads.sh SBXBENCH
set -u
sbxbench=$1
py=/usr/bin/python3
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
mechanisms=process,sh,bwrap,unshare
runs=3
warmup=1

"$sbxbench" list --json >"$work/list.json" || fail "sbxbench list --json"

printf 'hello sandbox\n' >"$work/input.txt"
mkdir "$work/out"
cat >"$work/user.wl" <<WL
# A user's own workload: a pipeline with every kind of redirection.
summary cat < input | tr 2>> log | wc -c >> count
ro $work/input.txt
rw $work/out
run cat < $work/input.txt | tr a-z A-Z 2>> $work/out/err.log | wc -c >> $work/out/count.log
WL
cat >"$work/upper.wl" <<WL
summary tr < input, stdout checked
param case lower,upper
ro $work/input.txt
expect-stdout "HELLO SANDBOX"
rw $work/out
run tr a-z A-Z < $work/input.txt 2> $work/out/upper-err.log
WL
cat >"$work/corrupt.wl" <<'WL'
summary a transfer with one byte changed on the way
ro ${exe_dir}/sbx-pipe
run ${exe_dir}/sbx-pipe write 4096 65536 | sed s/a/b/ | ${exe_dir}/sbx-pipe read 4096 65536
WL

"$sbxbench" run -m "$mechanisms" -w "pipe,cc,$work/user.wl,$work/upper.wl,$work/corrupt.wl" \
    --pipe-sizes=4,65536 --pipe-bytes=65536 -n $runs --warmup $warmup --no-progress \
    -o "$work/results.json" >"$work/table.txt" 2>"$work/stderr.txt"
rc=$?
[ $rc = 0 ] || fail "sbxbench run exited $rc: $(cat "$work/stderr.txt")"
grep -q 'MB/s' "$work/table.txt" || fail "the table has no MB/s column"
grep -q 'overhead' "$work/table.txt" || fail "the table has no overhead column"

$py - "$work" "$mechanisms" $runs $warmup <<'PY' || failures=$((failures + 1))
import json, os, sys
work, mechs, runs, warmup = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), int(sys.argv[4])
doc = json.load(open(f"{work}/results.json"))
listed = {m["name"]: m for m in json.load(open(f"{work}/list.json"))["mechanisms"]}
names = {w["name"] for w in json.load(open(f"{work}/list.json"))["workloads"]}
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)
check({"true", "cc", "pipe"} <= names, f"list misses a built-in workload: {sorted(names)}")
results = doc["results"]
cases = {"pipe/4", "pipe/65536", "cc", "user", "upper/lower", "upper/upper", "corrupt"}
seen = {(r["mechanism"], r["case"]) for r in results}
for m in mechs:
    for c in cases:
        check((m, c) in seen, f"no result for {m} x {c}")
available = {m for m in mechs if listed[m]["available"]}
check("process" in available, "process must always be available")
for m in set(mechs) - available:
    print(f"note: {m} unavailable here ({listed[m]['reason']}); its results must be skipped")
base = {r["case"]: r for r in results if r["mechanism"] == "process"}
for r in results:
    where = f'{r["mechanism"]} x {r["case"]}'
    if r["mechanism"] not in available:
        check(r["skipped"], f"{where}: should be skipped, the mechanism is unavailable")
        continue
    check(not r["skipped"], f'{where}: skipped: {r["reason"]}')
    check(r["runs"] == runs, f'{where}: {r["runs"]} runs, not {runs}')
    if r["case"] == "corrupt":
        check(r["failed"] == runs, f"{where}: a corrupted transfer must fail every sample")
        check(all("corrupted" in f["reason"] for f in r["failures"]),
              f'{where}: failure reasons: {[f["reason"] for f in r["failures"]]}')
        continue
    check(r["failed"] == 0, f'{where}: {r["failed"]} failed: {r["failures"][:1]}')
    if r["median"] is None or base[r["case"]]["median"] is None:
        continue
    if r["case"].startswith("pipe/"):
        size = int(r["case"].split("/")[1])
        check(r["params"] == {"buffer": size, "bytes": 65536}, f'{where}: params {r["params"]}')
        t = r["throughput_MBps"]
        check(t is not None and abs(t - 65536 / r["median"] / 1e6) < 1e-6 * t,
              f"{where}: throughput {t} is not bytes / median")
        check(r["digest"] is not None, f"{where}: the reader's output was not checked")
    else:
        check(r["throughput_MBps"] is None, f"{where}: throughput without a volume")
    b = base[r["case"]]
    want = r["median"] - b["median"]
    # JSON keeps ten significant digits of each number.
    tolerance = 1e-9 * (r["median"] + b["median"])
    check(abs(r["overhead_s"] - want) < tolerance,
          f'{where}: overhead_s {r["overhead_s"]} != {want}')
    check(abs(r["overhead_fraction"] - want / r["median"]) < 1e-7,
          f'{where}: overhead_fraction {r["overhead_fraction"]}')
    lo, hi = r["overhead_fraction_ci"]
    check(lo <= hi, f"{where}: overhead interval [{lo}, {hi}]")
    if r["mechanism"] == "process":
        check(r["overhead_s"] == 0, f"{where}: the baseline's own overhead is 0")
    if r["mechanism"] == "bwrap" and r["case"] == "cc":
        tmp = [a for a in r["argv"] if "/sbxbench-cc-" in a]
        check(tmp, f"{where}: cc writes to no scratch directory: {r['argv']}")
        check(all(not os.path.exists(a.rsplit("/cc-unit.o", 1)[0]) for a in tmp),
              f"{where}: the scratch directory {tmp[0]} is left behind")
# The user's pipeline appended one line per sample (warm-up included) in every mechanism.
lines = open(f"{work}/out/count.log").read().split()
want = len([m for m in mechs if m in available]) * (runs + warmup)
check(len(lines) == want, f"count.log has {len(lines)} lines, not {want}")
check(set(lines) == {"14"}, f"count.log: {set(lines)}")
check(open(f"{work}/out/err.log").read() == "", "err.log should be empty")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY

# A malformed description: exit 2, the file and line named, no results file.
printf 'summary broken\nrun true |\n' >"$work/broken.wl"
"$sbxbench" run -m process -w "true,$work/broken.wl" -n 1 -o "$work/none.json" 2>"$work/err.txt"
rc=$?
[ $rc = 2 ] || fail "a malformed description: exit $rc, not 2"
grep -q "broken.wl:2: run: a '|' has no command after it" "$work/err.txt" ||
    fail "the error does not name file and line: $(cat "$work/err.txt")"
[ ! -e "$work/none.json" ] || fail "a results file was written for a run that never started"
"$sbxbench" run -w pipe --pipe-sizes=4,0 -n 1 2>"$work/err.txt"
rc=$?
[ $rc = 2 ] || fail "--pipe-sizes=4,0: exit $rc, not 2"
grep -q "param buffer: 0 is outside 1..16777216 (from --pipe-sizes)" "$work/err.txt" ||
    fail "--pipe-sizes=4,0: $(cat "$work/err.txt")"

# Workload lists: duplicates and empty items are usage errors; 'all' holds the built-ins.
"$sbxbench" run -m process -w pipe,pipe -n 1 2>"$work/err.txt"
[ $? = 2 ] && grep -q "'pipe' is listed twice" "$work/err.txt" || fail "-w pipe,pipe: $(cat "$work/err.txt")"
"$sbxbench" run -m process -w true, -n 1 2>"$work/err.txt"
[ $? = 2 ] && grep -q "empty name" "$work/err.txt" || fail "-w true,: $(cat "$work/err.txt")"
"$sbxbench" run -m process -w all --pipe-sizes=65536 --pipe-bytes=65536 -n 1 --warmup 0 \
    --format json >"$work/all.json" 2>"$work/err.txt" || fail "-w all: $(cat "$work/err.txt")"
$py -c '
import json, sys
cases = {r["case"] for r in json.load(open(sys.argv[1]))["results"]}
sys.exit(0 if {"true", "cc", "pipe/65536"} <= cases else f"-w all ran {sorted(cases)}")
' "$work/all.json" || failures=$((failures + 1))

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all workload run checks passed"
