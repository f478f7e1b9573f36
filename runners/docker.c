/* docker: `docker run --rm --network=none IMAGE CMD` through the daemon, on an image imported from
 * sbxbench's own rootfs (no registry). Each sample pays for the client, the API round trips, the
 * daemon's container bookkeeping and image layers, containerd and its shim, and runc. */
#include "runners/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runners/rootfs.h"

static char *const import_flags[] = {"--message", "sbxbench rootfs", NULL};
static struct engine docker = {.name = "docker", .set_user = true, .import_flags = import_flags};
static bool docker_ready;

static double setup_timeout(const struct runner_options *opts)
{
    return opts && opts->timeout > 0 ? opts->timeout : 60.0;
}

/* Client, daemon, image, one container: the first that fails is the reason. */
static bool docker_available(const struct runner_options *opts, char *why, size_t whylen)
{
    char line[512];
    docker_ready = false;
    free(docker.program);
    docker.unresponsive = false;
    if (!(docker.program = find_program("docker"))) {
        snprintf(why, whylen, "docker not installed (not found in PATH)");
        return false;
    }
    char *version[] = {"version", "--format", "{{.Server.Version}}", NULL};
    int rc = engine_command(&docker, version, line, sizeof line, 10.0);
    if (rc != 0) {
        snprintf(why, whylen, "docker daemon not reachable: %s",
                 rc < 0 ? "no answer within 10 s" : line);
        return false;
    }
    struct errbuf eb = {{0}};
    if (engine_ensure_image(&docker, opts->cache_dir, setup_timeout(opts), &eb) < 0) {
        snprintf(why, whylen, "image %s not available: %s", rootfs_image_tag(), eb.msg);
        return false;
    }
    rc = engine_probe(&docker, opts, line, sizeof line);
    if (rc != 0) {
        if (rc < 0)
            snprintf(why, whylen, "docker run fails here: %s", line[0] ? line : "no answer");
        else
            snprintf(why, whylen, "docker run fails here (exit %d): %s", rc,
                     line[0] ? line : "no message");
        return false;
    }
    docker_ready = true;
    return true;
}

static int docker_prepare(struct runner_job *job, struct errbuf *eb)
{
    char why[512];
    if (!docker_ready && !docker_available(job->opts, why, sizeof why))
        return err_msg(eb, "%s", why);
    return engine_prepare(job, &docker, eb);
}

const struct runner runner_docker = {
    .name = "docker",
    .summary = "docker run --rm --network=none IMAGE CMD (dockerd, containerd, runc; host "
               "system directories bound read-only)",
    .family = "container",
    .available = docker_available,
    .prepare = docker_prepare,
    .spawn = engine_spawn,
    .kill = engine_kill,
    .cleanup = engine_cleanup,
};
