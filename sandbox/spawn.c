/* Spawning a prepared sandbox, and everything that runs in the child until it executes.
 *
 * sbx_spawn clones with CLONE_VM | CLONE_VFORK and every namespace: the child runs on a stack of
 * its own in the caller's memory while the caller waits, so no page table is copied, and it only
 * issues the syscalls the plan lists. It becomes the sandbox's pid 1. In the namespace and
 * filesystem layers it then executes the command. In the full layer it drops every privilege,
 * starts the command the same way (a second vfork-style clone) and executes the embedded init,
 * which is what releases the caller: from then on the sandbox and the caller share nothing.
 *
 * Built without AddressSanitizer: its instrumentation cannot follow a child on a foreign stack. */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/internal.h"

/* ------------------------------------------------------------------------------------------------
 * The child side. */

_Noreturn void child_fail(struct sbx *s, const char *step, const char *object, int errnum)
{
    /* strerrordesc_np: no translation, no allocation, no lock, unlike strerror. */
    const char *reason = strerrordesc_np(errnum);
    char line[1536];
    int n = snprintf(line, sizeof line, "%s: sandbox: %s%s%s: %s\n", s->program, step,
                     object ? ": " : "", object ? object : "", reason ? reason : "unknown error");
    if (n > 0 && write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0) {
        /* Nowhere left to say it; the exit status still does. */
    }
    _exit(SBX_EXIT_SETUP);
}

/* Puts io on 0, 1 and 2, moving any that sits on another's place out of the way first. */
static void child_stdio(struct sbx *s)
{
    int fds[3] = {s->run.io.in, s->run.io.out, s->run.io.err};
    for (int i = 0; i < 3; i++) {
        if (fds[i] < 3 && fds[i] != i) {
            fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
            if (fds[i] < 0)
                child_fail(s, "stdio", NULL, errno);
        }
    }
    for (int i = 0; i < 3; i++) {
        if (fds[i] == i) {
            if (fcntl(i, F_SETFD, 0) < 0)
                child_fail(s, "stdio", NULL, errno);
        } else if (dup2(fds[i], i) < 0) {
            child_fail(s, "stdio", NULL, errno);
        }
    }
}

/* What the command must not inherit from the caller: its signal handlers (an ignored SIGPIPE, say).
 * Signals stay blocked until just before execve. */
static void default_signal_dispositions(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction old;
        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &old) < 0)
            continue;
        if (old.sa_handler != SIG_DFL) {
            struct sigaction dfl = {.sa_handler = SIG_DFL};
            sigaction(sig, &dfl, NULL);
        }
    }
}

/* Executes the command, trying each candidate path as execvp would; never returns. Like a shell, a
 * command found but not executable gives 126, one not found anywhere 127. */
static _Noreturn void exec_command(struct sbx *s)
{
    default_signal_dispositions();
    if (close_range(3, ~0U, 0) < 0)
        child_fail(s, "close_range", NULL, errno);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    s->run.mark[MARK_EXEC] = sbx_now();
    int err = ENOENT;
    bool found = false;
    for (size_t i = 0; s->candidates[i]; i++) {
        execve(s->candidates[i], s->argv, s->envp);
        if (errno != ENOENT && errno != ENOTDIR) {
            err = errno;
            found = true;
        }
    }
    int code = found ? SBX_EXIT_NOT_EXECUTABLE : SBX_EXIT_NOT_FOUND;
    s->run.exec_failed = code;
    const char *reason = strerrordesc_np(err);
    char line[1024];
    int n = snprintf(line, sizeof line, "%s: exec: %s: %s\n", s->program, s->argv[0],
                     reason ? reason : "unknown error");
    if (n > 0 && write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0) {
        /* The exit code says it. */
    }
    _exit(code);
}

static char *stack_top(const struct sbx *s, int which)
{
    return s->stacks + (size_t)which * (SBX_GUARD_SIZE + s->stack_size) + SBX_GUARD_SIZE +
           s->stack_size;
}

static int command_main(void *arg)
{
    struct sbx *s = arg;
    s->run.mark[MARK_FORK] = sbx_now();
    exec_command(s);
}

/* The full layer, in pid 1 once everything is set up and the privileges are gone: start the
 * command (it inherits the dropped capabilities and the filter), then become the init. The init
 * gets the report memfd as fd 3 and nothing else but stderr; executed from an exec-only memfd, it
 * is undumpable from its first instruction: the command cannot ptrace it. */
