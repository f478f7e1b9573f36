#!/bin/bash
# Output formats: JSON on stdout is the same document as the file; Markdown is a table; the table
# never carries escape codes when stdout is not a terminal; list works in both forms.
. "$(dirname "$0")/lib.sh"
"$SBXBENCH" run -m process -n 3 --warmup 0 --format=json -o "$TMP/r.json" >"$TMP/stdout" 2>"$TMP/err" \
    || die "json run failed"
cmp -s "$TMP/stdout" <(cat "$TMP/r.json"; echo) || die "stdout JSON differs from the file"
"$CHECK" "$TMP/r.json" || exit 1
"$SBXBENCH" run -m process -n 3 --warmup 0 --format=markdown >"$TMP/md" || die "markdown run failed"
grep -q '^| mechanism | workload | median' "$TMP/md" || die "no markdown header"
grep -q '^| process | true | ' "$TMP/md" || die "no markdown row"
"$SBXBENCH" run -m process -n 3 --warmup 0 >"$TMP/table" || die "table run failed"
grep -q $'\033' "$TMP/table" && die "escape codes in a non-terminal table"
"$SBXBENCH" list >"$TMP/list" || die "list failed"
grep -q '^  process ' "$TMP/list" || die "list lacks process"
"$SBXBENCH" list --json | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["mechanisms"] and d["workloads"]' \
    || die "list --json"
# min-time: each mechanism runs until it has taken the time, at least 3 runs.
"$SBXBENCH" run -m process --min-time 0.05 --warmup 0 --format=json >"$TMP/mt" || die "min-time run"
/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["runs"] >= 3 and sum(r["times"]) >= 0.05, r["runs"]' "$TMP/mt" \
    || die "min-time not honoured"
# grouped order runs too
"$SBXBENCH" run -m process,sh -n 2 --warmup 0 --order grouped --format=json >/dev/null || die "grouped"
echo ok
