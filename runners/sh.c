/* sh: the action as `sh -c 'CMD'`, as build tools that hand a command line to a shell run it. */
#include "runners/command.h"

#include <errno.h>
#include <stdlib.h>

static bool sh_available(const struct runner_options *opts, char *why, size_t whylen)
{
    (void)opts;
    char *const args[] = {"-c", NULL};
    return command_probe("sh", args, why, whylen);
}

static int sh_prepare(struct runner_job *job, struct errbuf *eb)
{
    char *line = strv_join_shell(job->action->argv);
    if (!line)
        return err_sys(eb, "prepare", "sh", ENOMEM);
    char *const prefix[] = {"-c", line, NULL};
    int rc = command_job(job, "sh", prefix, NULL, eb);
    free(line);
    return rc;
}

const struct runner runner_sh = {
    .name = "sh",
    .summary = "sh -c CMD (the host's /bin/sh)",
    .family = "process",
    .available = sh_available,
    .prepare = sh_prepare,
    .spawn = spawn_command,
};
