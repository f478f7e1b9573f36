/* Each container mechanism available here, run for real: the action's exit status and output come
 * through, it writes only where it may, sees only loopback, and a stopped sample leaves nothing
 * running. Mechanisms that cannot run here are skipped with their reason. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "runners/fsutil.h"
#include "runners/runner.h"

#define SLEEP_MARK "123.456"

static char scratch[PATH_MAX], cache[PATH_MAX];

struct fixture {
    const struct runner *runner;
    struct runner_options opts;
    bool ok;
    char why[512];
};

static int group_setup(void **state)
{
    struct fixture *f = *state;
    f->opts =
        (struct runner_options){.spawn = SPAWN_POSIX_SPAWN, .cache_dir = cache, .timeout = 60};
    f->ok = f->runner->available(&f->opts, f->why, sizeof f->why);
    if (!f->ok)
        print_message("%s unavailable here, its tests are skipped: %s\n", f->runner->name, f->why);
    return 0;
}

struct outcome {
    int status; /* exit status, 128+signal, or -1 when it had to be stopped */
    char out[4096], err[4096];
};

static void read_all(int fd, char *buf, size_t len)
{
    ssize_t n = pread(fd, buf, len - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
}

/* Waits up to timeout seconds; true if pid exited (and was reaped into *status). */
static bool wait_for(pid_t pid, double timeout, int *status)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    assert_true(pidfd >= 0);
    struct pollfd p = {.fd = pidfd, .events = POLLIN};
    int rc = poll(&p, 1, (int)(timeout * 1000));
    close(pidfd);
    if (rc <= 0)
        return false;
    assert_int_equal(waitpid(pid, status, 0), pid);
    return true;
}

static void prepare(struct fixture *f, struct runner_job *job, struct action *a)
{
    struct errbuf eb = {{0}};
    *job = (struct runner_job){.runner = f->runner, .opts = &f->opts, .action = a};
    if (f->runner->prepare(job, &eb) < 0)
        fail_msg("%s: prepare: %s", f->runner->name, eb.msg);
}

static void release(struct fixture *f, struct runner_job *job)
{
    if (f->runner->cleanup)
        f->runner->cleanup(job);
    strv_free(job->argv);
    strv_free(job->envp);
}

static void run(struct fixture *f, struct action *a, struct outcome *o)
{
    struct runner_job job;
    prepare(f, &job, a);
    int out = memfd_create("out", MFD_CLOEXEC), err = memfd_create("err", MFD_CLOEXEC);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    struct stdio_fds fds = {in, out, err};
    pid_t pid = f->runner->spawn(&job, &fds);
    assert_true(pid > 0);
    int status = 0;
    if (!wait_for(pid, 120, &status)) {
        f->runner->kill(&job, pid);
        waitpid(pid, &status, 0);
        fail_msg("%s: the sample did not finish in 120 s", f->runner->name);
    }
    o->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    read_all(out, o->out, sizeof o->out);
    read_all(err, o->err, sizeof o->err);
    close(out);
    close(err);
    close(in);
    release(f, &job);
}

