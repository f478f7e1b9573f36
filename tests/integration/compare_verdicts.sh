#!/bin/bash
# compare on synthetic runs of known shift: a 10% regression fails the gate (exit 1) and is named;
# an unchanged run passes; improvements, pairs on one side, skipped and failed results, another
# host, a history directory with a wild night, and every output format.
. "$(dirname "$0")/lib.sh"
MAKE="$HERE/make_results.py"
mechs=(--mech process=0.0006 --mech sh=0.0013 --mech bwrap=0.0025)
"$MAKE" "$TMP/base.json" --seed 1 "${mechs[@]}"
"$MAKE" "$TMP/same.json" --seed 2 "${mechs[@]}"
"$MAKE" "$TMP/slower.json" --seed 3 "${mechs[@]}" --shift bwrap=0.10
"$MAKE" "$TMP/faster.json" --seed 4 "${mechs[@]}" --shift bwrap=-0.10
for f in base same slower faster; do "$CHECK" "$TMP/$f.json" >/dev/null || die "$f.json invalid"; done

verdict() { # verdict MECHANISM: its status in $TMP/out.json
    /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(next(p["status"] for p in d["pairs"] if p["mechanism"] == sys.argv[2]))' "$TMP/out.json" "$1"
}
json_compare() { # json_compare WANT-EXIT ARGS...: compare --format json into $TMP/out.json
    local want=$1; shift
    expect_exit "$want" "$SBXBENCH" compare --format=json "$@"
    cp "$TMP/out" "$TMP/out.json"
}

json_compare 0 "$TMP/base.json" "$TMP/same.json"
for m in process sh bwrap; do [ "$(verdict $m)" = unchanged ] || die "same: $m is $(verdict $m)"; done
[ ! -s "$TMP/err" ] || die "same host: unexpected warnings: $(cat "$TMP/err")"

json_compare 1 "$TMP/base.json" "$TMP/slower.json"
[ "$(verdict bwrap)" = regressed ] || die "slower: bwrap is $(verdict bwrap)"
[ "$(verdict sh)" = unchanged ] || die "slower: sh is $(verdict sh)"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=[p for p in d["pairs"] if p["mechanism"]=="bwrap"][0]
a=p["absolute"]; assert 1.07 < a["ratio"] < 1.13 and 1 < a["ratio_ci"][0] <= a["ratio"] <= a["ratio_ci"][1], a
assert d["regression"] is True and d["summary"]["regressed"] == 1, d["summary"]
assert 1.05 < p["overhead"]["ratio"] < 1.15, p["overhead"]' "$TMP/out.json" || die "slower: numbers"

# The table names it, and so does the Markdown; a higher threshold lets it pass.
expect_exit 1 "$SBXBENCH" compare "$TMP/base.json" "$TMP/slower.json"
grep -E -q '^bwrap +true .*REGRESSED' "$TMP/out" || die "table: $(cat "$TMP/out")"
grep -q '^1 regressed, 0 improved, 2 unchanged' "$TMP/out" || die "table summary: $(cat "$TMP/out")"
grep -q $'\033' "$TMP/out" && die "escape codes in a non-terminal table"
expect_exit 1 "$SBXBENCH" compare --format=markdown "$TMP/base.json" "$TMP/slower.json"
grep -q '^### sbxbench compare: 1 regression' "$TMP/out" || die "markdown heading: $(head -3 "$TMP/out")"
grep -q '^| \*\*REGRESSED\*\* | bwrap | true |' "$TMP/out" || die "markdown row: $(cat "$TMP/out")"
expect_exit 0 "$SBXBENCH" compare --threshold=20 "$TMP/base.json" "$TMP/slower.json"
expect_exit 0 "$SBXBENCH" compare --threshold=20% "$TMP/base.json" "$TMP/slower.json"

json_compare 0 "$TMP/base.json" "$TMP/faster.json"
[ "$(verdict bwrap)" = improved ] || die "faster: bwrap is $(verdict bwrap)"

# Pairs on one side only, a skipped mechanism and one whose every sample failed.
"$MAKE" "$TMP/changed.json" --seed 5 --mech process=0.0006 --mech bwrap=0.0025 --mech docker=0.05:container \
    --mech unshare=0.0024 --mech crun=0.01:container --skip docker="no daemon" --fail-all unshare
"$MAKE" "$TMP/base2.json" --seed 6 --mech process=0.0006 --mech sh=0.0013 --mech bwrap=0.0025 \
    --mech docker=0.05:container --mech unshare=0.0024
