/* Description files as workloads: finding and loading them, what makes one unavailable, and the
 * cases prepare builds (argv, visible paths, environment, scratch directory, output check). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runners/action.h"
#include "workloads/workload.h"

static char dir[64];      /* descriptions written by the tests */
static char exe_dir[128]; /* a fake sbxbench directory with an sbx-action */

static void write_file(const char *name, const char *text, size_t len, mode_t mode)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
}

static void write_wl(const char *name, const char *text)
{
    write_file(name, text, strlen(text), 0644);
}

static void options(struct workload_options *o, const char *exe)
{
    memset(o, 0, sizeof *o);
    o->pipe_sizes = "4,16";
    o->pipe_bytes = 1000;
    o->render_size = 256;
    o->exe_dir = exe;
}

static char *path_of(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/sbxbench-test-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(exe_dir, sizeof exe_dir, "%s/bin", dir);
    assert_int_equal(mkdir(exe_dir, 0755), 0);
    write_file("bin/sbx-action", "#!/bin/sh\n", 10, 0755);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    workloads_unload();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void resolve_fails(const char *spec, const char *expected)
{
    struct workload_options o;
    options(&o, exe_dir);
    struct errbuf eb = {{0}};
    assert_null(workload_resolve(spec, &o, &eb));
    if (!strstr(eb.msg, expected))
        fail_msg("%s: expected an error containing '%s', got '%s'", spec, expected, eb.msg);
}

static void test_load_errors(void **state)
{
    (void)state;
    resolve_fails(path_of("absent.wl"), "absent.wl: No such file or directory");
    write_file("nul.wl", "run true\0x", 10, 0644);
    resolve_fails(path_of("nul.wl"), "nul.wl: contains a NUL byte");
    size_t big = (1 << 20) + 1;
    char *text = malloc(big);
    memset(text, '#', big);
    write_file("big.wl", text, big, 0644);
    free(text);
    resolve_fails(path_of("big.wl"), "big.wl: larger than 1048576 bytes");
    write_wl("bad.wl", "run true\nnope");
    resolve_fails(path_of("bad.wl"), "bad.wl:2: unknown directive 'nope'");
    write_wl("labels.wl", "param a 1,2\nlabel x\nrun true");
    resolve_fails(path_of("labels.wl"), "labels.wl:2: two cases are both labelled 'x'");
    resolve_fails("sbxbench-no-such-workload", "unknown workload 'sbxbench-no-such-workload'");
}

static void test_names_and_clashes(void **state)
{
    (void)state;
    struct workload_options o;
    options(&o, exe_dir);
    struct errbuf eb = {{0}};
    write_wl("mine.wl", "summary my own\nrun true");
    const struct workload *w = workload_resolve(path_of("mine.wl"), &o, &eb);
    assert_non_null(w);
    assert_string_equal(w->name, "mine");
    assert_string_equal(w->summary, "my own");
    assert_non_null(w->described);
    assert_ptr_equal(workload_find(path_of("mine.wl")), w);
    assert_ptr_equal(workload_resolve(path_of("mine.wl"), &o, &eb), w); /* loaded once */
    assert_null(workload_find("mine"));

    /* The workloads directory: a bare name finds NAME.wl there; the name clashes with the file. */
    setenv("SBXBENCH_WORKLOADS_DIR", dir, 1);
    resolve_fails("mine", "a workload named 'mine' is already in this run");
    char **names = workload_builtin_names();
    bool found = false;
    for (size_t i = 0; names[i]; i++)
        found |= strcmp(names[i], "mine") == 0;
    assert_true(found);
    strv_free(names);
    workloads_unload();
    assert_null(workload_find(path_of("mine.wl")));
    w = workload_resolve("mine", &o, &eb);
    assert_non_null(w);
    assert_ptr_equal(workload_find("mine"), w);
    unsetenv("SBXBENCH_WORKLOADS_DIR");
    workloads_unload();
}

static void test_unavailable(void **state)
{
    (void)state;
    struct workload_options o;
    options(&o, exe_dir);
    struct errbuf eb = {{0}};
    char why[1024] = "";
    write_wl("noprog.wl", "run sbxbench-no-such-program-x");
    const struct workload *w = workload_resolve(path_of("noprog.wl"), &o, &eb);
    assert_non_null(w);
    assert_false(workload_available(w, &o, why, sizeof why));
    assert_non_null(
        strstr(why, "noprog.wl:1: run: program 'sbxbench-no-such-program-x' not found"));

    /* A pipeline needs sbx-action next to sbxbench. */
    struct workload_options bare;
    options(&bare, dir); /* no sbx-action there */
    write_wl("piped.wl", "run true | true");
    w = workload_resolve(path_of("piped.wl"), &bare, &eb);
    assert_non_null(w);
    assert_false(workload_available(w, &bare, why, sizeof why));
    assert_non_null(strstr(why, "need"));
    assert_non_null(strstr(why, "/sbx-action"));
    workloads_unload();
}

static int memfd_with(const char *text)
{
    int fd = memfd_create("out", 0);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    lseek(fd, 0, SEEK_SET);
    return fd;
}

static void test_prepare_pipeline(void **state)
{
    (void)state;
    struct workload_options o;
    options(&o, exe_dir);
    struct errbuf eb = {{0}};
    write_wl("flow.wl", "param size ${pipe_sizes}\n"
                        "param kind fast\n"
                        "label ${size}\n"
                        "ro /etc\n"
                        "env SBXBENCH_TEST_VAR=${size} PATH=/x\n"
                        "throughput ${pipe_bytes}\n"
                        "expect-stdout \"size ${size}\"\n"
                        "run echo size ${size} | cat 2>> ${tmp}/log\n");
    const struct workload *w = workload_resolve(path_of("flow.wl"), &o, &eb);
    assert_non_null(w);
    struct workload_case *cases = NULL;
    size_t n = 0;
    assert_int_equal(workload_prepare(w, &o, &cases, &n, &eb), 0);
    assert_int_equal(n, 2);
    struct workload_case *c = &cases[1];
    assert_string_equal(c->label, "flow/16");
    assert_int_equal(c->n_params, 2);
    assert_string_equal(c->params[0].key, "size");
    assert_null(c->params[0].str);
    assert_int_equal(c->params[0].num, 16);
    assert_string_equal(c->params[1].str, "fast");
    assert_int_equal(c->volume_bytes, 1000);

    /* sbx-action runs the pipeline and is visible; the scratch directory is writable. */
    char helper[256];
    snprintf(helper, sizeof helper, "%s/sbx-action", exe_dir);
    assert_string_equal(c->action.argv[0], helper);
    assert_string_equal(c->action.argv[1], "3");
    assert_string_equal(c->action.argv[5], "|");
    assert_null(c->action.name);
    assert_int_equal(c->action.n_ro_paths, 2);
    assert_string_equal(c->action.ro_paths[0], "/etc");
    assert_string_equal(c->action.ro_paths[1], helper);
    assert_int_equal(c->action.n_rw_paths, 1);
    const char *tmp = c->action.rw_paths[0];
    assert_non_null(strstr(tmp, "/sbxbench-flow-"));
    struct stat st;
    assert_int_equal(stat(tmp, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    char log[256];
    snprintf(log, sizeof log, "%s/log", tmp);
    assert_string_equal(c->action.argv[strv_len(c->action.argv) - 1], log);
    assert_string_not_equal(cases[0].action.rw_paths[0], tmp); /* one directory per case */

    /* The environment: the harness's, with the description's variables laid over it. */
    setenv("SBXBENCH_TEST_INHERITED", "yes", 1); /* envp was built before: must not appear */
    size_t vars = 0, paths = 0, home = 0;
    for (size_t i = 0; c->action.envp[i]; i++) {
        vars += strcmp(c->action.envp[i], "SBXBENCH_TEST_VAR=16") == 0;
        paths += strncmp(c->action.envp[i], "PATH=", 5) == 0;
        home += strncmp(c->action.envp[i], "SBXBENCH_TEST_INHERITED=", 24) == 0;
        if (strncmp(c->action.envp[i], "PATH=", 5) == 0)
            assert_string_equal(c->action.envp[i], "PATH=/x");
    }
    assert_int_equal(vars, 1);
    assert_int_equal(paths, 1);
    assert_int_equal(home, 0);
    unsetenv("SBXBENCH_TEST_INHERITED");

    /* The output check. */
    assert_true(c->capture_stdout);
    char digest[80] = "", digest2[80] = "", why[256] = "";
    int fd = memfd_with("size 16\n");
    assert_int_equal(c->check(c, fd, digest, sizeof digest, why, sizeof why), 0);
    close(fd);
    assert_int_equal(strlen(digest), 16);
    fd = memfd_with("size 16");
    assert_int_equal(c->check(c, fd, digest2, sizeof digest2, why, sizeof why), 0);
    close(fd);
    assert_string_not_equal(digest, digest2);
    fd = memfd_with("size 4\n");
    assert_int_equal(c->check(c, fd, digest, sizeof digest, why, sizeof why), -1);
    close(fd);
    assert_string_equal(why, "expected \"size 16\" on stdout, got \"size 4\"");
    fd = memfd_with("size 16\nmore\n");
    assert_int_equal(c->check(c, fd, digest, sizeof digest, why, sizeof why), -1);
    close(fd);

    char kept[256];
    snprintf(kept, sizeof kept, "%s", tmp);
    int logfd = open(log, O_WRONLY | O_CREAT, 0644); /* what a run leaves behind */
    assert_true(logfd >= 0);
    close(logfd);
    for (size_t i = 0; i < n; i++)
        workload_case_free(w, &cases[i]);
    free(cases);
    assert_int_equal(stat(kept, &st), -1); /* removed with its contents */
    workloads_unload();
}

static void test_prepare_single_command(void **state)
{
    (void)state;
    struct workload_options o;
    options(&o, exe_dir);
    struct errbuf eb = {{0}};
    write_wl("one.wl", "run true --flag");
    const struct workload *w = workload_resolve(path_of("one.wl"), &o, &eb);
    assert_non_null(w);
    char why[64];
    assert_true(workload_available(w, &o, why, sizeof why));
    struct workload_case *cases = NULL;
    size_t n = 0;
    assert_int_equal(workload_prepare(w, &o, &cases, &n, &eb), 0);
    assert_int_equal(n, 1);
    /* No helper: the command itself, with its name for the mechanisms that look it up. */
    assert_string_equal(cases[0].label, "one");
    assert_true(cases[0].action.argv[0][0] == '/');
    assert_string_equal(cases[0].action.argv[1], "--flag");
    assert_string_equal(cases[0].action.name, "true");
    assert_int_equal(cases[0].action.n_ro_paths, 0);
    assert_int_equal(cases[0].action.n_rw_paths, 0);
    assert_null(cases[0].action.envp);
    assert_null(cases[0].check);
    assert_false(cases[0].capture_stdout);
    workload_case_free(w, &cases[0]);
    free(cases);
    workloads_unload();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_names_and_clashes),
        cmocka_unit_test(test_unavailable),
        cmocka_unit_test(test_prepare_pipeline),
        cmocka_unit_test(test_prepare_single_command),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
