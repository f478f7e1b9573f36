/* oci_runtime: an OCI runtime (runc, crun) run directly on a prepared bundle, no daemon, no image
 * store: `RUNTIME run --bundle DIR ID` per sample, the runtime's own cost and nothing else.
 *
 * Where the host has hybrid cgroups with a controller on the v2 hierarchy, crun refuses to start
 * any container ("cgroups in hybrid mode not supported"), even with its cgroup manager disabled. If
 * the plain run fails there, available() tries the runtime once more in a private mount namespace
 * from which /sys/fs/cgroup/unified is unmounted, so that it sees plain cgroup v1 (its cgroups are
 * still made, on the v1 hierarchies). When that works, every sample runs that way: the child that
 * execs the runtime makes the namespace first (≈ 0.16 ms with its teardown, inside the timed
 * region). */
#pragma once

#include <stdbool.h>

#include "runners/runner.h"

struct oci_runtime {
    const char *name; /* the program, looked up in PATH */
    char *program;
    bool hide_cgroup2; /* run in a mount namespace without the cgroup2 hierarchy (see above) */
    bool ready;
};

bool oci_available(struct oci_runtime *rt, const struct runner_options *opts, char *why,
                   size_t whylen);
int oci_prepare(struct oci_runtime *rt, struct runner_job *job, struct errbuf *eb);
pid_t oci_spawn(struct runner_job *job, const struct stdio_fds *fds);
void oci_kill(struct runner_job *job, pid_t pid);
void oci_cleanup(struct runner_job *job);
