#!/bin/bash
# compare's bad input: each kind of bad file gives exit 2 and one line naming the file and the
# problem; bad usage likewise; nothing is printed on stdout.
. "$(dirname "$0")/lib.sh"
MAKE="$HERE/make_results.py"
"$MAKE" "$TMP/good.json" --n 20 || die "make_results failed"
"$CHECK" "$TMP/good.json" >/dev/null || die "the synthetic file is not schema-valid"

# check_bad WANT FILE-OR-DIR: compare against the good file on either side.
check_bad() {
    local want=$1 bad=$2
    for order in base new; do
        if [ $order = base ]; then set -- "$bad" "$TMP/good.json"; else set -- "$TMP/good.json" "$bad"; fi
        expect_exit 2 "$SBXBENCH" compare "$@"
        [ "$(wc -l <"$TMP/err")" -eq 1 ] || die "$bad ($order): expected one line, got: $(cat "$TMP/err")"
        grep -qF "sbxbench: compare: $bad: $want" "$TMP/err" \
            || die "$bad ($order): expected 'sbxbench: compare: $bad: $want', got: $(cat "$TMP/err")"
        [ ! -s "$TMP/out" ] || die "$bad ($order): printed on stdout: $(head -3 "$TMP/out")"
    done
}

edit() { # edit OUT PYTHON-STATEMENT (on d, the good document)
    /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2; json.dump(d, open(sys.argv[2],'w'))" \
        "$TMP/good.json" "$1" || die "edit $1"
}

head -c 700 "$TMP/good.json" >"$TMP/truncated.json"
check_bad "not valid JSON: it ends too early, truncated?" "$TMP/truncated.json"
echo "this is not JSON" >"$TMP/prose.json"
check_bad "not valid JSON: " "$TMP/prose.json"
: >"$TMP/empty-file.json"
check_bad "empty file" "$TMP/empty-file.json"
edit "$TMP/v2.json" 'd["schema_version"] = 2'
check_bad "schema_version 2 is not supported: this sbxbench reads version 1" "$TMP/v2.json"
edit "$TMP/no-results.json" 'd["results"] = []'
check_bad "results: the array is empty" "$TMP/no-results.json"
edit "$TMP/string-time.json" 'd["results"][1]["times"][3] = "fast"'
check_bad "results[1].times[3]: a number >= 0 expected, got a string" "$TMP/string-time.json"
edit "$TMP/string-median.json" 'd["results"][0]["median"] = "0.5"'
check_bad "results[0].median: a number >= 0 or null expected, got a string" "$TMP/string-median.json"
edit "$TMP/hyperfine.json" 'd = {"results": d["results"]}'
check_bad 'not an sbxbench results file: no "schema" key' "$TMP/hyperfine.json"
check_bad "cannot open: No such file or directory" "$TMP/missing.json"
mkdir "$TMP/empty-dir"
expect_exit 2 "$SBXBENCH" compare "$TMP/empty-dir" "$TMP/good.json"
grep -qF "sbxbench: compare: $TMP/empty-dir: no complete results files" "$TMP/err" || die "empty dir: $(cat "$TMP/err")"
# A bad file inside a history directory is named.
mkdir "$TMP/hist" && cp "$TMP/good.json" "$TMP/hist/a.json" && cp "$TMP/v2.json" "$TMP/hist/b.json"
expect_exit 2 "$SBXBENCH" compare "$TMP/hist" "$TMP/good.json"
grep -qF "sbxbench: compare: $TMP/hist/b.json: schema_version 2" "$TMP/err" || die "history: $(cat "$TMP/err")"
# Both files bad: one line for each.
expect_exit 2 "$SBXBENCH" compare "$TMP/prose.json" "$TMP/v2.json"
[ "$(wc -l <"$TMP/err")" -eq 2 ] || die "two bad files: $(cat "$TMP/err")"

# Usage.
for args in "" "$TMP/good.json" "--threshold=abc $TMP/good.json $TMP/good.json" \
    "--format=yaml $TMP/good.json $TMP/good.json" "--by=magic $TMP/good.json $TMP/good.json" \
    "--last=0 $TMP/hist $TMP/good.json" "--bogus $TMP/good.json $TMP/good.json"; do
    # shellcheck disable=SC2086
    expect_exit 2 "$SBXBENCH" compare $args
    [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^sbxbench: compare: ' "$TMP/err" \
        || die "usage '$args': $(cat "$TMP/err")"
done
expect_exit 0 "$SBXBENCH" compare --help
grep -q -- '--threshold' "$TMP/out" || die "compare --help lacks --threshold"
echo ok
