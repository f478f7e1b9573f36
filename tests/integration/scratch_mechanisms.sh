#!/bin/bash
# ${tmp}, a workload's scratch directory (made in the host's /dev/shm), is writable in every
# mechanism, as docs/workloads.md promises: under each one available here, a pipeline writes a
# file into it through sbx-action and a second command reads it back. (inproc and inproc-fs covered
# it with their own fresh /dev/shm until the sandbox learned to set such binds aside: every
# workload using ${tmp}, cc among them, failed there.)
. "$(dirname "$0")/lib.sh"
cat >"$TMP/scratch.wl" <<'WL'
summary writes into ${tmp} and reads it back
run /bin/sh -c 'echo scratch-ok > "$1" && /bin/cat "$1"' sh ${tmp}/out
expect-stdout scratch-ok
WL
cat >"$TMP/scratchpipe.wl" <<'WL'
summary a pipeline into a file in ${tmp}
run /bin/echo piped | /bin/cat > ${tmp}/out
WL
mechanisms=$("$SBXBENCH" list --json | /usr/bin/python3 -c '
import json, sys
print(",".join(m["name"] for m in json.load(sys.stdin)["mechanisms"] if m["available"]))')
"$SBXBENCH" run -m "$mechanisms" -w "$TMP/scratch.wl,$TMP/scratchpipe.wl" -n 2 --warmup 0 \
    --timeout 60 --no-progress -o "$TMP/r.json" >"$TMP/out" 2>&1 || die "run failed: $(cat "$TMP/out")"
/usr/bin/python3 - "$TMP/r.json" <<'PY' || exit 1
import json, sys
bad = [(r["mechanism"], r["workload"], r["reason"] or [f["reason"] for f in r["failures"]][:1])
       for r in json.load(open(sys.argv[1]))["results"] if r["skipped"] or r["failed"]]
assert not bad, bad
PY
echo ok
