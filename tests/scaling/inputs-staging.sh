#!/bin/bash
# The inputs workload under every mechanism and staging method it has (docs/scaling.md): each
# combination that runs reads its inputs without a failure, each that a mechanism lacks is skipped
# saying so; a missing or altered input fails the samples that read it; isolating methods show
# nothing of the tree but the inputs (the reader checks that on every sample, and the check is
# shown to bite on a staging that shows everything).
#
# usage: inputs-staging.sh SBXBENCH
set -u
SBXBENCH=$1
READER=$(dirname "$SBXBENCH")/sbx-read-inputs
TMP=$(mktemp -d /tmp/sbxbench-inputs-it.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }

ready() {
    "$SBXBENCH" list --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if any(m["name"] == sys.argv[1] and m["available"] for m in d["mechanisms"]) else 1)' "$1"
}

# What each mechanism must be able to run, when it is ready here.
declare -A MUST=(
    [process]="root"
    [bwrap]="root per-file"
    [bwrap-unshare]="root per-file"
    [inproc]="root per-file bind-each open-tree symlinks overlay"
    [inproc-fs]="root per-file bind-each open-tree symlinks overlay"
    [runc]="root"
    [crun]="root"
    [docker]="root"
    [podman]="root"
)
ALL_METHODS=root,per-file,bind-each,open-tree,symlinks,overlay
mechs=""
for m in process bwrap bwrap-unshare inproc inproc-fs runc crun docker podman; do
    if "$SBXBENCH" list --json | grep -q "\"name\": \"$m\"" && ready "$m"; then
        mechs="$mechs,$m"
    else
        echo "note: $m not ready here"
    fi
done
mechs=${mechs#,}
CACHE=$TMP/cache
run() { # run OUT [ARGS...]: the inputs workload, --inputs 1,10, every method
    local out=$1; shift
    "$SBXBENCH" run -m "$mechs" -w inputs --inputs 1,10 --staging "$ALL_METHODS" -n 2 --warmup 0 \
        --timeout 60 --cache-dir "$CACHE" --no-progress --format json -o "$out" "$@" >/dev/null \
        2>"$TMP/err" || die "run failed: $(cat "$TMP/err")"
}

# 1. Every combination a mechanism has runs clean; the others are skipped, saying why.
run "$TMP/ok.json"
/usr/bin/python3 - "$TMP/ok.json" "$(declare -p MUST)" <<'PY' || exit 1
import json, os, re, sys
d = json.load(open(sys.argv[1]))
must = dict(re.findall(r'\[([\w-]+)\]="([^"]*)"', sys.argv[2]))
# Binding from a detached mount tree made in another namespace: refused before Linux 6.15.
kernel = tuple(int(x) for x in re.findall(r"\d+", os.uname().release)[:2])
old_kernel_ok = {"bind-each", "open-tree"} if kernel < (6, 15) else set()
ran = set()
for r in d["results"]:
    m, p = r["mechanism"], r["params"]
    assert p["inputs"] in (1, 10) and r["case"] == f"inputs/{p['inputs']}/{p['staging']}", r["case"]
    if r["skipped"]:
        if p["staging"] in old_kernel_ok and "detached" in r["reason"]:
            print(f"note: {m} {p['staging']}: {r['reason']}")
            continue
        assert f"no '{p['staging']}' staging" in r["reason"], (m, r["case"], r["reason"])
        assert p["staging"] not in must.get(m, "").split(), f"{m} skipped {r['case']}: {r['reason']}"
        continue
    if r["failed"] or r["n"] != 2:
        sys.exit(f"{m} × {r['case']}: {r['failed']} failed: {r['failures'][:1]}")
    assert r["digest"], (m, r["case"])
    ran.add((m, p["staging"]))
for m, methods in must.items():
    if any(r["mechanism"] == m for r in d["results"]):
        for s in methods.split():
            assert (m, s) in ran or s in old_kernel_ok, f"{m} did not run {s} staging"
# The same inputs read the same everywhere.
digests = {}
for r in d["results"]:
    if not r["skipped"]:
        digests.setdefault(r["params"]["inputs"], set()).add(r["digest"])
assert all(len(v) == 1 for v in digests.values()), digests
print("ran:", ", ".join(sorted(f"{m}/{s}" for m, s in ran)))
PY

ROOT=$CACHE/inputs-v1/tree
REL5=$(cd "$ROOT" && ls -d s*/*/f5.in s*/f5.in 2>/dev/null | head -1)
[ -n "$REL5" ] || die "input 5 not found in the generated tree"

# expect_failed OUT WHY [AT_PREPARE]: every case of 10 inputs failed every sample with WHY, or, for
# the mechanism/method pairs in AT_PREPARE (space-separated), was not even prepared, saying WHY;
# those of 1 input ran clean.
expect_failed() {
    /usr/bin/python3 - "$1" "$2" "${3:-}" <<'PY' || exit 1
import json, os, re, sys
d, why, at_prepare = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3].split()
kernel = tuple(int(x) for x in re.findall(r"\d+", os.uname().release)[:2])
for r in d["results"]:
    name = f"{r['mechanism']} × {r['case']}"
    pair = f"{r['mechanism']}/{r['params']['staging']}"
    if r["skipped"] and kernel < (6, 15) and "detached" in r["reason"]:
        continue  # as in step 1
    if r["skipped"]:
        if r["params"]["inputs"] == 10 and pair in at_prepare:
            assert why in r["reason"], f"{name}: skipped: {r['reason']}"
        else:
            assert "staging (docs/scaling.md)" in r["reason"], f"{name}: skipped: {r['reason']}"
        continue
    assert pair not in at_prepare or r["params"]["inputs"] == 1, f"{name} was prepared"
    if r["params"]["inputs"] == 10:
        assert r["failed"] == r["runs"] == 2 and r["n"] == 0, f"{name}: {r['failed']} of {r['runs']} failed"
        assert all(why in f["reason"] for f in r["failures"]), f"{name}: {r['failures'][0]['reason']}"
    else:
        assert r["failed"] == 0, f"{name}: {r['failures'][:1]}"
PY
}

