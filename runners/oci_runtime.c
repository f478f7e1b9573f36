#include "runners/oci_runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runners/argvb.h"
#include "runners/command.h"
#include "runners/container_name.h"
#include "runners/oci_bundle.h"

extern char **environ;

#define CGROUP_ROOT "/sys/fs/cgroup"
#define CGROUP_UNIFIED "/sys/fs/cgroup/unified"
/* How long a delete of a stopped sample's container may take. */
#define STOP_TIMEOUT 10.0

struct oci_job {
    struct oci_runtime *rt;
    struct oci_bundle bundle;
    size_t id_index; /* job->argv[id_index] is the container id, renewed per sample */
};

/* Hybrid: a tmpfs of v1 hierarchies with the v2 one mounted at unified/. */
static bool cgroup_hybrid(void)
{
    struct statfs root, unified;
    return statfs(CGROUP_ROOT, &root) == 0 && root.f_type == TMPFS_MAGIC &&
           statfs(CGROUP_UNIFIED, &unified) == 0 && unified.f_type == CGROUP2_SUPER_MAGIC;
}

/* In the child: a mount namespace of its own, private so that nothing propagates back to the
 * host, without the v2 hierarchy. */
static int hide_cgroup2(const char **step)
{
    *step = "unshare(CLONE_NEWNS)";
    if (unshare(CLONE_NEWNS) < 0)
        return -1;
    *step = "making / private";
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return -1;
    *step = "umount " CGROUP_UNIFIED;
    return umount2(CGROUP_UNIFIED, MNT_DETACH);
}

