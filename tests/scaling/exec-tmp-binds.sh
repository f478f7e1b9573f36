#!/bin/bash
# `sbxbench exec` shows what is bound under /tmp (and /dev/shm), which each run covers with a scratch
# tmpfs of its own: files and directories, read-only, staged inputs too, while /tmp stays writable
# and holds nothing else of the host's.
#
# usage: exec-tmp-binds.sh SBXBENCH
set -u
SBXBENCH=$1
TMP=$(mktemp -d /tmp/sbxbench-tmp-binds.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
"$SBXBENCH" exec -- /bin/true 2>/dev/null || { echo "SKIP: sbxbench exec does not run here"; exit 77; }
mkdir -p "$TMP/dir/sub" && echo in-dir >"$TMP/dir/sub/f" && echo a-file >"$TMP/file"
echo secret >"$TMP/not-bound"
out=$("$SBXBENCH" exec --ro-bind "$TMP/dir" --ro-bind "$TMP/file" --inputs "$TMP/dir" \
    --input sub/f --staging per-file -- /bin/sh -c "
    cat $TMP/dir/sub/f $TMP/file
    test -e $TMP/not-bound && echo LEAK
    { echo x >$TMP/dir/sub/f; } 2>/dev/null && echo WRITABLE
    echo y >/tmp/scratch && echo tmp-writable" 2>&1) || die "exec failed: $out"
[ "$out" = "$(printf 'in-dir\na-file\ntmp-writable')" ] || die "unexpected: $out"
echo ok
