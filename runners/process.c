/* process: the action's resolved absolute path, spawned directly. The baseline every ratio uses. */
#include "runners/runner.h"

#include <errno.h>

static bool process_available(const struct runner_options *opts, char *why, size_t whylen)
{
    (void)opts, (void)why, (void)whylen;
    return true;
}

static int process_prepare(struct runner_job *job, struct errbuf *eb)
{
    job->argv = strv_dup(job->action->argv);
    if (!job->argv)
        return err_sys(eb, "prepare", "process", ENOMEM);
    job->path = job->argv[0];
    return 0;
}

const struct runner runner_process = {
    .name = "process",
    .summary = "plain process, resolved absolute path (posix_spawn)",
    .family = "process",
    .available = process_available,
    .prepare = process_prepare,
    .spawn = spawn_command,
};