"$CHECK" "$TMP/changed.json" >/dev/null || die "changed.json invalid"
json_compare 0 "$TMP/base2.json" "$TMP/changed.json"
[ "$(verdict sh)" = only-in-base ] || die "sh: $(verdict sh)"
[ "$(verdict crun)" = only-in-new ] || die "crun: $(verdict crun)"
[ "$(verdict docker)" = no-data ] || die "docker: $(verdict docker)"
[ "$(verdict unshare)" = no-data ] || die "unshare: $(verdict unshare)"
grep -q '"why": "skipped in new: no daemon"' "$TMP/out.json" || die "skip reason not given"
grep -q '"why": "every sample failed in new"' "$TMP/out.json" || die "failure not given"

# Another machine, 30% slower across the board: warned, judged by overhead, so no regression;
# the same with bwrap's own overhead up 10% is one.
"$MAKE" "$TMP/other.json" --seed 7 "${mechs[@]}" --host ci-runner-7 --cpu "Other CPU" --kernel 6.12 \
    --shift process=0.3 --shift sh=0.3 --shift bwrap=0.3
json_compare 0 "$TMP/base.json" "$TMP/other.json"
grep -q 'warning: compare: host differs: base "testhost", new "ci-runner-7"' "$TMP/err" || die "no host warning: $(cat "$TMP/err")"
grep -q 'warning: compare: CPU differs' "$TMP/err" || die "no CPU warning"
grep -q 'warning: compare: kernel differs' "$TMP/err" || die "no kernel warning"
grep -q '"basis": "overhead"' "$TMP/out.json" || die "basis not overhead"
"$MAKE" "$TMP/other-slow.json" --seed 8 "${mechs[@]}" --host ci-runner-7 --cpu "Other CPU" \
    --shift process=0.3 --shift sh=0.3 --shift bwrap=0.43
json_compare 1 "$TMP/base.json" "$TMP/other-slow.json"
[ "$(verdict bwrap)" = regressed ] || die "other host, bwrap overhead +10%: $(verdict bwrap)"
json_compare 1 --by=absolute "$TMP/base.json" "$TMP/other.json"
# The same host 30% slower across the board (a loaded machine): regressions in absolute time, and a
# warning that the plain process itself moved, pointing at the overheads, which did not.
"$MAKE" "$TMP/loaded.json" --seed 9 "${mechs[@]}" --shift process=0.3 --shift sh=0.3 --shift bwrap=0.3
json_compare 1 "$TMP/base.json" "$TMP/loaded.json"
grep -q 'warning: compare: process × true itself changed by +[23][0-9]%' "$TMP/err" || die "no process warning: $(cat "$TMP/err")"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert all(p["overhead"]["verdict"] == "unchanged" for p in d["pairs"] if p["overhead"]), d["pairs"]' "$TMP/out.json" \
    || die "loaded machine: overheads should be unchanged"

# History: five nights, one of them 30% slow for bwrap, plus an interrupted one; tonight's file
# in the same directory is left out of its own baseline.
mkdir "$TMP/nights"
for i in 1 2 3 4 5; do
    shift_arg=(); [ $i = 3 ] && shift_arg=(--shift bwrap=0.3)
    "$MAKE" "$TMP/nights/night-$i.json" --seed $((10 + i)) "${mechs[@]}" --date "2026-11-2${i}T01:00:00Z" "${shift_arg[@]}"
done
"$MAKE" "$TMP/nights/night-6.json" --seed 16 "${mechs[@]}" --date "2026-11-26T01:00:00Z" --incomplete
"$MAKE" "$TMP/nights/tonight.json" --seed 20 "${mechs[@]}" --date "2026-11-30T01:00:00Z"
json_compare 0 "$TMP/nights" "$TMP/nights/tonight.json"
grep -q 'night-6.json: interrupted run: left out' "$TMP/err" || die "interrupted night not left out: $(cat "$TMP/err")"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert len(d["base"]) == 5, [b["file"] for b in d["base"]]
p=[p for p in d["pairs"] if p["mechanism"]=="bwrap"][0]
assert p["base_nights"] == 5 and abs(p["absolute"]["ratio"] - 1) < 0.03, p' "$TMP/out.json" || die "history numbers"
"$MAKE" "$TMP/slow-tonight.json" --seed 21 "${mechs[@]}" --shift bwrap=0.15 --date "2026-11-30T01:00:00Z"
json_compare 1 "$TMP/nights" "$TMP/slow-tonight.json"
[ "$(verdict bwrap)" = regressed ] || die "history: +15% bwrap is $(verdict bwrap)"
# --last 2: only the two latest complete runs (night 5 and tonight, which is not NEW here).
json_compare 1 --last=2 "$TMP/nights" "$TMP/slow-tonight.json"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert [b["date_utc"][:10] for b in d["base"]] == ["2026-11-25", "2026-11-30"], d["base"]' "$TMP/out.json" || die "--last"
echo ok