# 2. A missing input fails the samples that read it, under every mechanism and method; inproc's
# per-file and overlay methods look at every input when they prepare, and stop there.
mv "$ROOT/$REL5" "$TMP/saved"
run "$TMP/missing.json"
expect_failed "$TMP/missing.json" "f5.in" \
    "inproc/per-file inproc/overlay inproc-fs/per-file inproc-fs/overlay"

# 3. So does an altered one (same size, one byte changed).
cp "$TMP/saved" "$ROOT/$REL5"
printf '\x01' | dd of="$ROOT/$REL5" bs=1 seek=0 conv=notrunc 2>/dev/null
cmp -s "$TMP/saved" "$ROOT/$REL5" && die "the input was not altered"
run "$TMP/altered.json"
expect_failed "$TMP/altered.json" "wrong content"
cp "$TMP/saved" "$ROOT/$REL5"

# 4. The isolation check bites: with nothing staged, the tree around the inputs is visible and the
# reader says so; per-file methods passed it in step 1 on every sample.
"$READER" --hidden "$ROOT" 1 >/dev/null 2>"$TMP/err" && die "reader --hidden passed on the whole tree"
grep -q "visible, but not an input" "$TMP/err" || die "unexpected complaint: $(cat "$TMP/err")"
"$READER" "$ROOT" 10 >/dev/null || die "the restored tree does not read"

# 5. Bad lists are usage errors.
for bad in "--inputs 0" "--inputs 1,x" "--inputs 50001" "--inputs 1,1" "--staging sideways" \
    "--staging root,root" "--staging ,"; do
    # shellcheck disable=SC2086
    "$SBXBENCH" run -m process -w inputs $bad --cache-dir "$CACHE" -n 1 >/dev/null 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] || die "'$bad' exited $rc, expected 2"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || die "'$bad': not one line: $(cat "$TMP/err")"
done
echo ok
