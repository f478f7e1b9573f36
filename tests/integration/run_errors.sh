#!/bin/bash
# Bad input: one line naming the problem, exit 2, checked before any run, no output file left.
. "$(dirname "$0")/lib.sh"
out="$TMP/never.json"
check_usage() {
    expect_exit 2 "$SBXBENCH" "$@"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || die "$*: expected one line on stderr, got: $(cat "$TMP/err")"
    grep -q '^sbxbench: ' "$TMP/err" || die "$*: message not prefixed: $(cat "$TMP/err")"
    [ ! -e "$out" ] || die "$*: left $out behind"
    [ -z "$(ls "$TMP" | grep never)" ] || die "$*: left a temp file: $(ls "$TMP")"
}
check_usage run -m nosuch -o "$out"
grep -q "unknown name 'nosuch'" "$TMP/err" || die "unknown mechanism not named"
check_usage run -w nosuch -o "$out"
check_usage run -n abc -o "$out"
grep -q "'abc'" "$TMP/err" || die "bad number not quoted"
check_usage run -n 0 -o "$out"
check_usage run --timeout=-5 -o "$out"
check_usage run --format=yaml -o "$out"
check_usage run --runs 3 --min-time 1 -o "$out"
check_usage run --bogus -o "$out"
check_usage run -o /nonexistent-dir/r.json
grep -q "/nonexistent-dir/r.json: No such file or directory" "$TMP/err" || die "path not named"
check_usage run -o "$TMP"
check_usage nosuchcommand
check_usage list --bogus
# A read-only directory is refused before any run starts (root ignores mode bits: use a ro mount).
mkdir "$TMP/ro"
if mount -t tmpfs -o ro tmpfs "$TMP/ro" 2>/dev/null; then
    start=$(date +%s%N)
    check_usage run -n 100000 -o "$TMP/ro/r.json"
    umount "$TMP/ro"
    elapsed=$((($(date +%s%N) - start) / 1000000))
    [ "$elapsed" -lt 2000 ] || die "read-only output refused only after ${elapsed} ms"
    grep -q "Read-only file system" "$TMP/err" || die "read-only not explained: $(cat "$TMP/err")"
fi
expect_exit 0 "$SBXBENCH" --version
grep -q '^sbxbench [0-9]' "$TMP/out" || die "--version output: $(cat "$TMP/out")"
expect_exit 0 "$SBXBENCH" --help
expect_exit 0 "$SBXBENCH" run --help
grep -q -- '--mechanism' "$TMP/out" || die "run --help lacks --mechanism"
echo ok
