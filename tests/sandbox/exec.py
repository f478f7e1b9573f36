#!/usr/bin/python3
"""Integration test of `sbxbench exec`: isolation, seccomp, pid 1, exit statuses, timeouts, errors.

    tests/sandbox/exec.py SBXBENCH PROBE DOCS_SANDBOX_MD

Runs sbx-probe (tests/sandbox/probe.c) inside the sandbox, as root and, through setpriv, as the
unprivileged user nobody. Exits 77 (skipped) when user namespaces cannot be created here at all,
saying why; every other shortcoming is a failure.
"""
import errno
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

SBXBENCH, PROBE, DOCS = sys.argv[1:4]
PROBE_IN = "/sbx-probe"

CONSTANTS = {
    "CLONE_NEWNS": 0x00020000, "CLONE_NEWUTS": 0x04000000, "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000, "CLONE_NEWNET": 0x40000000,
    "CLONE_NEWCGROUP": 0x02000000, "TIOCSTI": 0x5412, "TIOCLINUX": 0x541C,
}

failures = []


def check(name, ok, detail=""):
    print(("ok " if ok else "FAIL ") + name + ("" if ok else ": " + detail), flush=True)
    if not ok:
        failures.append(name)


def documented_denials():
    """(syscall, errno number, argument or None) for every row of the table in docs/sandbox.md."""
    text = open(DOCS).read()
    table = text.split("<!-- seccomp-table")[1].split("<!-- /seccomp-table -->")[0]
    rows = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`([a-z0-9_]+)`", cells[0])
        err = getattr(errno, cells[2].strip("`"))
        arg = None
        if cells[1]:
            arg = CONSTANTS[re.findall(r"[A-Z_]{4,}", cells[1])[0]]
        rows += [(n, err, arg) for n in names]
    return rows


class Runner:
    """Runs `sbxbench exec` as root or as nobody, with copies of the binaries anyone can read."""

    def __init__(self, workdir, user):
        self.user = user
        self.sbxbench = os.path.join(workdir, "sbxbench")
        self.probe = os.path.join(workdir, "sbx-probe")

    def prefix(self):
        if self.user == "nobody":
            return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        return []

    def cmd(self, options, command):
        return self.prefix() + [self.sbxbench, "exec"] + options + ["--"] + command

    def run(self, options, command, timeout=60):
        return subprocess.run(self.cmd(options, command), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=timeout)

    def probe_run(self, options, checks, timeout=60):
        return self.run(["--ro-bind", self.probe + ":" + PROBE_IN] + options, [PROBE_IN] + checks,
                        timeout)


def expect_probe(name, r):
    lines = [l for l in r.stdout.splitlines() if l.startswith("FAIL")]
    check(name, r.returncode == 0 and not lines,
          "exit %d; %s; stderr: %s" % (r.returncode, "; ".join(lines) or "no FAIL line",
                                         r.stderr.strip()[:300]))


