/* bwrap and bwrap-unshare: bubblewrap with the host's root bound read-only, without and with new
 * namespaces: the two configurations of the published sandboxing table. */
#include "runners/command.h"

#include <errno.h>

/* The action's writable paths are bound read-write over the read-only root. */
static int bwrap_prepare_with(struct runner_job *job, bool unshare_all, struct errbuf *eb)
{
    const struct action *a = job->action;
    char **prefix = strv_new();
    int rc = -1;
    if (!prefix)
        goto oom;
    if (unshare_all && strv_push(&prefix, "--unshare-all") < 0)
        goto oom;
    if (strv_push(&prefix, "--ro-bind") < 0 || strv_push(&prefix, "/") < 0 ||
        strv_push(&prefix, "/") < 0)
        goto oom;
    for (size_t i = 0; i < a->n_rw_paths; i++) {
        if (strv_push(&prefix, "--bind") < 0 || strv_push(&prefix, a->rw_paths[i]) < 0 ||
            strv_push(&prefix, a->rw_paths[i]) < 0)
            goto oom;
    }
    if (a->cwd && (strv_push(&prefix, "--chdir") < 0 || strv_push(&prefix, a->cwd) < 0))
        goto oom;
    rc = command_job(job, "bwrap", prefix, a->argv, eb);
    strv_free(prefix);
    return rc;
oom:
    strv_free(prefix);
    return err_sys(eb, "prepare", "bwrap", ENOMEM);
}

static int bwrap_prepare(struct runner_job *job, struct errbuf *eb)
{
    return bwrap_prepare_with(job, false, eb);
}

static int bwrap_unshare_prepare(struct runner_job *job, struct errbuf *eb)
{
    return bwrap_prepare_with(job, true, eb);
}

static bool bwrap_available(const struct runner_options *opts, char *why, size_t whylen)
{
    (void)opts;
    char *const args[] = {"--ro-bind", "/", "/", NULL};
    return command_probe("bwrap", args, why, whylen);
}

static bool bwrap_unshare_available(const struct runner_options *opts, char *why, size_t whylen)
{
    (void)opts;
    char *const args[] = {"--unshare-all", "--ro-bind", "/", "/", NULL};
    return command_probe("bwrap", args, why, whylen);
}

const struct runner runner_bwrap = {
    .name = "bwrap",
    .summary = "bwrap --ro-bind / / CMD",
    .family = "namespace",
    .available = bwrap_available,
    .prepare = bwrap_prepare,
    .spawn = spawn_command,
};

const struct runner runner_bwrap_unshare = {
    .name = "bwrap-unshare",
    .summary = "bwrap --unshare-all --ro-bind / / CMD (new user, ipc, pid, net, uts, cgroup namespaces)",
    .family = "namespace",
    .available = bwrap_unshare_available,
    .prepare = bwrap_unshare_prepare,
    .spawn = spawn_command,
};
