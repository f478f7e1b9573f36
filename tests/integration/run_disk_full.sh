#!/bin/bash
# Results are never truncated: with the disk full, writing fails with one clear line and exit 2, the
# previous results file is untouched and no temp file is left. A full /tmp does not matter to a run
# (captures are memfds). Needs root for the small tmpfs mounts.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "needs root to mount a small tmpfs: skipping"; exit 77; }
command -v unshare >/dev/null || { echo "unshare(1) missing: skipping"; exit 77; }

mkdir "$TMP/small"
# In a private mount namespace, so nothing outlives the test even if it fails half-way.
unshare --mount --propagation private bash -c '
    set -u
    mount -t tmpfs -o size=64k tmpfs "$1/small" || exit 3
    echo "{\"old\": true}" > "$1/small/r.json"
    # Leave about 8 KiB free: more than the temp file needs to be created, less than the results.
    dd if=/dev/zero of="$1/small/filler" bs=4k count=14 2>/dev/null
    "$SBXBENCH" run -m process -n 200 --warmup 0 --no-progress -o "$1/small/r.json" >/dev/null 2>"$1/err"
    echo $? > "$1/rc"
    cp "$1/small/r.json" "$1/after.json"
    ls -A "$1/small" > "$1/listing"
' _ "$TMP" || die "setup failed"
[ "$(cat "$TMP/rc")" -eq 2 ] || die "disk full: exit $(cat "$TMP/rc"), expected 2; $(cat "$TMP/err")"
grep -q "No space left on device" "$TMP/err" || die "disk full not explained: $(cat "$TMP/err")"
[ "$(grep -c . "$TMP/err")" -eq 1 ] || die "more than one line: $(cat "$TMP/err")"
grep -q '"old": true' "$TMP/after.json" || die "previous results were overwritten"
[ "$(sort "$TMP/listing" | tr '\n' ' ')" = "filler r.json " ] || die "left behind: $(cat "$TMP/listing")"

# /tmp full: the run does not care. A checkout that itself lives under /tmp (a CI clone may) is
# bound back into the full /tmp at its own path, so that the binary stays reachable.
checkout=$(cd "$(dirname "$SBXBENCH")/.." && pwd)
unshare --mount --propagation private bash -c '
    set -u
    checkout=$1
    keep=""
    case "$checkout" in /tmp/*)
        keep=$(mktemp -d /run/sbxbench-keep.XXXXXX) && mount --bind "$checkout" "$keep" || exit 3 ;;
    esac
    mount -t tmpfs -o size=64k tmpfs /tmp || exit 3
    if [ -n "$keep" ]; then
        mkdir -p "$checkout" && mount --bind "$keep" "$checkout" || exit 3
    fi
    dd if=/dev/zero of=/tmp/filler bs=4k count=64 2>/dev/null
    [ "$(df --output=avail /tmp | tail -1)" -eq 0 ] || exit 4
    "$SBXBENCH" run -m process,sh -n 5 --warmup 0 --no-progress --format json
    rc=$?
    [ -n "$keep" ] && umount "$checkout" && umount "$keep" && rmdir "$keep"
    exit $rc
' _ "$checkout" > "$TMP/out.json" || die "run with a full /tmp failed"
"$CHECK" "$TMP/out.json" --require-run process,sh || exit 1
echo ok
