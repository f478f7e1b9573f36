/* sbxbench exec: run one command in sbxbench's own sandbox (libsbx), as a user would. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/commands.h"
#include "harness/exec_args.h"
#include "harness/usage.h"
#include "sandbox/sbx.h"

#define EXIT_TIMEOUT 124 /* as timeout(1) */

static void exec_help(void)
{
    printf(
        "Usage: sbxbench exec [OPTIONS] [--] CMD [ARGS...]\n"
        "\n"
        "Runs CMD in a new sandbox: new user, mount, pid, ipc, uts, net, cgroup and time\n"
        "namespaces; a tmpfs root with the host's /usr, /bin, /sbin, /lib*, /etc read-only, a new\n"
        "/proc, a minimal /dev and an empty /tmp; only lo; no capabilities, no_new_privs and a\n"
        "seccomp filter. Exits with CMD's status (or dies of its signal); 125 when the sandbox\n"
        "cannot be set up, 126 when CMD cannot be executed, 127 when it is not found.\n"
        "\n"
        "Options:\n"
        "  --mechanism=LAYER     inproc (default, the full sandbox), inproc-fs (no privilege\n"
        "                        drop, no init) or inproc-ns (namespaces only)\n"
        "  --bind SRC[:DST]      make host SRC (a directory or file) writable at DST\n"
        "  --ro-bind SRC[:DST]   make host SRC visible read-only at DST\n"
        "  --tmpfs DST           an empty writable tmpfs at DST\n"
        "  --chdir DIR           run CMD in DIR (default: /)\n"
        "  --setenv KEY=VALUE    set a variable\n"
        "  --clearenv            start from an empty environment (default: only PATH,\n"
        "                        HOME=/tmp and LANG=C.UTF-8, not the caller's)\n"
        "  --hostname NAME       the sandbox's hostname (default: sbx)\n"
        "  --share-net           keep the host's network (default: only lo)\n"
        "  --cap-add CAP         keep capability CAP (e.g. net_raw); repeatable\n"
        "  --seccomp POLICY      none, default, or a policy file (see docs/sandbox.md)\n"
        "  --timeout SECONDS     kill the whole sandbox after this long (exit 124)\n"
        "  --inputs DIR          show input files under host DIR one by one, at the same\n"
        "                        paths, read-only, and nothing else of DIR (docs/scaling.md)\n"
        "  --input PATH          an input, relative to DIR; repeatable\n"
        "  --inputs-from FILE    the inputs, one relative path a line\n"
        "  --staging METHOD      how: per-file (default: a bind per input, made once),\n"
        "                        bind-each, open-tree, symlinks (not isolating) or overlay\n"
        "  --overlay-lower DIR   overlay: a directory holding the inputs only, laid out as DIR\n"
        "  --timings             print where the setup time went, as JSON on stderr\n"

        "  --repeat N            run CMD N times, each in a fresh sandbox (for measurements);\n"
        "                        stops at the first failure\n");
}

int parse_exec_args(int argc, char **argv, struct exec_args *a)
{
    memset(a, 0, sizeof *a);
    sbx_config_init(&a->cfg);
    a->cfg.program = "sbxbench";
    a->repeat = 1;
    int i = 1;
    while (i < argc) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            exec_help();
            return 1;
        }
        if (strcmp(arg, "--timings") == 0) {
            a->timings = true;
            i++;
            continue;
        }
        if (strcmp(arg, "--repeat") == 0 || strncmp(arg, "--repeat=", 9) == 0) {
            const char *v = arg[8] == '=' ? arg + 9 : (i + 1 < argc ? argv[++i] : "");
            char *end = NULL;
            a->repeat = strtol(v, &end, 10);
            if (!*v || *end || a->repeat < 1 || a->repeat > 100000000) {
                usage_error("exec: --repeat: a whole number from 1 expected, got '%s'", v);
                return EXIT_USAGE;
            }
            i++;
            continue;
        }
        struct sbx_error e;
        int rc = sbx_parse_option(&a->cfg, argc, argv, &i, &e);
        if (rc < 0) {
            usage_error("exec: %s", e.msg + strlen("sandbox: "));
            return EXIT_USAGE;
        }
        if (rc == 0) {
            if (arg[0] == '-') {
                usage_error("exec: %s: unknown option (see 'sbxbench exec --help')", arg);
                return EXIT_USAGE;
            }
            break;
        }
    }
    if (i >= argc) {
        usage_error("exec: no command given (see 'sbxbench exec --help')");
        return EXIT_USAGE;
    }
    struct sbx_error e;
    if (sbx_config_command(&a->cfg, argv + i, &e) < 0) {
        usage_error("exec: %s", e.msg + strlen("sandbox: "));
        return EXIT_USAGE;
    }
    return 0;
}