/* The signals the harness catches start at their defaults in the child, as spawn_command does. */
static void reset_signals(void)
{
    static const int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD, SIGALRM};
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++)
        signal(caught[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

static void child_exec(const struct oci_runtime *rt, char **argv, const struct stdio_fds *fds)
{
    reset_signals();
    setpgid(0, 0);
    if (dup2(fds->in, 0) < 0 || dup2(fds->out, 1) < 0 || dup2(fds->err, 2) < 0)
        _exit(125);
    const char *step = NULL;
    if (rt->hide_cgroup2 && hide_cgroup2(&step) < 0) {
        dprintf(2, "sbxbench: %s: %s: %s\n", rt->name, step, strerror(errno));
        _exit(125);
    }
    execve(rt->program, argv, environ);
    _exit(errno == ENOENT ? 127 : 126);
}

static pid_t start(const struct oci_runtime *rt, char **argv, const struct stdio_fds *fds)
{
    pid_t pid = fork();
    if (pid == 0)
        child_exec(rt, argv, fds);
    return pid;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits for pid until the deadline; on timeout kills its process group. The exit status, or -1. */
static int wait_bounded(pid_t pid, double timeout)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    double deadline = now_s() + timeout;
    bool timed_out = false;
    while (pidfd >= 0) {
        int left_ms = (int)((deadline - now_s()) * 1000);
        if (left_ms <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        int rc = poll(&p, 1, left_ms);
        if (rc > 0 || (rc < 0 && errno != EINTR))
            break;
    }
    if (pidfd >= 0)
        close(pidfd);
    if (timed_out)
        kill(-pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (timed_out || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* Runs the runtime with argv to completion; the exit status (-1: did not start, timed out or
 * was killed) and the first non-blank line of its output. */
static int run_runtime(const struct oci_runtime *rt, char **argv, char *line, size_t linelen,
                       double timeout)
{
    line[0] = '\0';
    int out = memfd_create("sbxbench-oci", MFD_CLOEXEC);
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (out < 0 || devnull < 0) {
        snprintf(line, linelen, "capture file: %s", strerror(errno));
        if (out >= 0)
            close(out);
        if (devnull >= 0)
            close(devnull);
        return -1;
    }
    struct stdio_fds fds = {devnull, out, out};
    pid_t pid = start(rt, argv, &fds);
    int rc = pid < 0 ? -1 : wait_bounded(pid, timeout);
    ssize_t n = pread(out, line, linelen - 1, 0);
    line[n > 0 ? n : 0] = '\0';
    size_t blank = strspn(line, "\r\n");
    memmove(line, line + blank, strlen(line + blank) + 1);
    line[strcspn(line, "\r\n")] = '\0';
    close(out);
    close(devnull);
    return rc;
}

static void delete_container(const struct oci_runtime *rt, const char *id)
{
    char *argv[] = {rt->program, "delete", "--force", (char *)id, NULL};
    char line[256];
    run_runtime(rt, argv, line, sizeof line, STOP_TIMEOUT);
}

int oci_prepare(struct oci_runtime *rt, struct runner_job *job, struct errbuf *eb)
{
    if (!rt->ready) {
        char why[512];
        if (!oci_available(rt, job->opts, why, sizeof why))
            return err_msg(eb, "%s", why);
    }
    struct oci_job *oj = calloc(1, sizeof *oj);
    if (!oj)
        return err_sys(eb, "prepare", rt->name, ENOMEM);
    if (oci_bundle_create(job->opts ? job->opts->cache_dir : NULL, rt->name, job->action,
                          &oj->bundle, eb) < 0) {
        free(oj);
        return -1;
    }
    char *id = container_name_new();
    struct argvb b = {0};
    argvb_add(&b, rt->program);
    argvb_add(&b, "run");
    argvb_add(&b, "--bundle");
    argvb_add(&b, oj->bundle.dir);
    oj->id_index = strv_len(b.v);
    argvb_add(&b, id ? id : "");
    bool named = id != NULL;
    free(id);
    job->argv = argvb_finish(&b);
    /* The runtime runs with the harness's environment; the action's is in config.json. */
    job->envp = job->argv && named ? strv_dup(environ) : NULL;
    if (!job->envp) {
        oci_bundle_remove(&oj->bundle);
        free(oj);
        return err_sys(eb, "prepare", rt->name, ENOMEM);
    }
    job->path = job->argv[0];
    oj->rt = rt;
    job->priv = oj;
    if (rt->hide_cgroup2)
        job->note = "run in a private mount namespace with " CGROUP_UNIFIED
                    " unmounted, which this host's hybrid cgroups need; that step is inside the "
                    "timed window (about 0.16 ms)";
    return 0;
}

pid_t oci_spawn(struct runner_job *job, const struct stdio_fds *fds)
{
    struct oci_job *oj = job->priv;
    container_name_next(job->argv[oj->id_index]);
    if (!oj->rt->hide_cgroup2)
        return spawn_command(job, fds);
    return start(oj->rt, job->argv, fds);
}

void oci_kill(struct runner_job *job, pid_t pid)
{
    struct oci_job *oj = job->priv;
    /* The container's init is the runtime's child but not in its process group: the runtime
     * stops it; then the runtime itself goes. */
    delete_container(oj->rt, job->argv[oj->id_index]);
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

void oci_cleanup(struct runner_job *job)
{
    struct oci_job *oj = job->priv;
    if (!oj)
        return;
    oci_bundle_remove(&oj->bundle);
    free(oj);
    job->priv = NULL;
}

/* One container running true(1) from a bundle of its own, as a sample would. */
static int probe(struct oci_runtime *rt, const struct runner_options *opts, char *line,
                 size_t linelen)
{
    char *true_argv[] = {(char *)true_path(), NULL};
    struct action action = {.argv = true_argv, .name = "true"};
    bool was_ready = rt->ready;
    rt->ready = true; /* oci_prepare must not probe again */
    struct runner_job job = {.opts = opts, .action = &action};
    struct errbuf eb = {{0}};
    int rc = oci_prepare(rt, &job, &eb);
    rt->ready = was_ready;
    if (rc < 0) {
        snprintf(line, linelen, "%s", eb.msg);
        return -1;
    }
    struct oci_job *oj = job.priv;
    container_name_next(job.argv[oj->id_index]);
    rc = run_runtime(rt, job.argv, line, linelen, opts && opts->timeout > 0 ? opts->timeout : 60);
    if (rc != 0)
        delete_container(rt, job.argv[oj->id_index]);
    oci_cleanup(&job);
    strv_free(job.argv);
    strv_free(job.envp);
    return rc;
}

bool oci_available(struct oci_runtime *rt, const struct runner_options *opts, char *why,
                   size_t whylen)
{
    rt->ready = rt->hide_cgroup2 = false;
    free(rt->program);
    if (!(rt->program = find_program(rt->name))) {
        snprintf(why, whylen, "%s not installed (not found in PATH)", rt->name);
        return false;
    }
    if (geteuid() != 0) {
        snprintf(why, whylen,
                 "%s needs root here: sbxbench makes rootful bundles only (running as "
                 "uid %u)",
                 rt->name, (unsigned)geteuid());
        return false;
    }
    char plain[512], hidden[512];
    if (probe(rt, opts, plain, sizeof plain) == 0)
        return rt->ready = true;
    if (cgroup_hybrid()) {
        rt->hide_cgroup2 = true;
        if (probe(rt, opts, hidden, sizeof hidden) == 0)
            return rt->ready = true;
        rt->hide_cgroup2 = false;
        snprintf(why, whylen, "%s fails here: %s; also with the cgroup2 hierarchy hidden: %s",
                 rt->name, plain[0] ? plain : "no message", hidden[0] ? hidden : "no message");
        return false;
    }
    snprintf(why, whylen, "%s fails here: %s", rt->name, plain[0] ? plain : "no message");
    return false;
}