static _Noreturn void run_under_init(struct sbx *s)
{
    pid_t command = clone(command_main, stack_top(s, 2), CLONE_VM | CLONE_VFORK | SIGCHLD, s);
    if (command < 0)
        child_fail(s, "clone command", NULL, errno);
    if (s->run.exec_failed)
        _exit(s->run.exec_failed); /* it said why; going takes it along */
    s->run.command_pid = command;
    s->run.mark[MARK_INIT] = sbx_now();
    int init_fd = s->init_fd;
    if (init_fd == 3 && (init_fd = fcntl(3, F_DUPFD_CLOEXEC, 4)) < 0)
        child_fail(s, "init", "fd", errno);
    if (s->report_fd == 3 ? fcntl(3, F_SETFD, 0) < 0 : dup2(s->report_fd, 3) < 0)
        child_fail(s, "init", "fd", errno);
    if (close_range(4, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
        child_fail(s, "close_range", NULL, errno);
    char pid_arg[16];
    snprintf(pid_arg, sizeof pid_arg, "%d", (int)command);
    char *argv[] = {"sbx-init", pid_arg, NULL}, *envp[] = {NULL};
    execveat(init_fd, "", argv, envp, AT_EMPTY_PATH);
    child_fail(s, "exec init", NULL, errno);
}

static int sandbox_main(void *arg)
{
    struct sbx *s = arg;
    s->run.mark[MARK_CHILD] = sbx_now();
    /* The sandbox goes if its launcher goes, even by SIGKILL. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        child_fail(s, "prctl", "PR_SET_PDEATHSIG", errno);
    if (s->new_process_group && setpgid(0, 0) < 0)
        child_fail(s, "setpgid", NULL, errno);
    if (s->layer == SBX_NAMESPACES)
        child_stdio(s); /* else done by the template's joiner, whose fds we copied */
    /* Entered at execve: a vfork-style child cannot switch clocks under its parent's feet. */
    if (s->unshare_time && unshare(CLONE_NEWTIME) < 0)
        child_fail(s, "unshare", "time namespace", errno);
    s->run.mark[MARK_UNSHARE] = sbx_now();
    child_write_maps(s);
    s->run.mark[MARK_MAPS] = sbx_now();
    if (s->layer >= SBX_FILESYSTEM) {
        child_set_hostname(s);
        const char *step = NULL;
        if (!s->share_net && child_loopback_up(&step) < 0)
            child_fail(s, step, NULL, errno);
        s->run.mark[MARK_UTS] = sbx_now();
        child_run_plan(s, &s->run_plan);
        s->run.mark[MARK_MOUNTS] = sbx_now();
    } else if (s->chdir && chdir(s->chdir) < 0) {
        child_fail(s, "chdir", s->chdir, errno);
    }
    if (s->layer == SBX_FULL) {
        child_drop_privileges(s);
        s->run.mark[MARK_PRIVS] = sbx_now();
        child_load_filter(s);
        s->run.mark[MARK_SECCOMP] = sbx_now();
        run_under_init(s);
    }
    exec_command(s);
}

/* The filesystem layers: the sandbox is cloned from inside the template's user and mount
 * namespaces, so that its mount namespace is a copy of the template's (and its user namespace a
 * child of the template's). This first child joins them, clones the sandbox's pid 1 as a child of
 * the caller (CLONE_PARENT), and goes once pid 1 has executed. */
static int template_joiner_main(void *arg)
{
    struct sbx *s = arg;
    child_stdio(s);
    if (setns(s->template_user_fd, CLONE_NEWUSER) < 0)
        child_fail(s, "setns", "template user namespace", errno);
    if (setns(s->template_mnt_fd, CLONE_NEWNS) < 0)
        child_fail(s, "setns", "template mount namespace", errno);
    s->run.mark[MARK_TEMPLATE] = sbx_now();
    pid_t pid =
        clone(sandbox_main, stack_top(s, 1), (int)s->clone_flags | CLONE_PARENT | SIGCHLD, s);
    if (pid < 0) {
        s->run.clone_errno = errno;
        _exit(SBX_EXIT_SETUP);
    }
    s->run.pid1 = pid;
    _exit(0);
}

/* ------------------------------------------------------------------------------------------------
 * The caller's side. */

pid_t sbx_spawn(struct sbx *s, const struct sbx_stdio *io, struct sbx_error *e)
{
    memset(&s->run, 0, sizeof s->run);
    s->run.io = *io;
    if (s->report)
        memset(s->report, 0, sizeof *s->report);
    /* The child starts with every signal blocked: none may run the caller's handlers on its memory.
     */
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    s->run.mark[MARK_CLONE] = sbx_now();
    pid_t pid;
    if (s->layer == SBX_NAMESPACES)
        pid = clone(sandbox_main, stack_top(s, 0), (int)s->clone_flags | SIGCHLD, s);
    else
        pid = clone(template_joiner_main, stack_top(s, 0), CLONE_VM | CLONE_VFORK | SIGCHLD, s);
    int err = errno;
    s->run.mark[MARK_RETURNED] = sbx_now();
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (pid < 0) {
        sbx_explain_clone(e, "clone", err);
        errno = err;
        return -1;
    }
    if (s->layer == SBX_NAMESPACES)
        return pid;
    /* The joiner has gone, or is going: reap it. If it got no pid 1 out, its failure is the
     * caller's to reap and report, like any sandbox's. */
    if (!s->run.pid1 && !s->run.clone_errno)
        return pid;
    while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
        ;
    if (s->run.clone_errno) {
        sbx_explain_clone(e, "clone", s->run.clone_errno);
        errno = s->run.clone_errno;
        return -1;
    }
    return s->run.pid1;
}
