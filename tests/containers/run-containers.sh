#!/bin/sh
# `sbxbench run --mechanism=docker,podman,runc,crun --workload=true -n 5`: docker, podman and runc
# produce results, crun produces results or a skip with its reason, and each result's argv is the
# command that ran (the container client or runtime with the flags found for this host).
# A mechanism may be skipped only for a reason this host explains: its program is not installed,
# runc/crun as non-root, docker without a daemon when not root (scripts/services starts one as root).
set -eu
sbx=${1:?usage: run-containers.sh SBXBENCH}
work=$(mktemp -d /tmp/sbxbench-test-containers-XXXXXX)
trap 'rm -rf "$work"' EXIT

if ! "$sbx" run --mechanism=docker,podman,runc,crun --workload=true -n 5 --warmup 1 \
        --no-progress --cache-dir "$work/cache" -o "$work/results.json" >"$work/table" 2>&1; then
    cat "$work/table"
    exit 1
fi
cat "$work/table"
# The schema and the results' own consistency, as for every other mechanism.
/usr/bin/python3 "$(dirname "$0")/../integration/check_results.py" "$work/results.json" \
    --expect-mechanisms docker,podman,runc,crun

/usr/bin/python3 - "$work/results.json" <<'EOF'
import json, os, re, shutil, sys

doc = json.load(open(sys.argv[1]))
root = os.geteuid() == 0
problems, ran = [], 0
name = re.compile(r"^sbxbench-\d+-\d{10}$")
for r in doc["results"]:
    mech, argv = r["mechanism"], r["argv"]
    if r["skipped"]:
        reason = r["reason"] or ""
        excused = (not shutil.which(mech) or (mech in ("runc", "crun") and not root)
                   or (mech == "docker" and not root and "daemon not reachable" in reason)
                   or (mech == "crun" and reason.startswith("crun fails here")))
        print(f"{mech}: skipped: {reason}")
        if not reason:
            problems.append(f"{mech}: skipped without a reason")
        elif not excused:
            problems.append(f"{mech}: skipped, but should run here: {reason}")
        continue
    ran += 1
    if r["n"] != 5 or r["failed"] != 0:
        problems.append(f"{mech}: {r['n']} good runs of 5, failures: {r['failures'][:2]}")
    if not argv or os.path.basename(argv[0]) != mech or not os.path.isabs(argv[0]):
        problems.append(f"{mech}: argv does not start with the resolved {mech}: {argv}")
        continue
    if mech in ("docker", "podman"):
        run_at = argv.index("run")
        ids = [argv[argv.index("--name") + 1]]
        for flag in ("--rm", "--network=none", "--pull=never"):
            if flag not in argv[run_at:]:
                problems.append(f"{mech}: {flag} missing from {argv}")
        if argv[-1] != "/usr/bin/true" and not argv[-1].endswith("/true"):
            problems.append(f"{mech}: the action is not the argv's tail: {argv}")
        if not any(a.startswith("localhost/sbxbench-rootfs:") for a in argv):
            problems.append(f"{mech}: not sbxbench's image: {argv}")
    else:
        if argv[1:3] != ["run", "--bundle"] or len(argv) != 5:
            problems.append(f"{mech}: not `{mech} run --bundle DIR ID`: {argv}")
        ids = [argv[-1]]
    if not all(name.match(i) for i in ids):
        problems.append(f"{mech}: container name/id not sbxbench-PID-SEQ: {ids}")
    if r["command"].split()[0] != argv[0]:
        problems.append(f"{mech}: command and argv disagree")
for p in problems:
    print("FAIL:", p)
if problems:
    sys.exit(1)
if ran == 0:
    print("SKIP: no container mechanism can run here")
    sys.exit(77)
print(f"ok: {ran} container mechanism(s) measured")
EOF
