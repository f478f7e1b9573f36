#!/bin/sh
# Every fuzz target for a short while (scripts/fuzz builds build-fuzz/ with clang first): fails on
# any crash, sanitizer report, leak, timeout or broken check. The long runs are scripts/fuzz TARGET
# SECONDS; docs/reliability.md has their figures.
cd "$(dirname "$0")/../.." || exit 1
exec scripts/fuzz all 15
