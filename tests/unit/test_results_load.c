/* The results loader: a good file is read faithfully (successful samples only, in order); every
 * kind of bad file is refused with one line naming the place and the problem; no input crashes it
 * (every truncation and a few thousand byte flips of a good file, under the sanitizers). */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/results_load.h"
#include "harness/rng.h"

static const char good[] =
    "{\"schema\": \"sbxbench-results\", \"schema_version\": 1, \"complete\": true,\n"
    " \"meta\": {\"sbxbench_version\": \"0.1.0\", \"git_commit\": \"abc\",\n"
    "  \"date_utc\": \"2026-11-30T10:00:00Z\", \"duration_s\": 1.5, \"interrupted\": false,\n"
    "  \"host\": {\"host\": \"vm\", \"kernel\": \"6.18\", \"cpu_model\": \"AMD EPYC\", \"cores\": "
    "2,\n"
    "           \"tools\": {}},\n"
    "  \"config\": {\"mechanisms\": [\"process\", \"bwrap\"], \"workloads\": [\"true\"], \"runs\": "
    "4,\n"
    "             \"min_time\": null, \"warmup\": 0, \"order\": \"interleaved\", \"timeout\": 60,\n"
    "             \"seed\": 1}},\n"
    " \"results\": [\n"
    "  {\"command\": \"/usr/bin/true\", \"mean\": 0.001, \"stddev\": 0.0001, \"median\": 0.001,\n"
    "   \"user\": 0.0005, \"system\": 0.0001, \"min\": 0.0009, \"max\": 0.0011,\n"
    "   \"times\": [0.001, 0.0009, 0.0011, 0.001], \"exit_codes\": [0, 0, 0, 0],\n"
    "   \"mechanism\": \"process\", \"family\": \"process\", \"workload\": \"true\",\n"
    "   \"case\": \"true\", \"params\": {}, \"argv\": [\"/usr/bin/true\"], \"skipped\": false,\n"
    "   \"reason\": null, \"runs\": 4, \"n\": 4, \"failed\": 0, \"failures\": [], \"p5\": 0.0009,\n"
    "   \"p95\": 0.0011, \"p99\": 0.0011, \"mad\": 0.00005, \"outliers\": 0, \"cv\": 0.1,\n"
    "   \"median_ci\": [0.0009, 0.0011], \"baseline\": \"process\", \"ratio\": 1.0,\n"
    "   \"ratio_ci\": [0.9, 1.1]},\n"
    "  {\"command\": \"bwrap true\", \"mean\": 0.003, \"stddev\": 0.0001, \"median\": 0.003,\n"
    "   \"user\": 0.0005, \"system\": 0.0001, \"min\": 0.0029, \"max\": 0.0031,\n"
    "   \"times\": [0.003, 0.5, 0.0029, 0.0031], \"exit_codes\": [0, 1, 0, null],\n"
    "   \"mechanism\": \"bwrap\", \"family\": \"namespace\", \"workload\": \"true\",\n"
    "   \"case\": \"true\", \"params\": {}, \"argv\": [\"bwrap\", \"true\"], \"skipped\": false,\n"
    "   \"reason\": null, \"runs\": 4, \"n\": 2, \"failed\": 2,\n"
    "   \"failures\": [{\"index\": 1, \"reason\": \"exit 1\"}, {\"index\": 3, \"reason\": \"signal "
    "9\"}],\n"
    "   \"p5\": 0.0029, \"p95\": 0.003, \"p99\": 0.003, \"mad\": 0.00005, \"outliers\": 0,\n"
    "   \"cv\": 0.03, \"median_ci\": null, \"baseline\": \"process\", \"ratio\": 3.0,\n"
    "   \"ratio_ci\": null},\n"
    "  {\"command\": \"docker\", \"mean\": null, \"stddev\": null, \"median\": null, \"user\": "
    "null,\n"
    "   \"system\": null, \"min\": null, \"max\": null, \"times\": [], \"exit_codes\": [],\n"
    "   \"mechanism\": \"docker\", \"family\": \"container\", \"workload\": \"true\", \"case\": "
    "\"true\",\n"
    "   \"params\": {}, \"argv\": null, \"skipped\": true, \"reason\": \"no daemon\", \"runs\": "
    "0,\n"
    "   \"n\": 0, \"failed\": 0, \"failures\": [], \"p5\": null, \"p95\": null, \"p99\": null,\n"
    "   \"mad\": null, \"outliers\": null, \"cv\": null, \"median_ci\": null, \"baseline\": null,\n"
    "   \"ratio\": null, \"ratio_ci\": null}\n"
    " ]}\n";

static int parse(const char *text, size_t len, struct results_file *f, char *err)
{
    memset(err, 0, 512);
    return results_parse(text, len, f, err, 512);
}

