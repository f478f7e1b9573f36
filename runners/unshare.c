/* unshare: util-linux's unshare(1) with every namespace, forking the action as pid 1. */
#include "runners/command.h"

#include <errno.h>
#include <stddef.h>

/* Every namespace; --time is left out where the kernel lacks time namespaces. */
static char **unshare_args(void)
{
    static char *with_time[] = {"--user", "--map-root-user", "--mount", "--net", "--pid", "--ipc",
                                "--uts", "--cgroup", "--time", "--fork", NULL};
    static char *without_time[] = {"--user", "--map-root-user", "--mount", "--net", "--pid",
                                   "--ipc", "--uts", "--cgroup", "--fork", NULL};
    return have_time_namespace() ? with_time : without_time;
}

static bool unshare_available(const struct runner_options *opts, char *why, size_t whylen)
{
    (void)opts;
    return command_probe("unshare", unshare_args(), why, whylen);
}

static int unshare_prepare(struct runner_job *job, struct errbuf *eb)
{
    return command_job(job, "unshare", unshare_args(), job->action->argv, eb);
}

const struct runner runner_unshare = {
    .name = "unshare",
    .summary = "unshare(1) --user --map-root-user --mount --net --pid --ipc --uts --cgroup --time "
               "--fork CMD",
    .family = "namespace",
    .available = unshare_available,
    .prepare = unshare_prepare,
    .spawn = spawn_command,
};
