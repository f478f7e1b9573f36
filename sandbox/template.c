/* The template: the sandbox's filesystem, built once per prepared sandbox in namespaces of its own
 * and kept alive by two descriptors (its user and mount namespaces), so that a run only copies it.
 *
 * A helper process, pid 1 of a new pid namespace in new user and mount namespaces, runs the
 * template plan (plan.c), says so on a pipe and waits; the caller opens the helper's namespaces
 * through /proc and lets it go. The helper's proc mount shows its pid namespace, empty once it has
 * gone. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/internal.h"

static const char ready[] = "ready\n";

struct helper_args {
    struct sbx *s;
    int report_fd;    /* the helper's stderr: its error message, or "ready" */
    int wait_fd;      /* read until the caller closes the other end */
    int close_fds[2]; /* the caller's ends, which the helper's copy of the fd table holds too */
};

static int template_main(void *arg)
{
    struct helper_args *a = arg;
    struct sbx *s = a->s;
    close(a->close_fds[0]);
    close(a->close_fds[1]);
    if (dup2(a->report_fd, 2) < 0)
        _exit(SBX_EXIT_SETUP);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        child_fail(s, "prctl", "PR_SET_PDEATHSIG", errno);
    write_setgroups_deny(s);
    child_write_maps(s);
    child_run_plan(s, &s->template_plan);
    if (write(2, ready, sizeof ready - 1) != (ssize_t)(sizeof ready - 1))
        _exit(SBX_EXIT_SETUP);
    char c;
    while (read(a->wait_fd, &c, 1) < 0 && errno == EINTR)
        ;
    _exit(0);
}

/* Reads what the helper says: "ready", or the message it failed with. */
static void read_report(int fd, char *buf, size_t len)
{
    size_t used = 0;
    while (used + 1 < len) {
        ssize_t n = read(fd, buf + used, len - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
        if (memchr(buf, '\n', used))
            break;
    }
    buf[used] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

static int open_ns(pid_t pid, const char *name, struct sbx_error *e)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        sbx_err(e, "template: open", path, errno);
    return fd;
}

int template_create(struct sbx *s, struct sbx_error *e)
{
    int report[2], hold[2];
    if (pipe2(report, O_CLOEXEC) < 0)
        return sbx_err(e, "template: pipe", NULL, errno);
    if (pipe2(hold, O_CLOEXEC) < 0) {
        close(report[0]);
        close(report[1]);
        return sbx_err(e, "template: pipe", NULL, errno);
    }
    struct helper_args a = {s, report[1], hold[0], {report[0], hold[1]}};
    /* Not vfork-style: the helper outlives this call's stack frame while it waits. */
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    char *stack = s->stacks + SBX_GUARD_SIZE + s->stack_size;
    pid_t pid =
        clone(template_main, stack, CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | SIGCHLD, &a);
    int err = errno;
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    close(report[1]);
    close(hold[0]);
    int rc = 0;
    if (pid < 0) {
        sbx_explain_clone(e, "template: clone", err);
        rc = -1;
    } else {
        char said[1024];
        read_report(report[0], said, sizeof said);
        if (strcmp(said, "ready") != 0) {
            const char *msg = strstr(said, "sandbox: ");
            rc = sbx_errf(e, "%s",
                          msg       ? msg + strlen("sandbox: ")
                          : said[0] ? said
                                    : "template: the helper died");
        } else if ((s->template_user_fd = open_ns(pid, "user", e)) < 0 ||
                   (s->template_mnt_fd = open_ns(pid, "mnt", e)) < 0) {
            rc = -1;
        }
    }
    close(hold[1]); /* the helper may go */
    close(report[0]);
    if (pid > 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    return rc;
}
