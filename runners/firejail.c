/* firejail: the setuid sandbox most desktop users meet, with no profile (its defaults only). */
#include "runners/command.h"

static char *const firejail_args[] = {"--quiet", "--noprofile", NULL};

static bool firejail_available(const struct runner_options *opts, char *why, size_t whylen)
{
    (void)opts;
    return command_probe("firejail", firejail_args, why, whylen);
}

static int firejail_prepare(struct runner_job *job, struct errbuf *eb)
{
    return command_job(job, "firejail", firejail_args, job->action->argv, eb);
}

const struct runner runner_firejail = {
    .name = "firejail",
    .summary = "firejail --quiet --noprofile CMD",
    .family = "namespace",
    .available = firejail_available,
    .prepare = firejail_prepare,
    .spawn = spawn_command,
};
