/* Results JSON: a run written and read back keeps every field; the atomic file never leaves a partial
 * or stray file behind. The schema itself is checked by tests/integration/check_results.py. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/atomic_file.h"
#include "harness/results_json.h"

extern const struct runner runner_process;
extern const struct runner runner_bwrap;
/* true is a description file now (workloads/true.wl); the results only need its name. */
static const struct workload workload_true = {.name = "true", .summary = "true(1)"};

struct fixture {
    struct run_config cfg;
    struct workload_case wcase;
    struct bench benches[2];
    struct run run;
    struct sample samples[2][4];
    struct failure failure;
};

static void fill_bench(struct fixture *f, int i, const struct runner *r, double base)
{
    struct bench *b = &f->benches[i];
    memset(b, 0, sizeof *b);
    b->runner = r;
    b->workload = &workload_true;
    b->wcase = &f->wcase;
    b->job.argv = strv_new();
    strv_push(&b->job.argv, r == &runner_bwrap ? "/usr/bin/bwrap" : "/usr/bin/true");
    if (r == &runner_bwrap)
        strv_push(&b->job.argv, "/usr/bin/true");
    b->prepared = true;
    for (int s = 0; s < 4; s++) {
        f->samples[i][s] = (struct sample){.wall = base + s * 1e-5, .user = 1e-4, .system = 2e-4,
                                           .max_rss_kb = 1000 + s, .exit_code = 0};
    }
    b->samples = f->samples[i];
    b->n_samples = 4;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    char *argv[] = {"run", "--mechanism=process,bwrap", NULL};
    assert_int_equal(parse_run_args(2, argv, &f->cfg), 0);
    f->wcase.label = "true";
    fill_bench(f, 0, &runner_process, 5e-4);
    fill_bench(f, 1, &runner_bwrap, 2e-3);
    /* The bwrap bench's last sample failed with exit status 1. */
    f->samples[1][3].exit_code = 1;
    f->failure = (struct failure){3, "exit status 1: boom"};
    f->benches[1].failures = &f->failure;
    f->benches[1].n_failures = 1;
    f->run = (struct run){.cfg = &f->cfg, .benches = f->benches, .n_benches = 2};
    strcpy(f->run.started_utc, "2026-11-30T10:00:00Z");
    assert_int_equal(run_summarize(&f->run), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    for (int i = 0; i < 2; i++)
        strv_free(f->benches[i].job.argv);
    run_config_free(&f->cfg);
    free(f);
    return 0;
}

static void test_round_trip(void **state)
{
    struct fixture *f = *state;
    json_t *doc = results_json(&f->run);
    char *text = results_dump(doc);
    json_decref(doc);
    json_error_t err;
    json_t *back = json_loads(text, 0, &err);
    free(text);
    assert_non_null(back);

    assert_string_equal(json_string_value(json_object_get(back, "schema")), RESULTS_SCHEMA);
    assert_int_equal(json_integer_value(json_object_get(back, "schema_version")),
                     RESULTS_SCHEMA_VERSION);
    assert_true(json_is_true(json_object_get(back, "complete")));
    json_t *results = json_object_get(back, "results");
    assert_int_equal(json_array_size(results), 2);

    json_t *p = json_array_get(results, 0), *b = json_array_get(results, 1);
    assert_string_equal(json_string_value(json_object_get(p, "mechanism")), "process");
    assert_float_equal(json_real_value(json_object_get(p, "median")), 5.15e-4, 1e-12);
    assert_int_equal(json_array_size(json_object_get(p, "times")), 4);
    assert_float_equal(json_real_value(json_array_get(json_object_get(p, "times"), 2)), 5.2e-4,
                       1e-15);
    assert_float_equal(json_real_value(json_object_get(p, "ratio")), 1.0, 1e-12);

    /* Statistics cover the three successful bwrap samples; times and exit codes cover all four. */
    assert_int_equal(json_integer_value(json_object_get(b, "n")), 3);
    assert_int_equal(json_integer_value(json_object_get(b, "runs")), 4);
    assert_int_equal(json_integer_value(json_object_get(b, "failed")), 1);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(b, "exit_codes"), 3)), 1);
    assert_float_equal(json_real_value(json_object_get(b, "median")), 2.01e-3, 1e-12);
    assert_float_equal(json_real_value(json_object_get(b, "ratio")), 2.01e-3 / 5.15e-4, 1e-9);
    json_t *ci = json_object_get(b, "ratio_ci");
    assert_int_equal(json_array_size(ci), 2);
    assert_true(json_real_value(json_array_get(ci, 0)) <= json_real_value(json_object_get(b, "ratio")));
    json_t *fail = json_array_get(json_object_get(b, "failures"), 0);
    assert_string_equal(json_string_value(json_object_get(fail, "reason")), "exit status 1: boom");
    assert_string_equal(json_string_value(json_object_get(b, "command")),
                        "/usr/bin/bwrap /usr/bin/true");
    assert_string_equal(json_string_value(json_array_get(json_object_get(b, "argv"), 0)),
                        "/usr/bin/bwrap");
    json_t *meta = json_object_get(back, "meta");
    assert_non_null(json_object_get(json_object_get(meta, "host"), "kernel"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(meta, "config"), "runs")),
                     DEFAULT_RUNS);
    json_decref(back);
}