static void exit_status_and_output_come_through(void **state)
{
    struct fixture *f = *state;
    if (!f->ok)
        skip();
    char *argv[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    struct action a = {.argv = argv, .name = "sh"};
    struct outcome o;
    run(f, &a, &o);
    assert_int_equal(o.status, 3);
    assert_string_equal(o.out, "out\n");
    assert_non_null(strstr(o.err, "err\n"));
}

static void writes_only_where_allowed_and_sees_no_more(void **state)
{
    struct fixture *f = *state;
    if (!f->ok)
        skip();
    char rw[PATH_MAX], ro[PATH_MAX], secret[PATH_MAX], script[4 * PATH_MAX], made[PATH_MAX];
    snprintf(rw, sizeof rw, "%s/rw-%s", scratch, f->runner->name);
    snprintf(ro, sizeof ro, "%s/ro-%s", scratch, f->runner->name);
    snprintf(secret, sizeof secret, "%s/secret", scratch);
    mkdir(rw, 0777);
    mkdir(ro, 0777);
    write_file(secret, "host only\n", 0644);
    snprintf(script, sizeof script,
             "echo made > %s/made || exit 10; "
             "echo x > %s/nope 2>/dev/null && exit 11; "
             "test -e %s && exit 12; "
             "test -e /home && test -n \"$(ls -A /home)\" && exit 13; "
             "echo x > /usr/sbxbench-probe 2>/dev/null && exit 14; "
             "exit 0",
             rw, ro, secret);
    char *argv[] = {"/bin/sh", "-c", script, NULL};
    const char *ro_paths[] = {ro}, *rw_paths[] = {rw};
    struct action a = {.argv = argv,
                       .name = "sh",
                       .ro_paths = ro_paths,
                       .n_ro_paths = 1,
                       .rw_paths = rw_paths,
                       .n_rw_paths = 1};
    struct outcome o;
    run(f, &a, &o);
    assert_int_equal(o.status, 0);
    snprintf(made, sizeof made, "%s/made", rw);
    assert_int_equal(access(made, F_OK), 0);
    snprintf(made, sizeof made, "%s/nope", ro);
    assert_int_equal(access(made, F_OK), -1);
}

/* A dynamically linked program outside the system directories, as sbxbench's own workload binaries
 * in build/ are: bound at its path, its libraries found through the bound system directories. */
static void program_outside_system_dirs_runs(void **state)
{
    struct fixture *f = *state;
    if (!f->ok)
        skip();
    char prog[PATH_MAX], cmd[2 * PATH_MAX];
    snprintf(prog, sizeof prog, "%s/bin/echo-copy", scratch);
    snprintf(cmd, sizeof cmd, "mkdir -p %s/bin && cp /bin/echo %s", scratch, prog);
    assert_int_equal(system(cmd), 0);
    char *argv[] = {prog, "from", "build/", NULL};
    struct action a = {.argv = argv, .name = "echo-copy"};
    struct outcome o;
    run(f, &a, &o);
    assert_int_equal(o.status, 0);
    assert_string_equal(o.out, "from build/\n");
}

static void network_is_loopback_only(void **state)
{
    struct fixture *f = *state;
    if (!f->ok)
        skip();
    char *argv[] = {"/bin/ls", "/sys/class/net", NULL};
    struct action a = {.argv = argv, .name = "ls"};
    struct outcome o;
    run(f, &a, &o);
    assert_int_equal(o.status, 0);
    assert_string_equal(o.out, "lo\n");
}

/* Whether a process running `sleep SLEEP_MARK` exists anywhere on the host. */
static bool sleeper_exists(void)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d))) {
        char path[300], cmd[256];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, cmd, sizeof cmd - 1);
        close(fd);
        if (n <= 0)
            continue;
        cmd[n] = '\0';
        /* cmdline is NUL-separated: "sleep\0123.456\0" (or a full path to sleep). */
        size_t first = strlen(cmd);
        found =
            first < (size_t)n && strstr(cmd, "sleep") && strcmp(cmd + first + 1, SLEEP_MARK) == 0;
    }
    closedir(d);
    return found;
}

static void stopping_a_sample_leaves_nothing_running(void **state)
{
    struct fixture *f = *state;
    if (!f->ok)
        skip();
    assert_false(sleeper_exists());
    char *argv[] = {"/bin/sleep", SLEEP_MARK, NULL};
    struct action a = {.argv = argv, .name = "sleep"};
    struct runner_job job;
    prepare(f, &job, &a);
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    struct stdio_fds fds = {devnull, devnull, devnull};
    pid_t pid = f->runner->spawn(&job, &fds);
    assert_true(pid > 0);
    /* Wait until the container's process runs: then it has outlived nothing but its start. */
    for (int i = 0; i < 300 && !sleeper_exists(); i++)
        usleep(100000);
    assert_true(sleeper_exists());
    f->runner->kill(&job, pid);
    int status;
    assert_true(wait_for(pid, 30, &status));
    kill(-pid, SIGKILL);
    for (int i = 0; i < 100 && sleeper_exists(); i++)
        usleep(100000);
    assert_false(sleeper_exists());
    close(devnull);
    release(f, &job);
}

int main(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/sbxbench-test-runs-XXXXXX");
    if (!mkdtemp(scratch))
        return 1;
    chmod(scratch, 0755);
    snprintf(cache, sizeof cache, "%s/cache", scratch);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exit_status_and_output_come_through),
        cmocka_unit_test(writes_only_where_allowed_and_sees_no_more),
        cmocka_unit_test(program_outside_system_dirs_runs),
        cmocka_unit_test(network_is_loopback_only),
        cmocka_unit_test(stopping_a_sample_leaves_nothing_running),
    };
    static const char *const names[] = {"runc", "crun", "podman", "docker"};
    int failed = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        struct fixture f = {.runner = runner_find(names[i])};
        struct CMUnitTest with_state[sizeof tests / sizeof *tests];
        for (size_t t = 0; t < sizeof tests / sizeof *tests; t++) {
            with_state[t] = tests[t];
            with_state[t].initial_state = &f;
        }
        group_setup((void *[]){&f});
        failed +=
            _cmocka_run_group_tests(names[i], with_state, sizeof tests / sizeof *tests, NULL, NULL);
    }
    remove_tree(scratch);
    return failed ? 1 : 0;
}
