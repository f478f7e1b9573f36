#!/bin/bash
# The GitHub workflows parse, run what they say (scripts/test; sbxbench run/compare and
# scripts/report.py on results/baselines), and the committed baselines load: a nightly that cannot
# read its own baseline would fail every night with exit 2.
. "$(dirname "$0")/lib.sh"
TOP=${SBXBENCH_SRCDIR:-$HERE/../..}
/usr/bin/python3 - "$TOP" <<'PY' || die "workflows"
import os, sys, yaml
top = sys.argv[1]
def steps(path):
    doc = yaml.safe_load(open(os.path.join(top, ".github/workflows", path)))
    return [s.get("run", "") for job in doc["jobs"].values() for s in job["steps"]]
ci = steps("ci.yml")
assert any("scripts/test" in r for r in ci), "ci.yml does not run scripts/test"
nightly = "\n".join(steps("nightly.yml"))
for needed in ("sbxbench run", "sbxbench compare", "results/baselines", "scripts/report.py"):
    assert needed in nightly, f"nightly.yml lacks {needed}"
for script in ("scripts/test", "scripts/deps", "scripts/build", "scripts/report.py"):
    assert os.access(os.path.join(top, script), os.X_OK), f"{script} is not executable"
PY
base="$TOP/results/baselines"
newest=$(ls -1 "$base"/*.json 2>/dev/null | sort | tail -1)
[ -n "$newest" ] || die "no baseline in results/baselines"
[ "$(ls -1 "$base"/*.json | wc -l)" -ge 3 ] || die "fewer than 3 baseline runs: no night-to-night spread"
for f in "$base"/*.json; do "$CHECK" "$f" >/dev/null || die "$f does not match the schema"; done
"$SBXBENCH" compare --format=json "$base" "$newest" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -le 1 ] || die "compare cannot read the baselines (exit $rc): $(cat "$TMP/err")"
echo ok