static void test_good_file_is_read_faithfully(void **state)
{
    (void)state;
    struct results_file f;
    char err[512];
    assert_int_equal(parse(good, strlen(good), &f, err), 0);
    assert_int_equal(f.version, 1);
    assert_true(f.complete);
    assert_string_equal(f.host, "vm");
    assert_string_equal(f.cpu_model, "AMD EPYC");
    assert_string_equal(f.date_utc, "2026-11-30T10:00:00Z");
    assert_int_equal(f.n_results, 3);
    const struct loaded_result *b = results_find(&f, "bwrap", "true");
    assert_non_null(b);
    assert_string_equal(b->family, "namespace");
    /* samples 1 and 3 failed: the others, in order */
    assert_int_equal(b->n_ok, 2);
    assert_float_equal(b->ok_times[0], 0.003, 0);
    assert_float_equal(b->ok_times[1], 0.0029, 0);
    const struct loaded_result *d = results_find(&f, "docker", "true");
    assert_true(d->skipped);
    assert_string_equal(d->reason, "no daemon");
    assert_int_equal(d->n_ok, 0);
    assert_null(results_find(&f, "bwrap", "pipe/4"));
    results_file_free(&f);
}

/* Applies a JSON edit to the good document and expects the loader to refuse it, its message
 * containing want. */
static void expect_refused(json_t *doc, const char *want)
{
    char *text = json_dumps(doc, 0);
    assert_non_null(text);
    struct results_file f;
    char err[512];
    int rc = parse(text, strlen(text), &f, err);
    if (rc == 0 || !strstr(err, want))
        fail_msg("expected refusal with '%s', got rc %d: '%s'", want, rc, err);
    assert_null(strchr(err, '\n'));
    free(text);
    json_decref(doc);
}

static json_t *good_doc(void)
{
    json_error_t e;
    json_t *doc = json_loads(good, 0, &e);
    assert_non_null(doc);
    return doc;
}

static json_t *result(json_t *doc, size_t i)
{
    return json_array_get(json_object_get(doc, "results"), i);
}

static void test_bad_documents(void **state)
{
    (void)state;
    struct results_file f;
    char err[512];
    assert_int_equal(parse("", 0, &f, err), -1);
    assert_string_equal(err, "empty file");
    assert_int_equal(parse("hello", 5, &f, err), -1);
    assert_non_null(strstr(err, "not valid JSON"));
    assert_non_null(strstr(err, "line 1"));
    assert_int_equal(parse(good, strlen(good) / 2, &f, err), -1);
    assert_non_null(strstr(err, "not valid JSON"));
    assert_int_equal(parse("[1, 2]", 6, &f, err), -1);
    assert_non_null(strstr(err, "not an sbxbench results file"));

    json_t *doc = good_doc();
    json_object_set_new(doc, "schema_version", json_integer(2));
    expect_refused(doc, "schema_version 2 is not supported: this sbxbench reads version 1");
    doc = good_doc();
    json_object_set_new(doc, "schema_version", json_string("1"));
    expect_refused(doc, "schema_version: an integer expected, got a string");
    doc = good_doc();
    json_object_set_new(doc, "schema", json_string("hyperfine"));
    expect_refused(doc, "schema is \"hyperfine\"");
    doc = good_doc();
    json_object_del(doc, "schema");
    expect_refused(doc, "no \"schema\" key");
    doc = good_doc();
    json_object_set_new(doc, "results", json_array());
    expect_refused(doc, "results: the array is empty");
    doc = good_doc();
    json_object_set_new(doc, "results", json_object());
    expect_refused(doc, "results: an array expected, got an object");
    doc = good_doc();
    json_object_del(doc, "meta");
    expect_refused(doc, "meta: an object expected, got nothing");
}

static void test_schema_violations_name_the_place(void **state)
{
    (void)state;
    json_t *doc = good_doc();
    json_array_set_new(json_object_get(result(doc, 1), "times"), 2, json_string("fast"));
    expect_refused(doc, "results[1].times[2]: a number >= 0 expected, got a string");
    doc = good_doc();
    json_object_set_new(result(doc, 0), "median", json_string("0.001"));
    expect_refused(doc, "results[0].median: a number >= 0 or null expected, got a string");
    doc = good_doc();
    json_array_set_new(json_object_get(result(doc, 0), "times"), 0, json_real(-1));
    expect_refused(doc, "results[0].times[0]: a number >= 0 expected, got -1");
    doc = good_doc();
    json_object_del(result(doc, 0), "mechanism");
    expect_refused(doc, "results[0]: \"mechanism\" missing");
    doc = good_doc();
    json_object_set_new(result(doc, 0), "n", json_real(4.0));
    expect_refused(doc, "results[0].n: an integer >= 0 expected, got 4.0");
    doc = good_doc();
    json_object_set_new(result(doc, 0), "median_ci", json_pack("[f]", 1.0));
    expect_refused(doc, "results[0].median_ci: null or a pair of numbers expected");
    doc = good_doc();
    json_object_set_new(result(doc, 0), "family", json_string("vm"));
    expect_refused(doc, "results[0].family: process, namespace or container expected");
    doc = good_doc();
    json_object_set_new(json_object_get(json_object_get(doc, "meta"), "host"), "cores",
                        json_integer(0));
    expect_refused(doc, "meta.host.cores: an integer >= 1 expected, got 0");
    doc = good_doc();
    json_object_set_new(json_object_get(doc, "meta"), "date_utc", json_string("yesterday"));
    expect_refused(doc, "meta.date_utc: YYYY-MM-DDTHH:MM:SSZ expected");
}

