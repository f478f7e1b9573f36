#!/bin/sh
# The harness's render workload end to end: each sample runs sbx-render, and the digest recorded
# in the results is the SHA-256 of the image sbx-render draws. Usage: workload.sh SBXBENCH SBX_RENDER
set -u
sbxbench=$1
render=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$sbxbench" run --mechanism=process --workload=render --render-size=64 --render-threads=2 \
    --runs=3 --warmup=0 --no-progress --format=json -o "$tmp/results.json" >/dev/null ||
    { echo "FAIL: sbxbench run exited $?"; exit 1; }
"$render" --size 64 -o "$tmp/image.pgm" || { echo "FAIL: sbx-render"; exit 1; }
/usr/bin/python3 - "$tmp/results.json" "$tmp/image.pgm" <<'PY'
import hashlib, json, sys
results = json.load(open(sys.argv[1]))["results"]
want = hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
rows = [r for r in results if r.get("mechanism") == "process"]
assert len(rows) == 1, rows
r = rows[0]
assert r["digest"] == want, (r["digest"], want)
assert r["params"]["size"] == 64 and r["params"]["threads"] == 2, r["params"]
assert not r.get("failures"), r["failures"]
print("ok: digest", want)
PY
