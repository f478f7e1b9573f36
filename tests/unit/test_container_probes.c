/* Availability and the host-quirk probing of the container mechanisms, against fake clients and
 * runtimes in a temporary PATH: what is missing is named, and the working flags are found. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "runners/fsutil.h"
#include "runners/runner.h"

static char scratch[PATH_MAX], bin[PATH_MAX], cache[PATH_MAX], saved_path[8192];

static int setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "/tmp/sbxbench-test-probes-XXXXXX");
    if (!mkdtemp(scratch))
        return -1;
    snprintf(bin, sizeof bin, "%s/bin", scratch);
    snprintf(cache, sizeof cache, "%s/cache", scratch);
    snprintf(saved_path, sizeof saved_path, "%s", getenv("PATH") ? getenv("PATH") : "/usr/bin");
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s:/usr/sbin:/usr/bin:/sbin:/bin", bin);
    setenv("PATH", path, 1);
    return mkdir(bin, 0755);
}

static int teardown(void **state)
{
    (void)state;
    setenv("PATH", saved_path, 1);
    return remove_tree(scratch);
}

/* Installs a fake program for one test; every other fake is removed first. */
static void fake(const char *name, const char *script)
{
    assert_int_equal(remove_tree(bin), 0);
    assert_int_equal(mkdir(bin, 0755), 0);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", bin, name);
    assert_int_equal(write_file(path, script, 0755), 0);
}

static struct runner_options options(void)
{
    return (struct runner_options){.spawn = SPAWN_POSIX_SPAWN, .cache_dir = cache, .timeout = 30};
}

static bool argv_has(char **argv, const char *word)
{
    for (size_t i = 0; argv && argv[i]; i++)
        if (strcmp(argv[i], word) == 0)
            return true;
    return false;
}

/* A podman whose runs work only with runc and an nproc limit it may set, as on this project's CI
 * host; the message of a failing run is crun's. */
static const char podman_quirky[] =
    "#!/bin/sh\n"
    "for word; do case \"$word\" in -*) ;; *) break ;; esac; done\n"
    "[ \"$word\" = run ] || exit 0\n"
    "echo run >> \"$(dirname \"$0\")/runs.log\"\n"
    "case \"$*\" in\n"
    "  *--runtime=runc*--ulimit=nproc=1024:1024*) exit 0 ;;\n"
    "esac\n"
    "echo 'Error: OCI runtime error: crun: cgroups in hybrid mode not supported' >&2\n"
    "exit 126\n";

static void podman_probing_finds_the_working_flags(void **state)
{
    (void)state;
    fake("podman", podman_quirky);
    const struct runner *r = runner_find("podman");
    struct runner_options opts = options();
    char why[512] = "";
    if (!r->available(&opts, why, sizeof why))
        fail_msg("%s", why);

    char *argv[] = {"/usr/bin/true", NULL};
    struct action a = {.argv = argv, .name = "true"};
    struct runner_job job = {.runner = r, .opts = &opts, .action = &a};
    struct errbuf eb = {{0}};
    assert_int_equal(r->prepare(&job, &eb), 0);
    /* The flags found are in the argv the results record. */
    assert_true(strstr(job.argv[0], "/bin/podman") != NULL);
    assert_string_equal(job.argv[1], "--runtime=runc");
    assert_true(argv_has(job.argv, "--ulimit=nproc=1024:1024"));
    assert_true(argv_has(job.argv, "--network=none"));
    assert_true(argv_has(job.argv, "--pull=never"));
    assert_string_equal(job.argv[strv_len(job.argv) - 1], "/usr/bin/true");
    r->cleanup(&job);
    strv_free(job.argv);
    strv_free(job.envp);
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "re");
    int n = 0, c;
    while (f && (c = fgetc(f)) != EOF)
        n += c == '\n';
    if (f)
        fclose(f);
    return n;
}

/* The second time, the configuration found the first time is proved by one run, not searched. */
static void podman_remembers_the_configuration_it_found(void **state)
{
    (void)state;
    fake("podman", podman_quirky);
    struct runner_options opts = options();
    char why[512] = "", log[PATH_MAX], remembered[PATH_MAX];
    snprintf(log, sizeof log, "%s/runs.log", bin);
    snprintf(remembered, sizeof remembered, "%s/containers/%s/podman-configuration", cache,
             SBXBENCH_VERSION);
    unlink(remembered);
    assert_true(runner_find("podman")->available(&opts, why, sizeof why));
    assert_int_equal(access(remembered, R_OK), 0);
    int searched = count_lines(log);
    assert_true(searched > 1);
    assert_int_equal(unlink(log), 0);
    assert_true(runner_find("podman")->available(&opts, why, sizeof why));
    assert_int_equal(count_lines(log), 1);
}

