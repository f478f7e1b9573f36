/* sbx-action: runs one workload action that is a pipeline or has redirections, inside whatever
 * mechanism runs it (see pipeline_args.h for the argument form).
 *
 * It runs inside the timed region, so it does only what a shell would: open the files, make the
 * pipes, posix_spawn each stage (a vfork-style clone, no page-table copy), wait for all. Its exit
 * status is pipefail's: that of the rightmost stage that failed, so that any failing stage fails
 * the sample. A stage killed by a signal kills sbx-action by the same signal where it can (not as a
 * namespace's init, which the kernel protects); otherwise it exits 128 + the signal, as shells do.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/pipeline_args.h"

extern char **environ;

#define MAX_STAGES 64

static void usage(const char *why)
{
    fprintf(stderr,
            "sbx-action: %s\n"
            "usage: sbx-action N ARG1..ARGN [< F | > F | >> F | 2> F | 2>> F | 2>&1]... "
            "['|' N ARG1..ARGN [...]]...\n",
            why);
}

static int open_flags(enum pl_redir_kind kind)
{
    switch (kind) {
    case PL_IN:
        return O_RDONLY;
    case PL_OUT:
    case PL_ERR:
        return O_WRONLY | O_CREAT | O_TRUNC;
    case PL_APPEND:
    case PL_ERR_APPEND:
        return O_WRONLY | O_CREAT | O_APPEND;
    case PL_ERR_TO_OUT:
    default:
        return -1;
    }
}

/* Opens every redirection's file before any stage starts, so that a missing input is reported as
 * such rather than as a failure to start the program. fds[s][r] is the descriptor of stage s's r-th
 * redirection (-1 for 2>&1). */
static int open_redirections(const struct pl_pipeline *p, int **fds)
{
    for (size_t s = 0; s < p->n_stages; s++) {
        const struct pl_stage *st = &p->stages[s];
        for (size_t r = 0; r < st->n_redirs; r++) {
            fds[s][r] = -1;
            if (st->redirs[r].kind == PL_ERR_TO_OUT)
                continue;
            fds[s][r] = open(st->redirs[r].path, open_flags(st->redirs[r].kind) | O_CLOEXEC, 0666);
            if (fds[s][r] < 0) {
                fprintf(stderr, "sbx-action: %s %s: %s\n", pl_redir_op(st->redirs[r].kind),
                        st->redirs[r].path, strerror(errno));
                return -1;
            }
        }
    }
    return 0;
}

/* Starts stage st with in/out as its pipe ends (-1: inherited), then its redirections. */
static pid_t start_stage(const struct pl_stage *st, const int *redir_fds, int in, int out)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (in >= 0)
        posix_spawn_file_actions_adddup2(&fa, in, 0);
    if (out >= 0)
        posix_spawn_file_actions_adddup2(&fa, out, 1);
    for (size_t r = 0; r < st->n_redirs; r++) {
        if (st->redirs[r].kind == PL_ERR_TO_OUT)
            posix_spawn_file_actions_adddup2(&fa, 1, 2);
        else
            posix_spawn_file_actions_adddup2(&fa, redir_fds[r],
                                             pl_redir_target_fd(st->redirs[r].kind));
    }
    pid_t pid = -1;
    const char *prog = st->argv[0];
    int rc = strchr(prog, '/') ? posix_spawn(&pid, prog, &fa, NULL, st->argv, environ)
                               : posix_spawnp(&pid, prog, &fa, NULL, st->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "sbx-action: %s: %s\n", prog, strerror(rc));
        errno = rc;
        return -1;
    }
    return pid;
}

/* The wait status a shell would give a stage that could not start. */
static int not_started_status(int err)
{
    return (err == ENOENT ? 127 : 126) << 8;
}

static int start_all(const struct pl_pipeline *p, int **redir_fds, pid_t *pids, int *status)
{
    int prev_read = -1;
    for (size_t s = 0; s < p->n_stages; s++) {
        int pipefd[2] = {-1, -1};
        if (s + 1 < p->n_stages && pipe2(pipefd, O_CLOEXEC) < 0) {
            fprintf(stderr, "sbx-action: pipe: %s\n", strerror(errno));
            return -1;
        }
        pids[s] = start_stage(&p->stages[s], redir_fds[s], prev_read, pipefd[1]);
        if (pids[s] < 0)
            status[s] = not_started_status(errno);
        if (prev_read >= 0)
            close(prev_read);
        if (pipefd[1] >= 0)
            close(pipefd[1]);
        prev_read = pipefd[0];
    }
    return 0;
}

static void wait_all(const struct pl_pipeline *p, const pid_t *pids, int *status)
{
    for (size_t s = 0; s < p->n_stages; s++) {
        if (pids[s] <= 0)
            continue;
        while (waitpid(pids[s], &status[s], 0) < 0) {
            if (errno != EINTR) {
                status[s] = 125 << 8;
                break;
            }
        }
    }
}

/* pipefail: the rightmost stage that did not exit 0 decides. */
static int finish(const struct pl_pipeline *p, const int *status)
{
    for (size_t s = p->n_stages; s-- > 0;) {
        int st = status[s];
        if (WIFSIGNALED(st)) {
            int sig = WTERMSIG(st);
            signal(sig, SIG_DFL);
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, sig);
            sigprocmask(SIG_UNBLOCK, &set, NULL);
            raise(sig);
            return 128 + sig;
        }
        if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
            return WEXITSTATUS(st);
    }
    return 0;
}

static int run(const struct pl_pipeline *p, int **redir_fds)
{
    pid_t pids[MAX_STAGES];
    int status[MAX_STAGES];
    for (size_t s = 0; s < p->n_stages; s++) {
        pids[s] = 0;
        status[s] = 0;
    }
    if (open_redirections(p, redir_fds) < 0)
        return 1;
    int rc = start_all(p, redir_fds, pids, status);
    wait_all(p, pids, status);
    return rc < 0 ? 125 : finish(p, status);
}

int main(int argc, char **argv)
{
    struct pl_pipeline p;
    char why[512];
    if (argc < 2 || pl_decode((size_t)argc - 1, argv + 1, &p, why, sizeof why) < 0) {
        usage(argc < 2 ? "no command" : why);
        return 2;
    }
    if (p.n_stages > MAX_STAGES) {
        usage("too many commands in the pipeline");
        pl_free(&p);
        return 2;
    }
    int *redir_fds[MAX_STAGES] = {0};
    int rc = 0;
    for (size_t s = 0; s < p.n_stages && rc == 0; s++) {
        size_t n = p.stages[s].n_redirs;
        redir_fds[s] = calloc(n ? n : 1, sizeof **redir_fds);
        if (!redir_fds[s]) {
            fprintf(stderr, "sbx-action: %s\n", strerror(ENOMEM));
            rc = 125;
        }
    }
    if (rc == 0)
        rc = run(&p, redir_fds);
    for (size_t s = 0; s < p.n_stages; s++)
        free(redir_fds[s]);
    pl_free(&p);
    return rc;
}
