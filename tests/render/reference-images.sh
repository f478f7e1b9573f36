#!/bin/sh
# sbx-render reproduces the Prospero challenge's reference images exactly, with every ISA this CPU
# has. Usage: reference-images.sh SBX_RENDER SOURCE_ROOT. Exit 77 (skip) without ../shared/data.
set -u
render=$1
data=$2/../shared/data
for f in prospero.vm prospero-256.pgm prospero-1024.pgm; do
    if [ ! -r "$data/$f" ]; then
        echo "skip: $data/$f is absent"
        exit 77
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for isa in avx512 avx2 interp; do
    for size in 256 1024; do
        "$render" --vm "$data/prospero.vm" --size $size --isa $isa -o "$tmp/out.pgm" 2>"$tmp/err"
        rc=$?
        if [ $rc -eq 2 ] && grep -q "not supported by this CPU" "$tmp/err"; then
            echo "$isa: not supported here, skipped"
            break
        fi
        if [ $rc -ne 0 ]; then
            echo "FAIL: $isa $size: exit $rc: $(cat "$tmp/err")"
            failed=1
        elif ! cmp -s "$tmp/out.pgm" "$data/prospero-$size.pgm"; then
            echo "FAIL: $isa $size: $(cmp -l "$tmp/out.pgm" "$data/prospero-$size.pgm" | wc -l) bytes differ"
            failed=1
        else
            echo "ok: $isa $size"
        fi
    done
done
exit $failed
