#!/bin/sh
# `sbxbench list` tells, for each container mechanism, whether it is ready and if not exactly what
# is missing: the program, the daemon.
set -eu
sbx=${1:?usage: list-containers.sh SBXBENCH}
work=$(mktemp -d /tmp/sbxbench-test-list-XXXXXX)
trap 'rm -rf "$work"' EXIT
check() { # check JSON-FILE MECHANISM EXPECTED-REASON-PREFIX ("ready" for available)
    /usr/bin/python3 - "$@" <<'EOF'
import json, sys
path, mech, expected = sys.argv[1:]
(m,) = [m for m in json.load(open(path))["mechanisms"] if m["name"] == mech]
got = "ready" if m["available"] else m["reason"]
if not got.startswith(expected):
    print(f"FAIL: {mech}: expected '{expected}...', got '{got}'")
    sys.exit(1)
print(f"ok: {mech}: {got}")
EOF
}

# As the host is: every container mechanism is listed, ready or with a reason.
XDG_CACHE_HOME="$work/cache" "$sbx" list --json >"$work/host.json"
"$sbx" list | grep -E '^  (docker|podman|runc|crun) '
for mech in runc crun podman docker; do
    /usr/bin/python3 - "$work/host.json" "$mech" <<'EOF'
import json, sys
(m,) = [m for m in json.load(open(sys.argv[1]))["mechanisms"] if m["name"] == sys.argv[2]]
if m["family"] != "container" or (not m["available"] and not m["reason"]):
    print(f"FAIL: {m}")
    sys.exit(1)
EOF
done

# Programs missing: a PATH with only what sbxbench itself needs.
mkdir "$work/bin"
for tool in true tar sh; do ln -s "$(command -v $tool)" "$work/bin/$tool"; done
PATH="$work/bin" XDG_CACHE_HOME="$work/cache" "$sbx" list --json >"$work/bare.json"
for mech in runc crun podman docker; do
    check "$work/bare.json" "$mech" "$mech not installed (not found in PATH)"
done

# The daemon missing: docker pointed at a socket nobody listens on.
if command -v docker >/dev/null; then
    DOCKER_HOST="unix://$work/nobody.sock" XDG_CACHE_HOME="$work/cache" "$sbx" list --json \
        >"$work/nodaemon.json"
    check "$work/nodaemon.json" docker "docker daemon not reachable: Cannot connect to the Docker daemon"
fi
