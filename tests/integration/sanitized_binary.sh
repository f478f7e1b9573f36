#!/bin/bash
# The integration tests of a sanitized build (build-asan/) drive that build's binaries, and those
# binaries carry the sanitizers the build was configured with: otherwise the ASan+UBSan run of the
# integration suite would test nothing more than the normal one. Also: a sanitized sbxbench goes
# through a short run (every path of a run, a fault and the results file) without a report.
. "$(dirname "$0")/lib.sh"
: "${SBXBENCH_SANITIZE:?SBXBENCH_SANITIZE must hold the b_sanitize option of the build}"
: "${SBXBENCH_BUILDDIR:?SBXBENCH_BUILDDIR must name the build directory}"
[ "$(dirname "$(realpath "$SBXBENCH")")" = "$(realpath "$SBXBENCH_BUILDDIR")" ] ||
    die "SBXBENCH=$SBXBENCH is not this build's ($SBXBENCH_BUILDDIR)"
# The runtime's entry points are named in every sanitized binary, linked statically or not.
has() { grep -aq "$2" "$1"; }
for exe in "$SBXBENCH" "$SBXBENCH_BUILDDIR/sbx-action" "$SBXBENCH_BUILDDIR/sbx-pipe"; do
    case $SBXBENCH_SANITIZE in *address*) has "$exe" __asan_init || die "$exe: no ASan" ;; esac
    case $SBXBENCH_SANITIZE in *undefined*) has "$exe" __ubsan_handle_ || die "$exe: no UBSan" ;; esac
    if [ "$SBXBENCH_SANITIZE" = none ]; then
        has "$exe" __asan_init && die "$exe: ASan in a build without sanitizers"
    fi
done
case $SBXBENCH_SANITIZE in
*address*)
    ASAN_OPTIONS=help=1 "$SBXBENCH" --version 2>&1 | grep -q "AddressSanitizer" ||
        die "ASan is not active when $SBXBENCH runs"
    ;;
esac
printf 'run sh -c "exit 3"\n' >"$TMP/exit3.wl"
"$SBXBENCH" run -m process,sh -w "true,pipe,$TMP/exit3.wl" --pipe-sizes 4096 --pipe-bytes 65536 \
    -n 3 --warmup 1 --no-progress -o "$TMP/r.json" >"$TMP/out" 2>"$TMP/err" ||
    die "run failed: $(cat "$TMP/err")"
grep -E "Sanitizer|runtime error" "$TMP/err" && die "sanitizer report"
"$CHECK" "$TMP/r.json" >/dev/null || exit 1
"$SBXBENCH" compare "$TMP/r.json" "$TMP/r.json" >"$TMP/out" 2>"$TMP/err" ||
    die "compare failed: $(cat "$TMP/err")"
grep -E "Sanitizer|runtime error" "$TMP/err" && die "sanitizer report"
echo "ok ($SBXBENCH_SANITIZE)"
