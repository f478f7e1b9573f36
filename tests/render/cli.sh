#!/bin/sh
# sbx-render's command line: usage errors and bad programs exit 2 with one message naming the line,
# never crash and never leave a partial image; good runs write a PGM and JSON timings.
# Usage: cli.sh SBX_RENDER
set -u
render=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# expect STATUS MESSAGE ARGS...: runs sbx-render, checks the exit status and a stderr substring.
expect() {
    want=$1 msg=$2
    shift 2
    "$render" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq "$want" ] || fail "sbx-render $*: exit $rc, expected $want ($(head -c 300 "$tmp/err"))"
    grep -qF -- "$msg" "$tmp/err" || fail "sbx-render $*: stderr lacks '$msg': $(head -c 300 "$tmp/err")"
}

"$render" --help >"$tmp/out" || fail "--help"
grep -q "Usage: sbx-render" "$tmp/out" || fail "--help output"
expect 2 "unknown option" --bogus
expect 2 "--size: expected a whole number from 2 to 16384, not '1'" --size 1
expect 2 "--size" --size 12x
expect 2 "--threads" --threads 0
expect 2 "--repeat" --repeat 0
expect 2 "--isa: expected auto, avx512, avx2 or interp, not 'sse'" --isa sse
expect 2 "needs a value" --vm
expect 2 "unexpected argument 'extra'" extra
expect 2 "cannot read: $tmp/missing.vm" --vm "$tmp/missing.vm"
expect 2 "not a regular file" --vm "$tmp"

# bad programs: FILE:LINE: message
printf '_0 var-x\n_1 add _0\n' >"$tmp/arity.vm"
expect 2 "$tmp/arity.vm:2: 'add' takes 2 operands, not 1" --vm "$tmp/arity.vm"
printf '_0 var-x\n_1 neg _2\n_2 var-y\n' >"$tmp/forward.vm"
expect 2 "$tmp/forward.vm:2: forward reference to '_2' (defined on line 3)" --vm "$tmp/forward.vm"
printf '# nothing\n' >"$tmp/empty.vm"
expect 2 "$tmp/empty.vm:1: empty program" --vm "$tmp/empty.vm"

# a failing run leaves the previous image alone and no temporary file behind
printf 'old' >"$tmp/keep.pgm"
expect 2 "takes 2 operands" --vm "$tmp/arity.vm" -o "$tmp/keep.pgm"
[ "$(cat "$tmp/keep.pgm")" = old ] || fail "a bad program overwrote the output"
expect 1 "cannot write: $tmp/no/such/dir/out.pgm" --size 8 -o "$tmp/no/such/dir/out.pgm"
[ -z "$(ls "$tmp" | grep tmp)" ] || fail "temporary file left behind: $(ls "$tmp")"

# garbage never crashes: it parses or exits 2
i=0
while [ $i -lt 40 ]; do
    head -c $((i * 37 + 1)) /dev/urandom >"$tmp/garbage.vm"
    "$render" --vm "$tmp/garbage.vm" --size 4 -o "$tmp/g.pgm" 2>/dev/null
    rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "garbage input $i: exit $rc"
    i=$((i + 1))
done

# good runs: the built-in scene, every ISA and thread count alike, a well-formed PGM
"$render" --size 96 --isa interp -o "$tmp/interp.pgm" || fail "built-in scene, interpreter"
[ "$(head -c 13 "$tmp/interp.pgm" | od -An -c | tr -d ' \n')" = 'P5\n9696\n255\n' ] ||
    fail "PGM header: $(head -c 13 "$tmp/interp.pgm" | od -An -c)"
[ "$(wc -c <"$tmp/interp.pgm")" -eq $((13 + 96 * 96)) ] || fail "PGM size"
for isa in auto avx512 avx2; do
    for threads in 1 2 3; do
        "$render" --size 96 --isa $isa --threads $threads >"$tmp/img.pgm" 2>"$tmp/err"
        rc=$?
        if [ $rc -eq 2 ] && grep -q "not supported by this CPU" "$tmp/err"; then continue; fi
        [ $rc -eq 0 ] || fail "$isa, $threads threads: exit $rc"
        cmp -s "$tmp/img.pgm" "$tmp/interp.pgm" || fail "$isa, $threads threads: image differs"
    done
done

# --timings: one JSON object on stderr, one render time per --repeat
"$render" --size 32 --repeat 3 --timings -o "$tmp/t.pgm" 2>"$tmp/timings.json" || fail "--timings"
/usr/bin/python3 - "$tmp/timings.json" <<'PY' || fail "--timings JSON"
import json, sys
t = json.load(open(sys.argv[1]))
for key in ("parse_ms", "dedup_ms", "regalloc_ms", "emit_ms", "compile_ms", "spill_slots",
            "peak_rss_kib", "isa", "threads"):
    assert key in t, key
assert len(t["render_ms"]) == 3, t["render_ms"]
assert t["instructions"] > 1000, t["instructions"]
PY

exit $failed
