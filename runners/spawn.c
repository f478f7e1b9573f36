/* Starting a command for one sample, and small process helpers the runners share. */
#include "runners/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static char **job_envp(const struct runner_job *job)
{
    if (job->envp)
        return job->envp;
    if (job->action && job->action->envp)
        return job->action->envp;
    return environ;
}

/* The signals the harness catches; a child must start with them at their defaults. */
static void default_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGPIPE);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGALRM);
}

static pid_t spawn_posix(const struct runner_job *job, const struct stdio_fds *fds)
{
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t fa;
    sigset_t empty, defaults;
    sigemptyset(&empty);
    default_signals(&defaults);

    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setsigdefault(&attr, &defaults);

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds->in, 0);
    posix_spawn_file_actions_adddup2(&fa, fds->out, 1);
    posix_spawn_file_actions_adddup2(&fa, fds->err, 2);
    if (job->pass_fd > 2) /* dup2 onto itself clears FD_CLOEXEC: the command inherits it */
        posix_spawn_file_actions_adddup2(&fa, job->pass_fd, job->pass_fd);
    if (job->action && job->action->cwd)
        posix_spawn_file_actions_addchdir_np(&fa, job->action->cwd);

    pid_t pid = -1;
    int rc = job->use_path
                 ? posix_spawnp(&pid, job->path, &fa, &attr, job->argv, job_envp(job))
                 : posix_spawn(&pid, job->path, &fa, &attr, job->argv, job_envp(job));
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return pid;
}

static void child_setup_and_exec(const struct runner_job *job, const struct stdio_fds *fds)
{
    sigset_t set;
    default_signals(&set);
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&set, sig) == 1)
            signal(sig, SIG_DFL);
    sigemptyset(&set);
    sigprocmask(SIG_SETMASK, &set, NULL);
    setpgid(0, 0);
    if (dup2(fds->in, 0) < 0 || dup2(fds->out, 1) < 0 || dup2(fds->err, 2) < 0)
        _exit(125);
    if (job->pass_fd > 2 && fcntl(job->pass_fd, F_SETFD, 0) < 0)
        _exit(125);
    if (job->action && job->action->cwd && chdir(job->action->cwd) < 0)
        _exit(125);
    char **envp = job_envp(job);
    if (job->use_path)
        execvpe(job->path, job->argv, envp);
    else
        execve(job->path, job->argv, envp);
    _exit(errno == ENOENT ? 127 : 126);
}

static pid_t spawn_fork(const struct runner_job *job, const struct stdio_fds *fds)
{
    pid_t pid = fork();
    if (pid == 0)
        child_setup_and_exec(job, fds);
    return pid;
}

pid_t spawn_command(struct runner_job *job, const struct stdio_fds *fds)
{
    switch (job->opts ? job->opts->spawn : SPAWN_POSIX_SPAWN) {
    case SPAWN_FORK:
        return spawn_fork(job, fds);
    case SPAWN_POSIX_SPAWN:
    default:
        return spawn_posix(job, fds);
    }
}

void stop_with_grace(pid_t pid, int sig, double grace_s)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd >= 0 && kill(pid, sig) == 0) {
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        int left_ms = (int)(grace_s * 1000);
        /* A signal (the user's Ctrl-C) may cut the wait short: then it is over sooner. */
        poll(&p, 1, left_ms);
    }
    if (pidfd >= 0)
        close(pidfd);
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

char *find_program(const char *name)
{
    if (!name || !*name)
        return NULL;
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? realpath(name, NULL) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    char *dirs = strdup(path);
    if (!dirs)
        return NULL;
    char *found = NULL, *save = NULL;
    for (char *dir = strtok_r(dirs, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *candidate = NULL;
        if (asprintf(&candidate, "%s/%s", *dir ? dir : ".", name) < 0)
            break;
        struct stat st;
        if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && access(candidate, X_OK) == 0)
            found = candidate;
        else
            free(candidate);
    }
    free(dirs);
    return found;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads what the child writes until EOF or the deadline; keeps the first non-blank line. */
static void read_first_line(int fd, char *out, size_t outlen, double deadline)
{
    size_t used = 0;
    char scratch[512];
    for (;;) {
        int wait_ms = (int)((deadline - now_s()) * 1000);
        if (wait_ms <= 0)
            break;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, wait_ms) <= 0)
            break;
        char *dst = used + 1 < outlen ? out + used : scratch;
        size_t room = used + 1 < outlen ? outlen - used - 1 : sizeof scratch;
        ssize_t n = read(fd, dst, room);
        if (n <= 0)
            break;
        if (dst != scratch)
            used += (size_t)n;
    }
    if (outlen) {
        out[used < outlen ? used : outlen - 1] = '\0';
        /* Skip blank lines: some clients print an empty result before their error. */
        size_t blank = strspn(out, "\r\n");
        memmove(out, out + blank, strlen(out + blank) + 1);
        out[strcspn(out, "\r\n")] = '\0';
    }
}

int run_capture(char *const argv[], char *out, size_t outlen, double timeout_s)
{
    int pipefd[2];
    if (outlen)
        out[0] = '\0';
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return -1;
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    struct runner_job job = {.argv = (char **)argv, .path = argv[0], .use_path = true};
    struct stdio_fds fds = {.in = devnull, .out = pipefd[1], .err = pipefd[1]};
    pid_t pid = spawn_posix(&job, &fds);
    close(pipefd[1]);
    close(devnull);
    if (pid < 0) {
        close(pipefd[0]);
        return -1;
    }
    read_first_line(pipefd[0], out, outlen, now_s() + timeout_s);
    close(pipefd[0]);
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == 0) {
        /* Give it until the deadline to exit after closing its output, then stop it. */
        double deadline = now_s() + timeout_s;
        while (waitpid(pid, &status, WNOHANG) == 0) {
            if (now_s() > deadline) {
                kill(-pid, SIGKILL);
                waitpid(pid, &status, 0);
                return -1;
            }
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
