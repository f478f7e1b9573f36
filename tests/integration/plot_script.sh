#!/bin/bash
# scripts/plot.py copes with what real runs produce: skipped mechanisms (no times), results whose
# every sample failed (n == 0), a run where nothing but skips happened, a single file (no history);
# bad input is one line and exit 2.
. "$(dirname "$0")/lib.sh"
TOP=${SBXBENCH_SRCDIR:-$HERE/../..}
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null \
    || { echo "SKIP: /usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)"; exit 77; }
PLOT="$TOP/scripts/plot.py"
MAKE="$HERE/make_results.py"
"$MAKE" "$TMP/mixed.json" --mech process=0.0006 --mech bwrap=0.0025 --mech docker=0.05:container \
    --mech podman=0.2:container --skip podman="no podman" --fail-all bwrap
"$MAKE" "$TMP/nothing.json" --mech process=0.0006 --mech docker=0.05:container \
    --skip process="cannot spawn" --skip docker="no daemon"
"$MAKE" "$TMP/failed.json" --mech process=0.0006 --fail-all process
for f in mixed nothing failed; do
    "$CHECK" "$TMP/$f.json" >/dev/null || die "$f.json invalid"
    "$PLOT" "$TMP/$f.json" -o "$TMP/plots-$f" >"$TMP/out" 2>"$TMP/err" || die "plot.py $f: $(cat "$TMP/err")"
    for fig in total overhead distribution; do
        for ext in png svg; do
            [ -s "$TMP/plots-$f/$fig.$ext" ] || die "$f: no $fig.$ext"
        done
    done
    [ -e "$TMP/plots-$f/history.png" ] && die "$f: a history from one file"
done
# A series: the history figure, with regressions marked by sbxbench compare.
for i in 1 2 3; do "$MAKE" "$TMP/night$i.json" --seed $i --date "2026-11-2${i}T01:00:00Z"; done
"$MAKE" "$TMP/night4.json" --seed 4 --shift bwrap=0.2 --date "2026-11-24T01:00:00Z"
"$PLOT" "$TMP"/night*.json "$TMP/mixed.json" -o "$TMP/series" --sbxbench "$SBXBENCH" >"$TMP/out" 2>"$TMP/err" \
    || die "plot.py series: $(cat "$TMP/err")"
[ -s "$TMP/series/history.png" ] && [ -s "$TMP/series/history.svg" ] || die "no history figure"
grep -q 'red circles' "$TMP/series/history.svg" || die "history: regressions not marked"
# Bad input.
echo '{"schema": "sbxbench-results", "schema_version": 9, "results": [1]}' >"$TMP/v9.json"
echo 'nope' >"$TMP/nope.json"
for bad in v9 nope missing; do
    expect_exit 2 "$PLOT" "$TMP/$bad.json" -o "$TMP/never"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^plot.py: $TMP/$bad.json: " "$TMP/err" || die "$bad: $(cat "$TMP/err")"
done
echo ok
