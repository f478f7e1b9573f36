/* runc: the OCI reference runtime on a prepared bundle, no daemon (runners/oci_runtime.h). */
#include "runners/oci_runtime.h"

static struct oci_runtime runc = {.name = "runc"};

static bool runc_available(const struct runner_options *opts, char *why, size_t whylen)
{
    return oci_available(&runc, opts, why, whylen);
}

static int runc_prepare(struct runner_job *job, struct errbuf *eb)
{
    return oci_prepare(&runc, job, eb);
}

const struct runner runner_runc = {
    .name = "runc",
    .summary = "runc run --bundle DIR ID (OCI runtime alone: runc spec's namespaces, read-only "
               "root, host system directories bound read-only)",
    .family = "container",
    .available = runc_available,
    .prepare = runc_prepare,
    .spawn = oci_spawn,
    .kill = oci_kill,
    .cleanup = oci_cleanup,
};