static void podman_that_never_runs_says_why(void **state)
{
    (void)state;
    fake("podman", "#!/bin/sh\n"
                   "case \"$*\" in info*|*'image inspect'*) exit 0 ;; esac\n"
                   "echo 'Error: crun: setrlimit `RLIMIT_NOFILE`: Operation not permitted' >&2\n"
                   "exit 126\n");
    struct runner_options opts = options();
    char why[512] = "";
    assert_false(runner_find("podman")->available(&opts, why, sizeof why));
    assert_non_null(strstr(why, "configurations tried"));
    assert_non_null(strstr(why, "setrlimit `RLIMIT_NOFILE`: Operation not permitted"));
}

static void podman_missing_is_named(void **state)
{
    (void)state;
    fake("unrelated", "#!/bin/sh\nexit 0\n");
    struct runner_options opts = options();
    char why[512] = "";
    char *path = strdup(getenv("PATH"));
    setenv("PATH", bin, 1);
    bool ok = runner_find("podman")->available(&opts, why, sizeof why);
    setenv("PATH", path, 1);
    free(path);
    assert_false(ok);
    assert_string_equal(why, "podman not installed (not found in PATH)");
}

static void docker_without_daemon_says_so(void **state)
{
    (void)state;
    /* The real client prints an empty line before its complaint. */
    fake("docker", "#!/bin/sh\n"
                   "echo\n"
                   "echo 'Cannot connect to the Docker daemon at unix:///x.sock. Is the docker "
                   "daemon running?' >&2\n"
                   "exit 1\n");
    struct runner_options opts = options();
    char why[512] = "";
    assert_false(runner_find("docker")->available(&opts, why, sizeof why));
    assert_string_equal(why, "docker daemon not reachable: Cannot connect to the Docker daemon at "
                             "unix:///x.sock. Is the docker daemon running?");
}

static void docker_import_failure_is_named(void **state)
{
    (void)state;
    fake("docker", "#!/bin/sh\n"
                   "case \"$*\" in version*) echo 20.10; exit 0 ;; esac\n"
                   "case \"$*\" in *'image inspect'*) echo 'Error: No such image' >&2; exit 1 ;; "
                   "esac\n"
                   "case \"$*\" in *import*) echo 'no space left on device' >&2; exit 1 ;; esac\n"
                   "exit 0\n");
    struct runner_options opts = options();
    char why[512] = "";
    assert_false(runner_find("docker")->available(&opts, why, sizeof why));
    assert_non_null(strstr(why, "not available: docker import: no space left on device"));
    /* The tarball it would have imported was built in the cache. */
    char tar[PATH_MAX];
    snprintf(tar, sizeof tar, "%s/containers/%s/rootfs.tar", cache, SBXBENCH_VERSION);
    assert_int_equal(access(tar, R_OK), 0);
}

/* A runtime that refuses what crun refuses: a cgroup2 hierarchy at /sys/fs/cgroup/unified. */
static const char runtime_hybrid_averse[] =
    "#!/bin/sh\n"
    "case \"$1\" in delete|kill) exit 0 ;; esac\n"
    "[ \"$1\" = run ] && [ -f \"$3/config.json\" ] || { echo 'bad arguments' >&2; exit 2; }\n"
    "if [ \"$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)\" = cgroup2fs ]; then\n"
    "  echo 'cgroups in hybrid mode not supported, drop all controllers from cgroupv2' >&2\n"
    "  exit 1\n"
    "fi\n"
    "exit 0\n";

static void oci_runtime_runs_without_the_v2_hierarchy_when_needed(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    fake("crun", runtime_hybrid_averse);
    struct runner_options opts = options();
    char why[512] = "";
    assert_true(runner_find("crun")->available(&opts, why, sizeof why));
    /* Nothing leaked out of the private mount namespace. */
    struct stat st;
    assert_int_equal(stat("/sys/fs/cgroup", &st), 0);
}

static void oci_runtime_failure_is_quoted(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    fake("runc", "#!/bin/sh\n"
                 "case \"$1\" in delete|kill) exit 0 ;; esac\n"
                 "echo 'runc run failed: unable to start container process: permission denied' "
                 ">&2\nexit 1\n");
    struct runner_options opts = options();
    char why[512] = "";
    assert_false(runner_find("runc")->available(&opts, why, sizeof why));
    assert_non_null(
        strstr(why, "runc fails here: runc run failed: unable to start container process"));
    /* The probe's bundle is gone. */
    char bundles[PATH_MAX];
    snprintf(bundles, sizeof bundles, "%s/containers/%s/bundles", cache, SBXBENCH_VERSION);
    assert_int_equal(rmdir(bundles), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(podman_probing_finds_the_working_flags),
        cmocka_unit_test(podman_remembers_the_configuration_it_found),
        cmocka_unit_test(podman_that_never_runs_says_why),
        cmocka_unit_test(podman_missing_is_named),
        cmocka_unit_test(docker_without_daemon_says_so),
        cmocka_unit_test(docker_import_failure_is_named),
        cmocka_unit_test(oci_runtime_runs_without_the_v2_hierarchy_when_needed),
        cmocka_unit_test(oci_runtime_failure_is_quoted),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
