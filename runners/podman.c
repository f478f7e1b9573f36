/* podman: `podman run --rm --network=none IMAGE CMD`, daemonless: the client itself sets up the
 * container (storage, conmon, the OCI runtime), on an image imported from sbxbench's own rootfs.
 *
 * Hosts differ in what podman's defaults survive: here crun refuses hybrid cgroups and the default
 * rlimits exceed what root without CAP_SYS_RESOURCE may set. Rather than flags written for one
 * host, available() tries configurations from the defaults outwards and keeps the first that runs
 * true(1); the flags it found are part of every recorded argv. */
#include "runners/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "runners/argvb.h"
#include "runners/rootfs.h"

/* Rootless podman maps the caller to the container's root already: no --user. */
static char *const import_flags[] = {"--quiet", "--message", "sbxbench rootfs", NULL};
static struct engine podman = {.name = "podman", .set_user = false, .import_flags = import_flags};
static bool podman_ready;

/* The dimensions tried, each from podman's default outwards (NULL: podman's own choice). */
static const char *const runtimes[] = {NULL, "runc"};
static const char *const cgroup_managers[] = {NULL, "cgroupfs"};

enum limit_choice { LIMITS_DEFAULT, LIMITS_CALLER, LIMITS_CALLER_NOFILE, LIMITS_1024, N_LIMITS };

static void limit_value(char *buf, size_t len, int resource, enum limit_choice c)
{
    struct rlimit rl;
    bool caller = c == LIMITS_CALLER || (c == LIMITS_CALLER_NOFILE && resource == RLIMIT_NOFILE);
    if (!caller || getrlimit(resource, &rl) < 0 || rl.rlim_max == RLIM_INFINITY)
        snprintf(buf, len, "1024:1024");
    else if (rl.rlim_cur == RLIM_INFINITY)
        snprintf(buf, len, "%llu:%llu", (unsigned long long)rl.rlim_max,
                 (unsigned long long)rl.rlim_max);
    else
        snprintf(buf, len, "%llu:%llu", (unsigned long long)rl.rlim_cur,
                 (unsigned long long)rl.rlim_max);
}

/* Sets podman's flags for one configuration; -1 when out of memory. */
static int configure(const char *runtime, const char *manager, enum limit_choice limits)
{
    struct argvb g = {0}, r = {0};
    if (runtime)
        argvb_addf(&g, "--runtime=%s", runtime);
    if (manager)
        argvb_addf(&g, "--cgroup-manager=%s", manager);
    if (limits != LIMITS_DEFAULT) {
        char value[64];
        limit_value(value, sizeof value, RLIMIT_NOFILE, limits);
        argvb_addf(&r, "--ulimit=nofile=%s", value);
        limit_value(value, sizeof value, RLIMIT_NPROC, limits);
        argvb_addf(&r, "--ulimit=nproc=%s", value);
    }
    strv_free(podman.global_flags);
    strv_free(podman.run_flags);
    podman.global_flags = argvb_finish(&g);
    podman.run_flags = argvb_finish(&r);
    return podman.global_flags && podman.run_flags ? 0 : -1;
}

#define N_RUNTIMES (sizeof runtimes / sizeof *runtimes)
#define N_MANAGERS (sizeof cgroup_managers / sizeof *cgroup_managers)
#define N_CONFIGURATIONS ((int)(N_RUNTIMES * N_MANAGERS * N_LIMITS))

/* Configuration i of the search, in order: runtime, then cgroup manager, then limits. */
static const char *runtime_of(int i)
{
    return runtimes[(size_t)i / (N_MANAGERS * N_LIMITS)];
}

static int apply(int i)
{
    return configure(runtime_of(i), cgroup_managers[((size_t)i / N_LIMITS) % N_MANAGERS],
                     (enum limit_choice)(i % N_LIMITS));
}

static bool runtime_installed(int i)
{
    char *path = runtime_of(i) ? find_program(runtime_of(i)) : NULL;
    bool installed = !runtime_of(i) || path;
    free(path);
    return installed;
}

/* The configuration found last time is kept in the cache and tried first, so that only a host
 * that changed pays for the search again; it is still proved by a run each time. */