/* The signals a user sends a command: passed on to the sandbox's pid 1 (the init forwards them to
 * the command). A terminal's signals are not: the sandbox is in the terminal's process group and
 * got them itself. */
static void forwarded_signals(sigset_t *set)
{
    sigemptyset(set);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGALRM};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaddset(set, sigs[i]);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct outcome {
    int status; /* as reaped */
    bool timed_out;
    double reaped; /* monotonic seconds */
};

static int wait_sandbox(pid_t pid, int sigfd, double timeout, struct outcome *o)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    double deadline = timeout > 0 ? now_s() + timeout : 0;
    o->timed_out = false;
    while (pidfd >= 0) {
        int wait_ms = -1;
        if (deadline > 0) {
            double left = deadline - now_s();
            if (left <= 0) {
                o->timed_out = true;
                kill(pid, SIGKILL); /* pid 1: the whole namespace goes with it */
                break;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        struct pollfd p[2] = {{.fd = pidfd, .events = POLLIN}, {.fd = sigfd, .events = POLLIN}};
        int rc = poll(p, 2, wait_ms);
        if (rc < 0 && errno != EINTR)
            break;
        if (rc > 0 && p[0].revents)
            break;
        struct signalfd_siginfo si;
        if (rc > 0 && p[1].revents && read(sigfd, &si, sizeof si) == (ssize_t)sizeof si &&
            si.ssi_code != SI_KERNEL)
            kill(pid, (int)si.ssi_signo);
    }
    if (pidfd >= 0)
        close(pidfd);
    pid_t r;
    do
        r = waitpid(pid, &o->status, 0);
    while (r < 0 && errno == EINTR);
    o->reaped = now_s();
    return r == pid ? 0 : -1;
}

static void print_timings(const struct sbx *s, double started, double returned, double reaped)
{
    const char *names[32];
    double secs[32];
    size_t n = sbx_timings(s, names, secs, 32);
    double total = reaped - started;
    fprintf(stderr, "{\"steps_us\": {");
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s\"%s\": %.1f", i ? ", " : "", names[i], secs[i] * 1e6);
    fprintf(stderr, "%s\"run+exit+reap\": %.1f}, \"total_us\": %.1f}\n", n ? ", " : "",
            (reaped - returned) * 1e6, total * 1e6);
}

/* Ends this process the way the command ended: its exit code, or its signal, re-raised. */
static int pass_on(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (!WIFSIGNALED(status))
        return EXIT_SANDBOX;
    int sig = WTERMSIG(status);
    /* The command dumped its own core, if it did: ours would only mislead. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    return 128 + sig; /* a signal whose default is not to terminate */
}

int cmd_exec(int argc, char **argv)
{
    struct exec_args a;
    int rc = parse_exec_args(argc, argv, &a);
    if (rc) {
        sbx_config_free(&a.cfg);
        return rc == 1 ? 0 : rc;
    }
    struct sbx *s = NULL;
    struct sbx_error e;
    double prepare_start = now_s();
    rc = sbx_prepare(&a.cfg, &s, &e);
    if (rc == 0 && a.timings)
        fprintf(stderr, "{\"prepare_us\": %.1f}\n", (now_s() - prepare_start) * 1e6);
    double timeout = a.cfg.timeout;
    sbx_config_free(&a.cfg);
    if (rc < 0) {
        usage_error("%s", e.msg);
        return EXIT_SANDBOX;
    }
    sigset_t forward, saved;
    forwarded_signals(&forward);
    sigprocmask(SIG_BLOCK, &forward, &saved);
    int sigfd = signalfd(-1, &forward, SFD_CLOEXEC);
    struct sbx_stdio io = {0, 1, 2};
    int status = 0;
    bool timed_out = false;
    for (long run = 0; run < a.repeat; run++) {
        double started = now_s();
        pid_t pid = sbx_spawn(s, &io, &e);
        if (pid < 0) {
            usage_error("%s", e.msg);
            status = EXIT_SANDBOX << 8;
            break;
        }
        double returned = now_s();
        struct outcome o;
        if (wait_sandbox(pid, sigfd, timeout, &o) < 0) {
            usage_error("exec: waiting for the sandbox: %s", strerror(errno));
            status = EXIT_SANDBOX << 8;
            break;
        }
        if (a.timings)
            print_timings(s, started, returned, o.reaped);
        status = sbx_exit_status(s, o.status);
        timed_out = o.timed_out;
        if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            break;
    }
    if (sigfd >= 0)
        close(sigfd);
    sbx_free(s);
    sigprocmask(SIG_SETMASK, &saved, NULL);
    if (timed_out) {
        usage_error("exec: timed out after %g s; the sandbox was killed", timeout);
        return EXIT_TIMEOUT;
    }
    return pass_on(status);
}
