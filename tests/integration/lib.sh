# Shared by the integration tests: $SBXBENCH is the binary under test, $CHECK the results checker.
set -u
: "${SBXBENCH:?SBXBENCH must name the sbxbench binary}"
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK="$HERE/check_results.py"
TMP=$(mktemp -d /tmp/sbxbench-it.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

die() { echo "FAIL: $*" >&2; exit 1; }

# available MECHANISM: whether `sbxbench list` says it can run here.
available() {
    "$SBXBENCH" list --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if any(m["name"] == sys.argv[1] and m["available"] for m in d["mechanisms"]) else 1)' "$1"
}

# expect_exit CODE COMMAND...: runs it, saving stderr in $TMP/err.
expect_exit() {
    local want=$1; shift
    "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    [ "$got" -eq "$want" ] || die "$* exited $got, expected $want; stderr: $(cat "$TMP/err")"
}
