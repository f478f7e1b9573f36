/* nspawn: systemd-nspawn over the host's own tree, made volatile (a tmpfs root with the host's /usr
 * read-only), without registering with machined: what systemd offers with no image to prepare. */
#include "runners/command.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "runners/binds.h"

/* --pipe: the command's stdio are nspawn's, as a build tool gives an action; without it nspawn
 * puts the command on a terminal of its own and relays it, turning every "\n" into "\r\n" (every
 * output check failed) and sending stderr where stdout goes. */
static char *const nspawn_args[] = {"--quiet", "--directory=/", "--volatile=yes", "--register=no",
                                    "--keep-unit", "--pipe", NULL};

static bool nspawn_available(const struct runner_options *opts, char *why, size_t whylen)
{
    (void)opts;
    return command_probe("systemd-nspawn", nspawn_args, why, whylen);
}

/* --volatile=yes gives the command an empty /etc: the loader's cache and Debian's alternatives
 * are bound from the host, as the containers' are (binds_etc_extras). */
static int nspawn_prepare(struct runner_job *job, struct errbuf *eb)
{
    const struct action *a = job->action;
    char **prefix = strv_dup(nspawn_args);
    for (size_t i = 0; prefix && binds_etc_extras[i]; i++)
        if (access(binds_etc_extras[i], F_OK) == 0 &&
            strv_pushf(&prefix, "--bind-ro=%s", binds_etc_extras[i]) < 0)
            goto oom;
    for (size_t i = 0; prefix && i < a->n_ro_paths; i++)
        if (strv_pushf(&prefix, "--bind-ro=%s", a->ro_paths[i]) < 0)
            goto oom;
    for (size_t i = 0; prefix && i < a->n_rw_paths; i++)
        if (strv_pushf(&prefix, "--bind=%s", a->rw_paths[i]) < 0)
            goto oom;
    if (prefix && a->cwd && strv_pushf(&prefix, "--chdir=%s", a->cwd) < 0)
        goto oom;
    if (!prefix)
        return err_sys(eb, "prepare", "nspawn", ENOMEM);
    int rc = command_job(job, "systemd-nspawn", prefix, a->argv, eb);
    strv_free(prefix);
    return rc;
oom:
    strv_free(prefix);
    return err_sys(eb, "prepare", "nspawn", ENOMEM);
}

/* The command runs in a session of its own, out of reach of a signal to nspawn's process group;
 * nspawn itself, sent SIGTERM, kills everything in the container before it exits. */
static void nspawn_kill(struct runner_job *job, pid_t pid)
{
    (void)job;
    stop_with_grace(pid, SIGTERM, 5.0);
}

const struct runner runner_nspawn = {
    .name = "nspawn",
    .summary = "systemd-nspawn --directory=/ --volatile=yes --register=no --pipe CMD",
    .family = "namespace",
    .available = nspawn_available,
    .prepare = nspawn_prepare,
    .spawn = spawn_command,
    .kill = nspawn_kill,
};