def processes_with(token):
    """The host's processes whose command line contains token."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                args = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if token in args:
            found.append("%s %s" % (pid, args))
    return found


def isolation(rn, tag, host_dir):
    denied = documented_denials()
    checks = ["interfaces", "lo", "pids", str(os.getpid()), "dev",
              "readonly", "/usr", "readonly", "/etc", "readonly", "/",
              "writable", "/tmp", "writable", "/dev/shm", "hostname", "sbx"]
    for path in [host_dir, "/root", "/home", "/var", "/work", "/boot", "/sys", "/opt", "/run", "/srv"]:
        checks += ["absent", path]
    for key in ["CapEff", "CapPrm", "CapInh", "CapBnd", "CapAmb"]:
        checks += ["status", key + "=0000000000000000"]
    checks += ["status", "NoNewPrivs=1", "status", "Seccomp=2"]
    for name, err, arg in denied:
        checks += ["denied", "%s:%d" % (name, err) + (":%#x" % arg if arg is not None else "")]
    expect_probe(tag + " isolation", rn.probe_run([], checks))

    # The documented errnos come from the filter, not the kernel: with every errno swapped for an
    # unusual one, every call reports that one instead.
    policy = os.path.join(os.path.dirname(rn.probe), "exdev.policy")
    with open(policy, "w") as f:
        f.write("default allow\n")
        for name, err, arg in denied:
            cond = ""
            if arg is not None:
                cond = (" if arg0 & %#x == %#x" % (arg, arg) if name == "clone"
                        else " if arg1 & 0xffffffff == %#x" % arg)
            f.write("deny EXDEV %s%s\n" % (name, cond))
    os.chmod(policy, 0o644)
    checks = []
    for name, err, arg in denied:
        checks += ["denied", "%s:%d" % (name, errno.EXDEV) + (":%#x" % arg if arg is not None else "")]
    expect_probe(tag + " policy file", rn.probe_run(["--seccomp", policy], checks))

    r = rn.probe_run(["--seccomp=none"], ["status", "Seccomp=0", "status", "NoNewPrivs=1"])
    expect_probe(tag + " --seccomp=none", r)


def options(rn, tag, host_dir):
    marker = os.path.join(host_dir, "in")
    with open(marker, "w") as f:
        f.write("from-host\n")
    os.chmod(marker, 0o644)
    outdir = os.path.join(host_dir, "out")
    os.mkdir(outdir)
    if rn.user != "root":
        shutil.chown(outdir, "nobody", "nogroup")
    r = rn.probe_run(["--ro-bind", marker + ":/in/file", "--bind", outdir + ":/out",
                      "--tmpfs", "/scratch", "--chdir", "/out", "--setenv", "SBX_A=1",
                      "--hostname", "box"],
                     ["file", "/in/file=from-host", "readonly", "/in", "write", "/out/f=written",
                      "writable", "/scratch", "cwd", "/out", "env", "SBX_A=1",
                      "env", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                      "env", "HOME=/tmp", "hostname", "box"])
    expect_probe(tag + " binds, tmpfs, chdir, setenv, hostname", r)
    try:
        content = open(os.path.join(outdir, "f")).read()
    except OSError as e:
        content = str(e)
    check(tag + " --bind writes reach the host", content == "written", content)
    expect_probe(tag + " --clearenv",
                 rn.probe_run(["--clearenv", "--setenv", "ONLY=1"], ["env", "ONLY=1", "env", "PATH", "env", "HOME"]))
    expect_probe(tag + " --share-net", rn.probe_run(["--share-net"], ["host-net"]))
    expect_probe(tag + " --cap-add", rn.probe_run(["--cap-add", "net_raw"],
                                                  ["status", "CapEff=0000000000002000",
                                                   "status", "CapBnd=0000000000002000"]))


def layers(rn, tag):
    r = rn.probe_run(["--mechanism=inproc-fs"], ["hostname", "sbx", "readonly", "/usr", "interfaces", "lo",
                                                 "status", "Seccomp=0"])
    expect_probe(tag + " inproc-fs", r)
    r = rn.run(["--mechanism=inproc-ns"], ["/bin/sh", "-c", 'test "$$" = 1 && exit 7'])
    check(tag + " inproc-ns: the command is pid 1", r.returncode == 7, "exit %d %s" % (r.returncode, r.stderr))


def statuses(rn, tag):
    for code in (0, 1, 42, 255):
        for layer in ("inproc", "inproc-fs", "inproc-ns"):
            if layer == "inproc-ns":  # no filesystem of its own: the probe is where the host has it
                r = rn.run(["--mechanism=" + layer], [rn.probe, "exit", str(code)])
            else:
                r = rn.probe_run(["--mechanism=" + layer], ["exit", str(code)])
            check("%s %s exit %d" % (tag, layer, code), r.returncode == code,
                  "got %d: %s" % (r.returncode, r.stderr.strip()))
    for sig in (signal.SIGTERM, signal.SIGKILL, signal.SIGSEGV, signal.SIGUSR1):
        r = rn.probe_run([], ["signal", str(int(sig))])
        check("%s killed by %s" % (tag, sig.name), r.returncode == -sig,
              "got %d: %s" % (r.returncode, r.stderr.strip()))
    r = rn.probe_run([], ["abort"])
    check(tag + " abort()", r.returncode == -signal.SIGABRT, "got %d" % r.returncode)

    # A signal sent to `sbxbench exec` reaches the command through the init, and exec dies of it.
    p = subprocess.Popen(rn.cmd(["--ro-bind", rn.probe + ":" + PROBE_IN], [PROBE_IN, "hang", "1000"]),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()
    p.send_signal(signal.SIGTERM)
    try:
        rest, _ = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        rest, _ = p.communicate()
    check(tag + " SIGTERM forwarded", first == "ready\n" and "got SIGTERM" in rest and
          p.returncode == -signal.SIGTERM, "said %r then %r, returned %s" % (first, rest, p.returncode))


def leftovers(rn, tag):
    token = "%d.%d" % (random.randint(100000, 999999), os.getpid())
    r = rn.probe_run([], ["orphan", token])
    expect_probe(tag + " orphan started", r)
    left = processes_with("sleep " + token)
    check(tag + " a setsid grandchild is gone when exec returns", not left, "; ".join(left))

    token = "%d.%d" % (random.randint(100000, 999999), os.getpid())
    start = time.monotonic()
    r = rn.probe_run(["--timeout", "1"], ["hang", token], timeout=30)
    took = time.monotonic() - start
    check(tag + " --timeout kills a hung command", r.returncode == 124 and took < 10,
          "exit %d after %.1f s: %s" % (r.returncode, took, r.stderr.strip()))
    left = processes_with("sleep " + token)
    check(tag + " --timeout leaves no process", not left, "; ".join(left))


def errors(rn, tag):
    r = rn.run([], ["sbx-no-such-command"])
    check(tag + " missing command: 127", r.returncode == 127 and "sbx-no-such-command" in r.stderr,
          "exit %d: %s" % (r.returncode, r.stderr.strip()))
    r = rn.run([], ["/etc/hostname"]) if os.path.exists("/etc/hostname") else rn.run([], ["/etc/passwd"])
    check(tag + " not executable: 126", r.returncode == 126, "exit %d: %s" % (r.returncode, r.stderr.strip()))
    r = rn.run(["--ro-bind", "/sbx/no/such/source:/x"], ["/bin/true"])
    check(tag + " missing bind source: 125 with the path",
          r.returncode == 125 and "/sbx/no/such/source" in r.stderr and "sandbox:" in r.stderr,
          "exit %d: %s" % (r.returncode, r.stderr.strip()))
    # A step that fails inside the sandbox: a mount point in the read-only /usr.
    r = rn.run(["--ro-bind", rn.probe + ":/usr/sbx-no-such-file"], ["/bin/true"])
    check(tag + " failing step: 125 with step, path and errno",
          r.returncode == 125 and "sandbox: create mount point: /usr/sbx-no-such-file: Read-only file system"
          in r.stderr, "exit %d: %s" % (r.returncode, r.stderr.strip()))
    r = rn.run(["--bind", "relative"], ["/bin/true"])
    check(tag + " bad option: 2", r.returncode == 2, "exit %d: %s" % (r.returncode, r.stderr.strip()))
    # No user namespaces: the sysctl set to 0 in a user namespace of our own, so that nothing
    # outside this test is affected.
    script = "echo 0 > /proc/sys/user/max_user_namespaces && exec %s exec -- /bin/true" % rn.sbxbench
    r = subprocess.run(rn.prefix() + ["unshare", "--user", "--map-root-user", "/bin/sh", "-c", script],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    check(tag + " no user namespaces: 125 naming the step",
          r.returncode == 125 and "clone" in r.stderr and "user namespace" in r.stderr,
          "exit %d: %s" % (r.returncode, r.stderr.strip()))


def world_reachable(path):
    """Whether every directory above path lets others through (the nobody runs need that)."""
    path = os.path.abspath(path)
    while path != "/":
        path = os.path.dirname(path)
        if not os.stat(path).st_mode & stat.S_IXOTH:
            return False
    return True


def make_workdir():
    """A directory anyone can reach, on a file system that allows executing, with copies of the
    binaries under test (the build directory may be private; /tmp may be mounted noexec)."""
    for base in ("/var/tmp", "/tmp", os.path.dirname(os.path.abspath(SBXBENCH))):
        try:
            workdir = tempfile.mkdtemp(prefix="sbx-test-", dir=base)
        except OSError:
            continue
        os.chmod(workdir, 0o755)
        shutil.copy(SBXBENCH, os.path.join(workdir, "sbxbench"))
        shutil.copy(PROBE, os.path.join(workdir, "sbx-probe"))
        probe = os.path.join(workdir, "sbx-probe")
        try:
            ok = subprocess.run([probe, "exit", "0"]).returncode == 0 and world_reachable(probe)
        except OSError:
            ok = False
        if ok:
            return workdir
        shutil.rmtree(workdir, ignore_errors=True)
    return None


def main():
    if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        # The sandbox binds the host's nodes; it cannot make its own in a user namespace.
        check("the host's /dev/null is a device (something replaced it with a file)", False,
              "restore it: mknod -m 666 /dev/null.new c 1 3 && mv /dev/null.new /dev/null")
    workdir = make_workdir()
    if not workdir:
        print("SKIP: no directory that everyone can reach and execute from (/var/tmp, /tmp, the build)")
        return 77
    try:
        me = "root" if os.geteuid() == 0 else "user %d" % os.geteuid()
        r = subprocess.run([os.path.join(workdir, "sbxbench"), "exec", "--", "/bin/true"],
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            print("SKIP: the sandbox cannot start here at all: " + r.stderr.strip())
            return 77
        users = [me]
        if os.geteuid() == 0:
            r = subprocess.run(Runner(workdir, "nobody").cmd([], ["/bin/true"]), stderr=subprocess.PIPE,
                               text=True)
            if r.returncode == 0:
                users.append("nobody")
            else:
                print("note: not testing as nobody, who cannot create a sandbox here: " + r.stderr.strip())
        for user in users:
            rn = Runner(workdir, user)
            host_dir = tempfile.mkdtemp(prefix="sbx-host-")
            os.chmod(host_dir, 0o755)
            try:
                isolation(rn, user, host_dir)
                options(rn, user, host_dir)
                layers(rn, user)
                statuses(rn, user)
                leftovers(rn, user)
                errors(rn, user)
            finally:
                shutil.rmtree(host_dir, ignore_errors=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
