#!/bin/bash
# scripts/plot.py's scaling figure: drawn from a run of the inputs workload (a line per mechanism
# and method, the fitted cost per input in the legend), from several runs together with --scaling,
# and refused, in one line, when no file has the inputs workload.
#
# usage: plot-scaling.sh SBXBENCH SRCDIR
set -u
SBXBENCH=$1
PLOT=$2/scripts/plot.py
TMP=$(mktemp -d /tmp/sbxbench-plot-scaling.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null \
    || { echo "SKIP: /usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)"; exit 77; }
mechs=process
"$SBXBENCH" list --json | grep -q '"name": "bwrap"' && mechs=process,bwrap
runs() { # runs OUT COUNTS
    "$SBXBENCH" run -m "$mechs" -w inputs --inputs "$2" --staging root,per-file -n 3 --warmup 0 \
        --cache-dir "$TMP/cache" --no-progress -o "$1" >/dev/null 2>"$TMP/err" \
        || die "run: $(cat "$TMP/err")"
}
runs "$TMP/a.json" 1,10,100
runs "$TMP/b.json" 1,200
"$SBXBENCH" run -m process -w true -n 2 --warmup 0 --no-progress -o "$TMP/true.json" >/dev/null 2>&1 \
    || die "run true"

# With the other figures, from the newest file.
"$PLOT" "$TMP/a.json" -o "$TMP/all" >/dev/null 2>"$TMP/err" || die "plot.py: $(cat "$TMP/err")"
for ext in png svg; do [ -s "$TMP/all/scaling.$ext" ] || die "no scaling.$ext"; done
grep -q "µs/input\|ms/input" "$TMP/all/scaling.svg" || die "no cost per input in the legend"
grep -q "process (no staging)" "$TMP/all/scaling.svg" || die "no baseline line"
[ "$(grep -c 'process (no staging)' "$TMP/all/scaling.svg")" -ge 1 ] || die "baseline drawn twice"
# Not for a run without the inputs workload.
"$PLOT" "$TMP/true.json" -o "$TMP/none" >/dev/null 2>&1 || die "plot.py on true"
[ -e "$TMP/none/scaling.png" ] && die "a scaling figure without inputs"
# --scaling: both runs on one figure, the largest count of the second included.
"$PLOT" --scaling "$TMP/a.json" "$TMP/b.json" -o "$TMP/both" >"$TMP/out" 2>"$TMP/err" \
    || die "plot.py --scaling: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/out")" -eq 2 ] && [ -s "$TMP/both/scaling.svg" ] || die "--scaling: $(cat "$TMP/out")"
grep -q "2 runs" "$TMP/both/scaling.svg" || die "--scaling: the title does not say two runs"
[ -e "$TMP/both/total.png" ] && die "--scaling drew the other figures"
"$PLOT" --scaling "$TMP/true.json" -o "$TMP/never" >/dev/null 2>"$TMP/err" && die "--scaling on true"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^plot.py: --scaling: " "$TMP/err" || die "$(cat "$TMP/err")"
echo ok
