/* crun: the C OCI runtime on a prepared bundle, no daemon (runners/oci_runtime.h). */
#include "runners/oci_runtime.h"

static struct oci_runtime crun = {.name = "crun"};

static bool crun_available(const struct runner_options *opts, char *why, size_t whylen)
{
    return oci_available(&crun, opts, why, whylen);
}

static int crun_prepare(struct runner_job *job, struct errbuf *eb)
{
    return oci_prepare(&crun, job, eb);
}

const struct runner runner_crun = {
    .name = "crun",
    .summary = "crun run --bundle DIR ID (as runc; on hybrid cgroups in a mount namespace without "
               "the v2 hierarchy, which crun refuses)",
    .family = "container",
    .available = crun_available,
    .prepare = crun_prepare,
    .spawn = oci_spawn,
    .kill = oci_kill,
    .cleanup = oci_cleanup,
};
