/* bwrap and bwrap-unshare: bubblewrap with the host's root bound read-only, without and with new
 * namespaces: the two configurations of the published sandboxing table.
 *
 * Inputs (docs/scaling.md): with root staging, one more --ro-bind of the inputs' root; per file, a
 * tmpfs over the root and one --ro-bind per input. That list can be far longer than an argv may be,
 * so it goes through --args FD: a memfd written once and rewound before each sample. */
#include "runners/command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct bwrap_state {
    int args_fd; /* the memfd bwrap reads its per-file binds from; -1: none */
};

static int write_all(int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        s += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Writes each argument followed by its NUL, as --args reads them. */
static int write_arg(int fd, const char *s)
{
    return write_all(fd, s, strlen(s) + 1);
}

/* --tmpfs ROOT, then --ro-bind ROOT/IN ROOT/IN for each input, into a new memfd. */
static int per_file_args(const struct action *a, struct errbuf *eb)
{
    int fd = memfd_create("sbxbench-bwrap-args", MFD_CLOEXEC);
    if (fd < 0)
        return err_sys(eb, "prepare: bwrap arguments", "memfd", errno);
    int rc = write_arg(fd, "--tmpfs") < 0 || write_arg(fd, a->inputs_root) < 0 ? -1 : 0;
    char path[8192];
    for (size_t i = 0; i < a->n_inputs && rc == 0; i++) {
        snprintf(path, sizeof path, "%s/%s", a->inputs_root, a->inputs[i]);
        if (write_arg(fd, "--ro-bind") < 0 || write_arg(fd, path) < 0 || write_arg(fd, path) < 0)
            rc = -1;
    }
    if (rc < 0) {
        int e = errno;
        close(fd);
        return err_sys(eb, "prepare: bwrap arguments", "memfd", e);
    }
    return fd;
}

/* The action's writable paths are bound read-write over the read-only root. */
static int bwrap_prepare_with(struct runner_job *job, bool unshare_all, struct errbuf *eb)
{
    const struct action *a = job->action;
    struct bwrap_state *st = calloc(1, sizeof *st);
    char **prefix = strv_new();
    char fdname[16];
    int rc = -1;
    if (!st || !prefix)
        goto oom;
    st->args_fd = -1;
    if (unshare_all && strv_push(&prefix, "--unshare-all") < 0)
        goto oom;
    if (strv_push(&prefix, "--ro-bind") < 0 || strv_push(&prefix, "/") < 0 ||
        strv_push(&prefix, "/") < 0)
        goto oom;
    if (a->inputs_root && a->staging == STAGING_ROOT &&
        (strv_push(&prefix, "--ro-bind") < 0 || strv_push(&prefix, a->inputs_root) < 0 ||
         strv_push(&prefix, a->inputs_root) < 0))
        goto oom;
    if (a->inputs_root && a->staging == STAGING_PER_FILE) {
        if ((st->args_fd = per_file_args(a, eb)) < 0)
            goto fail;
        snprintf(fdname, sizeof fdname, "%d", st->args_fd);
        if (strv_push(&prefix, "--args") < 0 || strv_push(&prefix, fdname) < 0)
            goto oom;
        job->pass_fd = st->args_fd;
    }
    for (size_t i = 0; i < a->n_rw_paths; i++) {
        if (strv_push(&prefix, "--bind") < 0 || strv_push(&prefix, a->rw_paths[i]) < 0 ||
            strv_push(&prefix, a->rw_paths[i]) < 0)
            goto oom;
    }
    if (a->cwd && (strv_push(&prefix, "--chdir") < 0 || strv_push(&prefix, a->cwd) < 0))
        goto oom;
    rc = command_job(job, "bwrap", prefix, a->argv, eb);
    strv_free(prefix);
    if (rc == 0) {
        job->priv = st;
        return 0;
    }
    goto fail;
oom:
    err_sys(eb, "prepare", "bwrap", ENOMEM);
fail:
    strv_free(prefix);
    if (st && st->args_fd >= 0)
        close(st->args_fd);
    free(st);
    job->pass_fd = 0;
    return -1;
}

static int bwrap_prepare(struct runner_job *job, struct errbuf *eb)
{
    return bwrap_prepare_with(job, false, eb);
}

static int bwrap_unshare_prepare(struct runner_job *job, struct errbuf *eb)
{
    return bwrap_prepare_with(job, true, eb);
}

/* Each sample's bwrap reads the argument list from the start (the offset is shared with it). */
static pid_t bwrap_spawn(struct runner_job *job, const struct stdio_fds *fds)
{
    const struct bwrap_state *st = job->priv;
    if (st && st->args_fd >= 0 && lseek(st->args_fd, 0, SEEK_SET) < 0)
        return -1;
    return spawn_command(job, fds);
}

static void bwrap_cleanup(struct runner_job *job)
{
    struct bwrap_state *st = job->priv;
    if (st && st->args_fd >= 0)
        close(st->args_fd);
    free(st);
    job->priv = NULL;
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
    .stagings = STAGING_BIT(STAGING_PER_FILE),
    .available = bwrap_available,
    .prepare = bwrap_prepare,
    .spawn = bwrap_spawn,
    .cleanup = bwrap_cleanup,
};

const struct runner runner_bwrap_unshare = {
    .name = "bwrap-unshare",
    .summary =
        "bwrap --unshare-all --ro-bind / / CMD (new user, ipc, pid, net, uts, cgroup namespaces)",
    .family = "namespace",
    .stagings = STAGING_BIT(STAGING_PER_FILE),
    .available = bwrap_unshare_available,
    .prepare = bwrap_unshare_prepare,
    .spawn = bwrap_spawn,
    .cleanup = bwrap_cleanup,
};
