#!/bin/bash
# sbx-action and sbx-pipe on their own: redirections, pipelines, exit statuses, and the pipe's
# checks of what arrives. Usage: helpers.sh SBX-ACTION SBX-PIPE
set -u
action=$1
pipe=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_status WANT COMMAND...: runs it, stderr to $work/err, and checks the exit status.
expect_status() {
    local want=$1; shift
    "$@" >"$work/out" 2>"$work/err"
    local got=$?
    [ "$got" = "$want" ] || fail "$* exited $got, not $want ($(head -c 300 "$work/err"))"
}
expect_err() { grep -q -- "$1" "$work/err" || fail "stderr lacks '$1': $(head -c 300 "$work/err")"; }
expect_file() { # FILE CONTENT
    [ "$(cat "$1")" = "$2" ] || fail "$1 holds '$(cat "$1")', not '$2'"
}

# Redirections: > truncates, >> appends, < reads, 2> and 2>> for stderr, 2>&1 in order.
echo old >"$work/o"
expect_status 0 "$action" 2 /bin/echo one '>' "$work/o"
expect_file "$work/o" one
expect_status 0 "$action" 2 /bin/echo two '>>' "$work/o"
expect_file "$work/o" "one
two"
printf 'in\n' >"$work/i"
expect_status 0 "$action" 1 /bin/cat '<' "$work/i" '>' "$work/c"
expect_file "$work/c" in
expect_status 0 "$action" 3 /bin/sh -c 'echo e >&2' '2>' "$work/e"
expect_file "$work/e" e
expect_status 0 "$action" 3 /bin/sh -c 'echo f >&2' '2>>' "$work/e"
expect_file "$work/e" "e
f"
expect_status 0 "$action" 3 /bin/sh -c 'echo out; echo err >&2' '>' "$work/both" '2>&1'
expect_file "$work/both" "out
err"
# 2>&1 before > sends stderr where stdout was (our stdout), as a shell does.
expect_status 0 "$action" 3 /bin/sh -c 'echo err >&2' '2>&1' '>' "$work/only"
expect_file "$work/only" ""
grep -q err "$work/out" || fail "2>&1 then >: stderr should have gone to the old stdout"

# Pipelines: three stages, the data flows; stderr of a stage piped with 2>&1.
expect_status 0 "$action" 2 /bin/echo abc '|' 3 /usr/bin/tr b x '|' 1 /bin/cat
expect_file "$work/out" axc
expect_status 0 "$action" 3 /bin/sh -c 'echo viaerr >&2' '2>&1' '|' 3 /usr/bin/tr a-z A-Z
expect_file "$work/out" VIAERR
# An argument that looks like an operator is just an argument.
expect_status 0 "$action" 3 /bin/echo '|' '>'
expect_file "$work/out" "| >"

# Statuses: pipefail (the rightmost failure), 126/127, signals, a missing input.
expect_status 1 "$action" 1 /bin/false '|' 1 /bin/true
expect_status 1 "$action" 1 /bin/true '|' 1 /bin/false
expect_status 4 "$action" 3 /bin/sh -c 'exit 3' '|' 3 /bin/sh -c 'exit 4' '|' 1 /bin/true
expect_status 0 "$action" 1 /bin/true '|' 1 /bin/true
expect_status 127 "$action" 1 /nonexistent/prog
expect_err "/nonexistent/prog: No such file or directory"
expect_status 126 "$action" 1 /etc/passwd
expect_status 127 "$action" 1 sbxbench-no-such-program '|' 1 /bin/true
expect_status 1 "$action" 1 /bin/cat '<' "$work/absent"
expect_err "< $work/absent: No such file or directory"
expect_status 1 "$action" 1 /bin/true '>' "$work/absent-dir/x"
# A stage killed by a signal kills sbx-action by it (the shell reports 128 + the signal).
expect_status $((128 + 15)) "$action" 3 /bin/sh -c 'kill -TERM $$'
expect_status 2 "$action"
expect_err "usage"
expect_status 2 "$action" 1 /bin/true extra
expect_err "expected a redirection or '|', got 'extra'"

# sbx-pipe: a good transfer at several sizes, then each broken one fails.
for size in 1 4 4096 65536 100000; do
    expect_status 0 "$action" 4 "$pipe" write $size 300000 '|' 4 "$pipe" read $size 300000
    expect_file "$work/out" "300000 bytes verified"
done
expect_status 1 "$action" 4 "$pipe" write 64 999 '|' 4 "$pipe" read 64 1000
expect_err "short transfer: 999 of 1000 bytes"
expect_status 1 "$action" 4 "$pipe" write 64 1001 '|' 4 "$pipe" read 64 1000
expect_err "more than the 1000 bytes sent"
expect_status 1 "$action" 4 "$pipe" write 64 1000 '|' 3 /usr/bin/tr '\000-\377' '\001-\377\000' '|' 4 "$pipe" read 64 1000
expect_err "corrupted: byte 0 differs"
head -c 1000 /dev/zero >"$work/zeros"
expect_status 1 "$action" 4 "$pipe" read 16 1000 '<' "$work/zeros"
expect_err "corrupted"
# Buffers out of order: the count alone would not see it, the content does.
"$pipe" write 4096 65536 >"$work/stream"
{ dd if="$work/stream" bs=4096 count=1 status=none
  dd if="$work/stream" bs=4096 skip=2 count=14 status=none
  dd if="$work/stream" bs=4096 skip=1 count=1 status=none; } >"$work/swapped"
[ "$(stat -c %s "$work/swapped")" = 65536 ] || fail "the reordered stream should keep its length"
expect_status 1 "$action" 4 "$pipe" read 4096 65536 '<' "$work/swapped"
expect_err "corrupted"
expect_status 2 "$pipe" write 0 10
expect_status 2 "$pipe" read 4 x
expect_status 2 "$pipe" send 4 10

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all helper checks passed"
