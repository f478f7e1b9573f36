/* inproc, inproc-fs, inproc-ns: sbxbench's own in-process sandbox (libsbx), layer by layer, so that
 * a report reads what the namespaces, the filesystem and the privilege drop each cost.
 *
 * prepare builds the whole sandbox once (mount plan, seccomp program, candidate paths); spawn is
 * libsbx's vfork-style clone and returns the sandbox's pid 1. */
#include "runners/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runners/command.h"
#include "sandbox/sbx.h"

/* The sandbox of one action: the action's paths bound in, its directory and environment. */
static int action_config(struct sbx_config *c, const struct action *a, enum sbx_layer layer,
                         const struct runner_options *opts, struct sbx_error *e)
{
    sbx_config_init(c);
    c->layer = layer;
    c->new_process_group = true;
    for (size_t i = 0; i < a->n_ro_paths; i++)
        if (sbx_config_add_bind(c, a->ro_paths[i], NULL, false, e) < 0)
            return -1;
    for (size_t i = 0; i < a->n_rw_paths; i++)
        if (sbx_config_add_bind(c, a->rw_paths[i], NULL, true, e) < 0)
            return -1;
    if (a->cwd && sbx_config_string(&c->chdir, a->cwd, e) < 0)
        return -1;
    if (a->envp) {
        c->clearenv = true;
        for (size_t i = 0; a->envp[i]; i++)
            if (sbx_config_setenv(c, a->envp[i], e) < 0)
                return -1;
    }
    if (layer == SBX_FULL && opts && opts->seccomp &&
        sbx_config_string(&c->seccomp, opts->seccomp, e) < 0)
        return -1;
    return sbx_config_command(c, a->argv, e);
}

/* What ran, as a command a user can paste: sbxbench exec OPTIONS -- ARGV. */
static char **exec_argv(const struct sbx_config *c)
{
    char **options = sbx_config_format(c);
    char **argv = strv_new();
    bool ok = options && argv && strv_push(&argv, "sbxbench") == 0 &&
              strv_push(&argv, "exec") == 0 && strv_extend(&argv, options) == 0 &&
              strv_push(&argv, "--") == 0 && strv_extend(&argv, c->argv) == 0;
    strv_free(options);
    if (!ok) {
        strv_free(argv);
        return NULL;
    }
    return argv;
}

static int prepare_layer(struct runner_job *job, enum sbx_layer layer, struct errbuf *eb)
{
    struct sbx_config c;
    struct sbx_error e = {{0}};
    struct sbx *s = NULL;
    int rc = action_config(&c, job->action, layer, job->opts, &e);
    if (rc == 0)
        rc = sbx_prepare(&c, &s, &e);
    if (rc == 0 && !(job->argv = exec_argv(&c))) {
        sbx_free(s);
        rc = -1;
        snprintf(e.msg, sizeof e.msg, "prepare: out of memory");
    }
    sbx_config_free(&c);
    if (rc < 0)
        return err_msg(eb, "%s", e.msg);
    job->path = job->action->argv[0];
    job->priv = s;
    return 0;
}

static int inproc_prepare(struct runner_job *job, struct errbuf *eb)
{
    return prepare_layer(job, SBX_FULL, eb);
}

static int inproc_fs_prepare(struct runner_job *job, struct errbuf *eb)
{
    return prepare_layer(job, SBX_FILESYSTEM, eb);
}

static int inproc_ns_prepare(struct runner_job *job, struct errbuf *eb)
{
    return prepare_layer(job, SBX_NAMESPACES, eb);
}

static pid_t inproc_spawn(struct runner_job *job, const struct stdio_fds *fds)
{
    struct sbx_stdio io = {fds->in, fds->out, fds->err};
    struct sbx_error e;
    return sbx_spawn(job->priv, &io, &e);
}

static int inproc_exit_status(struct runner_job *job, int reaped_status)
{
    return sbx_exit_status(job->priv, reaped_status);
}

