#!/bin/bash
# Every process-level mechanism runs `true` end to end; the JSON passes the schema and the checks,
# and each mechanism that `list` calls ready ran without a failure.
. "$(dirname "$0")/lib.sh"
mechs=process,process-path,sh,bwrap,bwrap-unshare,unshare
ready=""
for m in ${mechs//,/ }; do
    if available "$m"; then ready="$ready,$m"; else echo "note: $m not available here"; fi
done
"$SBXBENCH" run -m "$mechs" -n 5 --warmup 1 --path-dirs 20 --no-progress -o "$TMP/r.json" \
    >"$TMP/table" || die "run failed: $(cat "$TMP/table")"
"$CHECK" "$TMP/r.json" --expect-mechanisms "$mechs" --require-run "${ready#,}" || exit 1
grep -q "× process" "$TMP/table" || die "no table header"
for m in ${mechs//,/ }; do grep -q "^$m " "$TMP/table" || die "no table row for $m"; done

# The argv recorded is exactly what ran.
/usr/bin/python3 - "$TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
by = {r["mechanism"]: r for r in d["results"]}
def expect(m, prefix):
    r = by[m]
    if r["skipped"]:
        return
    if r["argv"][:len(prefix)] != prefix:
        sys.exit(f"{m}: argv {r['argv']} does not start with {prefix}")
expect("process", [by["process"]["argv"][0]])
assert by["process"]["argv"][0].startswith("/"), "process must run a resolved path"
expect("process-path", ["true"])
expect("sh", [by["sh"]["argv"][0], "-c"])
expect("bwrap", [by["bwrap"]["argv"][0], "--ro-bind", "/", "/"])
expect("bwrap-unshare", [by["bwrap-unshare"]["argv"][0], "--unshare-all", "--ro-bind", "/", "/"])
expect("unshare", [by["unshare"]["argv"][0], "--user", "--map-root-user", "--mount", "--net"])
if d["meta"]["config"]["path_dirs"] != 20:
    sys.exit("path_dirs not recorded")
PY

# process-path finds a program that lives outside PATH (sbxbench's own sbx-render in build/): it
# ran, not "could not start: No such file or directory".
"$SBXBENCH" run -m process-path -w render --render-size 32 -n 2 --warmup 0 --path-dirs 5 \
    --no-progress --format json -o "$TMP/pp.json" >/dev/null 2>&1 \
    || die "process-path x render failed to run"
"$CHECK" "$TMP/pp.json" --require-run process-path || exit 1
echo ok
