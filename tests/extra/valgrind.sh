#!/bin/sh
# Memcheck on every unit test of build/ (the `valgrind` test setup in tests/meson.build): an
# invalid read or write, a use of uninitialised memory or a leak fails the test.
cd "$(dirname "$0")/../.." || exit 1
command -v valgrind >/dev/null || { echo "valgrind missing (scripts/deps installs it)"; exit 1; }
exec meson test -C build --setup valgrind --suite unit --no-rebuild --num-processes 1 \
    --print-errorlogs
