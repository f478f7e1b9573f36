#!/bin/sh
# A short fuzzing run of sbx-render's compiler (parser through JIT) as one test: ~20 s of
# libFuzzer; fails on any crash, sanitizer report or JIT/interpreter difference.
cd "$(dirname "$0")/../.." || exit 1
exec scripts/fuzz render 20