static size_t inproc_steps(struct runner_job *job, const char **names, double *seconds, size_t max)
{
    return sbx_timings(job->priv, names, seconds, max);
}

static void inproc_cleanup(struct runner_job *job)
{
    sbx_free(job->priv);
    job->priv = NULL;
}

/* Available when the layer really runs true(1) here: user namespaces, mounts and all. */
static bool layer_available(const struct runner_options *opts, enum sbx_layer layer, char *why,
                            size_t whylen)
{
    char *argv[] = {(char *)true_path(), NULL};
    struct action a = {.argv = argv, .name = "true"};
    struct sbx_config c;
    sbx_config_init(&c);
    struct sbx_error e = {{0}};
    struct sbx *s = NULL;
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    bool ok =
        devnull >= 0 && action_config(&c, &a, layer, opts, &e) == 0 && sbx_prepare(&c, &s, &e) == 0;
    sbx_config_free(&c);
    if (ok) {
        /* Its complaint, if any, goes to a pipe, to be quoted. */
        int pipefd[2] = {-1, -1};
        ok = pipe2(pipefd, O_CLOEXEC) == 0;
        struct sbx_stdio io = {devnull, devnull, ok ? pipefd[1] : devnull};
        pid_t pid = ok ? sbx_spawn(s, &io, &e) : -1;
        if (pipefd[1] >= 0)
            close(pipefd[1]);
        int status = 0;
        ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(sbx_exit_status(s, status)) &&
             WEXITSTATUS(sbx_exit_status(s, status)) == 0;
        if (!ok && pid > 0) {
            ssize_t n = read(pipefd[0], e.msg, sizeof e.msg - 1);
            e.msg[n > 0 ? n : 0] = '\0';
            e.msg[strcspn(e.msg, "\n")] = '\0';
            if (!e.msg[0])
                snprintf(e.msg, sizeof e.msg, "the sandbox exited with status %d", status);
        }
        if (pipefd[0] >= 0)
            close(pipefd[0]);
    }
    if (devnull >= 0)
        close(devnull);
    sbx_free(s);
    if (!ok)
        snprintf(why, whylen, "%s", e.msg[0] ? e.msg : "the sandbox does not start here");
    return ok;
}

static bool inproc_available(const struct runner_options *opts, char *why, size_t whylen)
{
    return layer_available(opts, SBX_FULL, why, whylen);
}

static bool inproc_fs_available(const struct runner_options *opts, char *why, size_t whylen)
{
    return layer_available(opts, SBX_FILESYSTEM, why, whylen);
}

static bool inproc_ns_available(const struct runner_options *opts, char *why, size_t whylen)
{
    return layer_available(opts, SBX_NAMESPACES, why, whylen);
}

const struct runner runner_inproc_ns = {
    .name = "inproc-ns",
    .summary = "libsbx, namespaces only: new user, mount, pid, ipc, uts, net, cgroup, time; exec",
    .family = "namespace",
    .available = inproc_ns_available,
    .prepare = inproc_ns_prepare,
    .spawn = inproc_spawn,
    .exit_status = inproc_exit_status,
    .steps = inproc_steps,
    .cleanup = inproc_cleanup,
};

const struct runner runner_inproc_fs = {
    .name = "inproc-fs",
    .summary = "libsbx, + tmpfs root, read-only system binds, /proc, /dev, pivot_root",
    .family = "namespace",
    .available = inproc_fs_available,
    .prepare = inproc_fs_prepare,
    .spawn = inproc_spawn,
    .exit_status = inproc_exit_status,
    .steps = inproc_steps,
    .cleanup = inproc_cleanup,
};

const struct runner runner_inproc = {
    .name = "inproc",
    .summary = "libsbx, the full sandbox: + capabilities dropped, no_new_privs, seccomp, an init",
    .family = "namespace",
    .available = inproc_available,
    .prepare = inproc_prepare,
    .spawn = inproc_spawn,
    .exit_status = inproc_exit_status,
    .steps = inproc_steps,
    .cleanup = inproc_cleanup,
};
