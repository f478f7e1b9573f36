#!/bin/bash
# scripts/report.py end to end: from a history of synthetic nights (skipped and failed-only results
# among them) and a regressed run, one self-contained page that headless Chromium loads with no
# console message, every plot decoded and drawn non-blank; a screenshot is kept in the build
# directory. Skips (77) only when chromium or matplotlib is missing, saying which.
. "$(dirname "$0")/lib.sh"
TOP=${SBXBENCH_SRCDIR:-$HERE/../..}
SHOT_DIR=${SBXBENCH_BUILDDIR:-$TMP}
CHROMIUM=""
for c in /usr/bin/chromium /usr/bin/chromium-browser "$(command -v chromium 2>/dev/null)"; do
    [ -n "$c" ] && [ -x "$c" ] && { CHROMIUM=$c; break; }
done
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium not found (Debian package chromium, in scripts/debian-packages.txt)"; exit 77; }
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null \
    || { echo "SKIP: /usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)"; exit 77; }

MAKE="$HERE/make_results.py"
mechs=(--mech process=0.0006:process --mech sh=0.0013:process --mech bwrap=0.0025:namespace
       --mech docker=0.05:container --mech crun=0.012:container --mech unshare=0.0024:namespace)
mkdir "$TMP/nights"
for i in 1 2 3; do
    "$MAKE" "$TMP/nights/n$i.json" --seed $i "${mechs[@]}" --skip crun="no OCI bundle" --date "2026-11-2${i}T01:00:00Z"
done
"$MAKE" "$TMP/tonight.json" --seed 9 "${mechs[@]}" --skip crun="no OCI bundle" --fail-all unshare \
    --shift bwrap=0.15 --date "2026-11-24T01:00:00Z" --lognormal
"$TOP/scripts/report.py" "$TMP"/nights/*.json "$TMP/tonight.json" -o "$TMP/report" \
    --baseline "$TMP/nights" --sbxbench "$SBXBENCH" >"$TMP/out" 2>"$TMP/err" || die "report.py failed: $(cat "$TMP/err")"
for f in index.html summary.md compare.json plots/total.png plots/total.svg plots/overhead.png \
    plots/overhead.svg plots/distribution.png plots/distribution.svg plots/history.png plots/history.svg; do
    [ -s "$TMP/report/$f" ] || die "report.py did not write $f"
done
grep -q '1 regression' "$TMP/report/index.html" || die "the page does not say there is a regression"
grep -q '^### Against the baseline: sbxbench compare: 1 regression' "$TMP/report/summary.md" \
    || die "summary.md: $(head -8 "$TMP/report/summary.md")"
grep -q '| \*\*REGRESSED\*\* | bwrap |' "$TMP/report/summary.md" || die "summary.md lacks the bwrap row"
# Self-contained: nothing fetched from anywhere, and the page forbids it besides.
grep -E -q '(src|href)="(https?:)?//' "$TMP/report/index.html" && die "the page refers to the network"
grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$TMP/report/index.html" || die "no CSP"

chrome() { # chrome OUTFILE ARGS...: headless Chromium on the page, log in $TMP/chrome.log
    local out=$1; shift
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$TMP/profile-$RANDOM" --enable-logging=stderr --v=0 \
        --virtual-time-budget=5000 "$@" "file://$TMP/report/index.html" >"$out" 2>"$TMP/chrome.log"
}
chrome "$TMP/dom.html" --dump-dom || die "chromium --dump-dom failed: $(tail -5 "$TMP/chrome.log")"
body=$(grep -o '<body[^>]*>' "$TMP/dom.html")
plots=$(sed -n 's/.*data-plots="\([0-9]*\)".*/\1/p' <<<"$body")
drawn=$(sed -n 's/.*data-plots-rendered="\([0-9]*\)".*/\1/p' <<<"$body")
[ "$plots" = 4 ] || die "expected 4 plots on the page, the check script saw '${plots}' (body: $body)"
[ "$drawn" = "$plots" ] || die "only $drawn of $plots plots rendered non-blank"
grep -q 'class="plot-error"' "$TMP/dom.html" && die "the page flagged a plot that did not render"
# Console: the page logs nothing; any message (an exception, a CSP violation) is an error.
if grep -E ':CONSOLE[(:]' "$TMP/chrome.log"; then die "console messages while loading the page"; fi

shot="$SHOT_DIR/report-screenshot.png"
rm -f "$shot"
chrome "$TMP/shot.out" --screenshot="$shot" --window-size=1280,2600 --hide-scrollbars \
    || die "chromium --screenshot failed: $(tail -5 "$TMP/chrome.log")"
[ "$(stat -c %s "$shot" 2>/dev/null || echo 0)" -gt 20000 ] || die "screenshot missing or blank: $shot"
echo "ok (screenshot: $shot)"
