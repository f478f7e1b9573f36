/* process-path: the command looked up in PATH on every run, as `make` or a shell does.
 *
 * --path-dirs N puts N directories that do not exist in front of PATH: a Nix shell's PATH holds
 * dozens of store paths, and every lookup stats each in turn before it finds the binary. */
#include "runners/runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

struct path_state {
    char **envp;
};

static bool process_path_available(const struct runner_options *opts, char *why, size_t whylen)
{
    (void)opts, (void)why, (void)whylen;
    return true;
}

static bool in_path(const char *path, const char *dir, size_t dir_len)
{
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        if (n == dir_len && strncmp(p, dir, n) == 0)
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

/* The missing directories, the host's PATH, and last the directory of the action's program when
 * PATH lacks it (sbxbench's own helpers live in build/): the lookup crosses every entry, as it
 * would for a tool installed last in PATH, and finds the program the other mechanisms run. */
static char *long_path(int missing_dirs, const char *program)
{
    const char *host = getenv("PATH");
    if (!host || !*host)
        host = "/usr/local/bin:/usr/bin:/bin";
    const char *slash = program ? strrchr(program, '/') : NULL;
    size_t dir_len = slash && program[0] == '/' ? (size_t)(slash - program) : 0;
    if (dir_len && in_path(host, program, dir_len))
        dir_len = 0;
    size_t len = strlen(host) + 2 + dir_len + (size_t)missing_dirs * 40;
    char *path = malloc(len);
    if (!path)
        return NULL;
    char *p = path;
    for (int i = 0; i < missing_dirs; i++)
        p += sprintf(p, "/nonexistent/sbxbench-path-%04d/bin:", i);
    p = stpcpy(p, host);
    if (dir_len)
        sprintf(p, ":%.*s", (int)dir_len, program);
    return path;
}

/* The action's environment with PATH replaced. */
static char **env_with_path(char *const *base, const char *path)
{
    char **env = strv_new();
    if (!env || strv_pushf(&env, "PATH=%s", path) < 0)
        goto fail;
    for (size_t i = 0; base && base[i]; i++)
        if (strncmp(base[i], "PATH=", 5) != 0 && strv_push(&env, base[i]) < 0)
            goto fail;
    return env;
fail:
    strv_free(env);
    return NULL;
}

static int process_path_prepare(struct runner_job *job, struct errbuf *eb)
{
    const struct action *a = job->action;
    char *path = long_path(job->opts->path_dirs, a->argv[0]);
    job->envp = path ? env_with_path(a->envp ? a->envp : environ, path) : NULL;
    free(path);
    job->argv = strv_dup(a->argv);
    if (!job->envp || !job->argv)
        return err_sys(eb, "prepare", "process-path", ENOMEM);
    /* argv[0] as the user typed it, and the name is what gets looked up. */
    free(job->argv[0]);
    job->argv[0] = strdup(a->name ? a->name : a->argv[0]);
    if (!job->argv[0])
        return err_sys(eb, "prepare", "process-path", ENOMEM);
    job->path = job->argv[0];
    job->use_path = true;
    return 0;
}

/* glibc's posix_spawnp and execvpe search the caller's PATH, not the one in envp: point environ at
 * the job's environment for the length of the call. The harness is single-threaded. */
static pid_t process_path_spawn(struct runner_job *job, const struct stdio_fds *fds)
{
    char **saved = environ;
    environ = job->envp;
    pid_t pid = spawn_command(job, fds);
    int saved_errno = errno;
    environ = saved;
    errno = saved_errno;
    return pid;
}

const struct runner runner_process_path = {
    .name = "process-path",
    .summary = "plain process, command looked up in PATH (execvp), --path-dirs to lengthen PATH",
    .family = "process",
    .available = process_path_available,
    .prepare = process_path_prepare,
    .spawn = process_path_spawn,
};