static void test_skipped_result_has_nulls_and_reason(void **state)
{
    struct fixture *f = *state;
    struct bench *b = &f->benches[1];
    b->skipped = true;
    b->prepared = false;
    strcpy(b->reason, "bwrap not installed");
    b->n_samples = 0;
    b->n_failures = 0;
    assert_int_equal(run_summarize(&f->run), 0);
    json_t *doc = results_json(&f->run);
    json_t *r = json_array_get(json_object_get(doc, "results"), 1);
    assert_true(json_is_true(json_object_get(r, "skipped")));
    assert_string_equal(json_string_value(json_object_get(r, "reason")), "bwrap not installed");
    assert_true(json_is_null(json_object_get(r, "median")));
    assert_true(json_is_null(json_object_get(r, "ratio")));
    assert_int_equal(json_array_size(json_object_get(r, "times")), 0);
    json_decref(doc);
}

static void test_interrupted_run_is_marked_incomplete(void **state)
{
    struct fixture *f = *state;
    f->run.interrupted = true;
    json_t *doc = results_json(&f->run);
    assert_true(json_is_false(json_object_get(doc, "complete")));
    assert_true(json_is_true(json_object_get(json_object_get(doc, "meta"), "interrupted")));
    json_decref(doc);
    f->run.interrupted = false;
}

static void test_nan_becomes_null(void **state)
{
    (void)state;
    json_t *v = json_number_or_null(NAN);
    assert_true(json_is_null(v));
    json_decref(v);
    v = json_number_or_null(INFINITY);
    assert_true(json_is_null(v));
    json_decref(v);
}

static char *make_temp_dir(void)
{
    char *dir = strdup("/tmp/sbxbench-test-XXXXXX");
    assert_non_null(mkdtemp(dir));
    return dir;
}

static int count_entries(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

static void test_atomic_commit_and_abort(void **state)
{
    (void)state;
    char *dir = make_temp_dir(), path[512];
    snprintf(path, sizeof path, "%s/out.json", dir);
    struct atomic_file af;
    struct errbuf eb;
    assert_int_equal(atomic_open(&af, path, &eb), 0);
    assert_string_not_equal(atomic_pending_temp(), "");
    assert_int_equal(atomic_commit(&af, "{}\n", 3, &eb), 0);
    assert_string_equal(atomic_pending_temp(), "");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 3);

    /* An aborted replacement leaves the old file untouched and no temp file. */
    assert_int_equal(atomic_open(&af, path, &eb), 0);
    atomic_abort(&af);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 3);
    assert_int_equal(count_entries(dir), 1);
    unlink(path);
    rmdir(dir);
    free(dir);
}

static void test_atomic_open_errors(void **state)
{
    (void)state;
    struct atomic_file af;
    struct errbuf eb;
    assert_int_equal(atomic_open(&af, "/nonexistent-dir/x.json", &eb), -1);
    assert_string_equal(eb.msg, "output: /nonexistent-dir/x.json: No such file or directory");
    assert_int_equal(atomic_open(&af, "/tmp", &eb), -1);
    assert_string_equal(eb.msg, "output: /tmp: Is a directory");
    /* A read-only directory: root ignores mode bits, so use a read-only file system instead. */
    if (access("/proc/version", W_OK) != 0 || geteuid() == 0) {
        assert_int_equal(atomic_open(&af, "/proc/sbxbench.json", &eb), -1);
        assert_non_null(strstr(eb.msg, "output: /proc/sbxbench.json: "));
    }
}

static void test_device_target_is_written_in_place(void **state)
{
    (void)state;
    struct atomic_file af;
    struct errbuf eb;
    struct stat before, after;
    assert_int_equal(stat("/dev/null", &before), 0);
    assert_int_equal(atomic_open(&af, "/dev/null", &eb), 0);
    assert_string_equal(atomic_pending_temp(), "");
    assert_int_equal(atomic_commit(&af, "{}\n", 3, &eb), 0);
    assert_int_equal(stat("/dev/null", &after), 0);
    assert_true(S_ISCHR(after.st_mode));
    assert_int_equal(before.st_ino, after.st_ino);
}

static void test_strv_join_quotes_for_the_shell(void **state)
{
    (void)state;
    char *v[] = {"/bin/echo", "a b", "it's", "", "plain", NULL};
    char *s = strv_join_shell(v);
    assert_string_equal(s, "/bin/echo 'a b' 'it'\\''s' '' plain");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_skipped_result_has_nulls_and_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interrupted_run_is_marked_incomplete, setup, teardown),
        cmocka_unit_test(test_nan_becomes_null),
        cmocka_unit_test(test_atomic_commit_and_abort),
        cmocka_unit_test(test_atomic_open_errors),
        cmocka_unit_test(test_device_target_is_written_in_place),
        cmocka_unit_test(test_strv_join_quotes_for_the_shell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
