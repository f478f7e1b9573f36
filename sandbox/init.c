/* sbx-init: pid 1 of a full sandbox. Built static and embedded in libsbx, which executes it from a
 * memfd once the command is running; it never touches the filesystem.
 *
 *   sbx-init PID     PID: the command, as the sandbox numbers it; fd 3: where to report
 *
 * It reaps every orphan, forwards the signals it is sent to the command, and when the command is
 * gone writes the command's wait status to fd 3 and exits with the shell's rendering of it (the code,
 * or 128 + the signal): pid 1 cannot die of most signals, so the launcher reads fd 3's report to pass
 * a death by signal on. Its exit takes every other process of the sandbox with it. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define REPORT_FD 3
#define REPORT_MAGIC 0x53425831u /* matches INIT_REPORT_MAGIC in internal.h */

static _Noreturn void finish(int status)
{
    struct {
        uint32_t magic;
        int32_t status;
    } report = {REPORT_MAGIC, status};
    if (pwrite(REPORT_FD, &report, sizeof report, 0) != (ssize_t)sizeof report) {
        /* The launcher then sees only the exit code below, which is still right for a normal exit. */
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

int main(int argc, char **argv)
{
    /* Not dumpable: the command, same uid or not, cannot ptrace the init or read its memory. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    close(0);
    close(1);
    char *end = NULL;
    long command = argc > 1 ? strtol(argv[1], &end, 10) : 0;
    if (command <= 0 || !end || *end)
        _exit(125);

    /* Every signal stays blocked (the launcher blocked them before exec), so sigwaitinfo takes them
     * all; a blocked signal reaches pid 1 even without a handler. */
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    for (;;) {
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG | __WALL)) > 0)
            if (pid == command)
                finish(status);
        if (pid < 0 && errno == ECHILD)
            _exit(125); /* the command is not our child: cannot happen, but never spin */
        siginfo_t info;
        int sig = sigwaitinfo(&all, &info);
        if (sig <= 0 || sig == SIGCHLD)
            continue;
        /* A terminal's signals (SI_KERNEL) went to the command's process group already. */
        if (info.si_code == SI_KERNEL)
            continue;
        kill((pid_t)command, sig);
    }
}