static void test_self_contradictions(void **state)
{
    (void)state;
    json_t *doc = good_doc();
    json_object_set_new(result(doc, 0), "runs", json_integer(5));
    expect_refused(doc, "results[0]: 4 times but runs is 5");
    doc = good_doc();
    json_object_set_new(result(doc, 1), "n", json_integer(3));
    expect_refused(doc, "results[1]: n (3) + failed (2) is not runs (4)");
    doc = good_doc();
    json_object_set_new(json_array_get(json_object_get(result(doc, 1), "failures"), 1), "index",
                        json_integer(4));
    expect_refused(doc, "results[1].failures[1].index: a sample index below 4 expected");
    doc = good_doc();
    json_object_set_new(json_array_get(json_object_get(result(doc, 1), "failures"), 1), "index",
                        json_integer(1));
    expect_refused(doc, "results[1].failures[1]: sample 1 listed twice");
    doc = good_doc();
    json_object_set_new(result(doc, 1), "mechanism", json_string("process"));
    expect_refused(doc, "mechanism \"process\", case \"true\" appears twice");
    doc = good_doc();
    json_object_set_new(result(doc, 2), "reason", json_null());
    expect_refused(doc, "results[2].reason: a string expected for a result that was skipped");
    doc = good_doc();
    json_object_set_new(result(doc, 0), "exit_codes", json_pack("[i]", 0));
    expect_refused(doc, "results[0]: exit_codes and times differ in length");
}

static void test_messages_stay_on_one_line(void **state)
{
    (void)state;
    json_t *doc = good_doc();
    json_object_set_new(doc, "schema", json_string("evil\nschema\r\x1b[31m"));
    expect_refused(doc, "evil?schema??[31m");
    struct results_file f;
    char err[512];
    const char nul[] = "{\"schema\": \"a\0b\"}";
    assert_int_equal(parse(nul, sizeof nul - 1, &f, err), -1);
    assert_null(strchr(err, '\n'));
}

/* Every prefix of a good file, and random byte flips: refused or read, never a crash or leak. */
static void test_never_crashes(void **state)
{
    (void)state;
    size_t len = strlen(good);
    char *copy = malloc(len);
    struct results_file f;
    char err[512];
    for (size_t cut = 0; cut < len; cut++) {
        memcpy(copy, good, cut);
        int rc = parse(copy, cut, &f, err);
        /* Only whitespace may be cut from a good file and leave it good. */
        if (rc == 0)
            results_file_free(&f);
        else
            assert_true(err[0] != '\0');
    }
    struct rng r;
    rng_seed(&r, 17);
    for (int round = 0; round < 3000; round++) {
        memcpy(copy, good, len);
        for (int k = 0; k < 1 + round % 4; k++)
            copy[rng_below(&r, len)] = (char)rng_below(&r, 256);
        if (parse(copy, len, &f, err) == 0)
            results_file_free(&f);
        else
            assert_null(strchr(err, '\n'));
    }
    free(copy);
}

static void test_load_from_path(void **state)
{
    (void)state;
    struct results_file f;
    char err[512];
    assert_int_equal(results_load("/nonexistent/r.json", &f, err, sizeof err), -1);
    assert_string_equal(err, "cannot open: No such file or directory");
    assert_int_equal(results_load("/", &f, err, sizeof err), -1);
    assert_string_equal(err, "is a directory, not a results file");
    char path[] = "/tmp/sbxbench-load-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, good, strlen(good)), (ssize_t)strlen(good));
    close(fd);
    assert_int_equal(results_load(path, &f, err, sizeof err), 0);
    assert_int_equal(f.n_results, 3);
    results_file_free(&f);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file_is_read_faithfully),
        cmocka_unit_test(test_bad_documents),
        cmocka_unit_test(test_schema_violations_name_the_place),
        cmocka_unit_test(test_self_contradictions),
        cmocka_unit_test(test_messages_stay_on_one_line),
        cmocka_unit_test(test_never_crashes),
        cmocka_unit_test(test_load_from_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