static char *remembered_path(const char *cache_dir)
{
    struct errbuf eb;
    char *dir = rootfs_cache_subdir(cache_dir, &eb), *path = NULL;
    if (dir && asprintf(&path, "%s/podman-configuration", dir) < 0)
        path = NULL;
    free(dir);
    return path;
}

static int recall(const char *cache_dir)
{
    char *path = remembered_path(cache_dir);
    FILE *f = path ? fopen(path, "re") : NULL;
    int i = -1;
    if (f && (fscanf(f, "%d", &i) != 1 || i < 0 || i >= N_CONFIGURATIONS))
        i = -1;
    if (f)
        fclose(f);
    free(path);
    return i;
}

static void remember(const char *cache_dir, int i)
{
    char *path = remembered_path(cache_dir), *tmp = NULL;
    if (path && asprintf(&tmp, "%s.tmp", path) >= 0) {
        FILE *f = fopen(tmp, "we");
        if (f && fprintf(f, "%d\n", i) > 0 && fclose(f) == 0)
            rename(tmp, path);
        else if (f)
            fclose(f);
        unlink(tmp);
    }
    free(tmp);
    free(path);
}

/* Tries the configurations in order until one runs; false with why when none does. */
static bool find_configuration(const struct runner_options *opts, char *why, size_t whylen)
{
    char line[512], first[512] = "";
    int known = recall(opts->cache_dir), tried = 0;
    if (known >= 0 && runtime_installed(known) && apply(known) == 0 &&
        engine_probe(&podman, opts, line, sizeof line) == 0)
        return true;
    for (int i = 0; i < N_CONFIGURATIONS; i++) {
        if (!runtime_installed(i))
            continue;
        if (apply(i) < 0) {
            snprintf(why, whylen, "out of memory");
            return false;
        }
        int rc = engine_probe(&podman, opts, line, sizeof line);
        tried++;
        if (rc == 0) {
            remember(opts->cache_dir, i);
            return true;
        }
        if (!first[0])
            snprintf(first, sizeof first, "%s", line[0] ? line : "no message");
        if (rc < 0) {
            snprintf(why, whylen, "podman run did not finish: %s", first);
            return false;
        }
    }
    snprintf(why, whylen,
             "podman run fails here in all %d configurations tried; with its defaults: %s", tried,
             first);
    return false;
}

static bool podman_available(const struct runner_options *opts, char *why, size_t whylen)
{
    char line[512];
    podman_ready = false;
    free(podman.program);
    podman.unresponsive = false;
    if (configure(NULL, NULL, LIMITS_DEFAULT) < 0) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    if (!(podman.program = find_program("podman"))) {
        snprintf(why, whylen, "podman not installed (not found in PATH)");
        return false;
    }
    char *info[] = {"info", "--format", "{{.Store.GraphDriverName}}", NULL};
    int rc = engine_command(&podman, info, line, sizeof line, 30.0);
    if (rc != 0) {
        snprintf(why, whylen, "podman does not work here: %s",
                 rc < 0 ? "podman info did not answer within 30 s" : line);
        return false;
    }
    struct errbuf eb = {{0}};
    double timeout = opts && opts->timeout > 0 ? opts->timeout : 60.0;
    if (engine_ensure_image(&podman, opts->cache_dir, timeout, &eb) < 0) {
        snprintf(why, whylen, "image %s not available: %s", rootfs_image_tag(), eb.msg);
        return false;
    }
    podman_ready = find_configuration(opts, why, whylen);
    return podman_ready;
}

static int podman_prepare(struct runner_job *job, struct errbuf *eb)
{
    char why[512];
    if (!podman_ready && !podman_available(job->opts, why, sizeof why))
        return err_msg(eb, "%s", why);
    return engine_prepare(job, &podman, eb);
}

const struct runner runner_podman = {
    .name = "podman",
    .summary = "podman run --rm --network=none IMAGE CMD (conmon and an OCI runtime, no daemon; "
               "flags for this host found by probing)",
    .family = "container",
    .available = podman_available,
    .prepare = podman_prepare,
    .spawn = engine_spawn,
    .kill = engine_kill,
    .cleanup = engine_cleanup,
};
