#!/bin/bash
# A Docker daemon that dies (kill) or stops answering (stop: SIGSTOP) in the middle of a run: the
# samples after that are recorded as failures with a reason, the run finishes promptly and writes
# complete results. A hung sample is stopped by --timeout; once the daemon does not even answer
# the request to kill its container, the remaining samples fail at once instead of each waiting.
# The daemon is a private one (its own socket, data root and exec root), never the shared one.
set -euo pipefail
sbx=${1:?usage: daemon-death.sh SBXBENCH [kill|stop]}
mode=${2:-kill}
runs=40

if [ "$(id -u)" -ne 0 ] || ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
    echo "SKIP: needs root, dockerd and docker"
    exit 77
fi

work=$(mktemp -d /tmp/sbxbench-test-dockerd-XXXXXX)
export DOCKER_HOST="unix://$work/docker.sock"
dockerd_pid=""
sbx_pid=""

# Every process that names the private daemon's directory (dockerd, its containerd, shims).
private_pids() {
    grep -lsF -- "$work" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3 | grep -vx "$$" || true
}

cleanup() {
    [ -n "$sbx_pid" ] && kill -KILL "$sbx_pid" 2>/dev/null || true
    for pid in $(private_pids); do kill -KILL "$pid" 2>/dev/null || true; done
    sleep 0.5
    # The dead daemon's mounts (its data root, an overlay of the sample it was running, netns).
    awk -v d="$work" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

setsid dockerd --host "$DOCKER_HOST" --data-root "$work/data" --exec-root "$work/exec" \
    --pidfile "$work/dockerd.pid" --iptables=false --bridge=none >"$work/dockerd.log" 2>&1 \
    </dev/null &
dockerd_pid=$!
for i in $(seq 60); do
    timeout 5 docker info >/dev/null 2>&1 && break
    if [ "$i" -eq 60 ]; then
        echo "FAIL: the private dockerd did not come up; its log ends:"
        tail -n 5 "$work/dockerd.log"
        exit 1
    fi
    sleep 1
done

"$sbx" run --mechanism=docker --workload=true -n "$runs" --warmup 0 --timeout 3 --no-progress \
    --cache-dir "$work/cache" -o "$work/results.json" >"$work/table" 2>&1 &
sbx_pid=$!

# Let the availability probe and a few samples through: container names count up per sample.
highest_seq() {
    timeout 5 docker ps --all --format '{{.Names}}' 2>/dev/null |
        sed -n 's/^sbxbench-[0-9]*-0*\([0-9][0-9]*\)$/\1/p' | sort -n | tail -n 1
}
for i in $(seq 600); do
    seq=$(highest_seq)
    [ -n "$seq" ] && [ "$seq" -ge 4 ] && break
    if [ "$i" -eq 600 ] || ! kill -0 "$sbx_pid" 2>/dev/null; then
        echo "FAIL: no sample reached the private daemon"
        cat "$work/table"
        exit 1
    fi
    sleep 0.1
done

if [ "$mode" = stop ]; then kill -STOP "$dockerd_pid"; else kill -KILL "$dockerd_pid"; fi
killed_at=$(date +%s)
if ! timeout 120 tail --pid="$sbx_pid" -f /dev/null; then
    echo "FAIL: sbxbench still running 120 s after the daemon died"
    exit 1
fi
sbx_rc=0
wait "$sbx_pid" || sbx_rc=$?
sbx_pid=""
took=$(($(date +%s) - killed_at))
cat "$work/table"
echo "sbxbench exited $sbx_rc, $took s after the daemon got SIG${mode^^}"
[ "$took" -le 60 ] || { echo "FAIL: the rest of the run took $took s"; exit 1; }
[ "$sbx_rc" -eq 0 ] || { echo "FAIL: sbxbench exit status $sbx_rc"; exit 1; }
/usr/bin/python3 "$(dirname "$0")/../integration/check_results.py" "$work/results.json" \
    --expect-mechanisms docker

/usr/bin/python3 - "$work/results.json" "$runs" "$mode" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
runs, mode = int(sys.argv[2]), sys.argv[3]
(r,) = [r for r in doc["results"] if r["mechanism"] == "docker"]
failed = [f["index"] for f in r["failures"]]
problems = []
if not doc["complete"]:
    problems.append("results marked incomplete")
if r["skipped"]:
    problems.append(f"docker skipped: {r['reason']}")
if r["runs"] != runs:
    problems.append(f"{r['runs']} samples recorded, not {runs}")
if r["n"] < 1:
    problems.append("no sample succeeded before the daemon died")
if not failed:
    problems.append("no sample failed after the daemon died")
elif failed != list(range(failed[0], runs)):
    problems.append(f"not every sample after the death failed: {failed}")
expected = ("exit status 125", "could not start") if mode == "kill" else ("timed out", "could not start")
for f in r["failures"]:
    if not f["reason"].startswith(expected):
        problems.append(f"unexpected failure reason: {f['reason']}")
        break
if mode == "stop" and not r["failures"][-1]["reason"].startswith("could not start"):
    problems.append("samples kept waiting on the stopped daemon")
for p in problems:
    print("FAIL:", p)
if problems:
    sys.exit(1)
print(f"ok: {r['n']} samples before the death, {len(failed)} recorded failures after it; "
      f"first: {r['failures'][0]['reason']}")
EOF
