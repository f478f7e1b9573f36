/* `run`'s option parsing: defaults, each option, and every way to get it wrong (exit code 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness/config.h"
#include "harness/parse.h"

#define PARSE(cfg, ...)                                                                            \
    ({                                                                                             \
        char *argv_[] = {"run", __VA_ARGS__, NULL};                                                \
        parse_run_args((int)(sizeof argv_ / sizeof argv_[0]) - 1, argv_, cfg);                     \
    })

static void test_defaults(void **state)
{
    (void)state;
    struct run_config cfg;
    char *argv[] = {"run", NULL};
    assert_int_equal(parse_run_args(1, argv, &cfg), 0);
    assert_int_equal(cfg.runs, DEFAULT_RUNS);
    assert_int_equal(cfg.warmup, DEFAULT_WARMUP);
    assert_int_equal(cfg.order, ORDER_INTERLEAVED);
    assert_int_equal(cfg.format, FORMAT_TABLE);
    assert_string_equal(cfg.mechanisms[0], "process"); /* all, in table order */
    assert_int_equal(strv_len(cfg.mechanisms), runner_count());
    assert_string_equal(cfg.workloads[0], "true");
    assert_null(cfg.workloads[1]);
    run_config_free(&cfg);
}

static void test_every_option(void **state)
{
    (void)state;
    struct run_config cfg;
    assert_int_equal(PARSE(&cfg, "--mechanism=bwrap,process", "-w", "true", "--runs", "7",
                           "--warmup=0", "-o", "x.json", "--format=markdown", "--order=grouped",
                           "--pin=0-1", "--timeout=2.5", "--path-dirs=64", "--spawn=fork",
                           "--seed=9", "--render-size=64", "--pipe-bytes=1000"),
                     0);
    assert_string_equal(cfg.mechanisms[0], "bwrap");
    assert_string_equal(cfg.mechanisms[1], "process");
    assert_int_equal(cfg.runs, 7);
    assert_int_equal(cfg.warmup, 0);
    assert_string_equal(cfg.output, "x.json");
    assert_int_equal(cfg.format, FORMAT_MARKDOWN);
    assert_int_equal(cfg.order, ORDER_GROUPED);
    assert_string_equal(cfg.pin, "0-1");
    assert_float_equal(cfg.timeout, 2.5, 0);
    assert_int_equal(cfg.ropts.path_dirs, 64);
    assert_int_equal(cfg.ropts.spawn, SPAWN_FORK);
    assert_int_equal(cfg.seed, 9);
    assert_int_equal(cfg.wopts.render_size, 64);
    assert_int_equal(cfg.wopts.pipe_bytes, 1000);
    run_config_free(&cfg);

    assert_int_equal(PARSE(&cfg, "--min-time=0.5"), 0);
    assert_float_equal(cfg.min_time, 0.5, 0);
    run_config_free(&cfg);
}

static void test_help_returns_one(void **state)
{
    (void)state;
    struct run_config cfg;
    assert_int_equal(PARSE(&cfg, "--help"), 1);
    run_config_free(&cfg);
}

static void expect_usage_error(const char *a, const char *b)
{
    struct run_config cfg;
    char *argv[] = {"run", (char *)a, (char *)b, NULL};
    int argc = b ? 3 : 2;
    assert_int_equal(parse_run_args(argc, argv, &cfg), 2);
    run_config_free(&cfg);
}

static void test_usage_errors(void **state)
{
    (void)state;
    expect_usage_error("--mechanism=nosuch", NULL);
    expect_usage_error("--mechanism=process,,bwrap", NULL);
    expect_usage_error("--mechanism=", NULL);
    expect_usage_error("--workload=nosuch", NULL);
    expect_usage_error("--runs=0", NULL);
    expect_usage_error("--runs=12x", NULL);
    expect_usage_error("--runs=-3", NULL);
    expect_usage_error("--runs=99999999999999999999", NULL);
    expect_usage_error("--min-time=nan", NULL);
    expect_usage_error("--min-time=0", NULL);
    expect_usage_error("--warmup=-1", NULL);
    expect_usage_error("--format=xml", NULL);
    expect_usage_error("--order=random", NULL);
    expect_usage_error("--pin=a", NULL);
    expect_usage_error("--pin=3-1", NULL);
    expect_usage_error("--timeout=-1", NULL);
    expect_usage_error("--timeout=inf", NULL);
    expect_usage_error("--path-dirs=100000", NULL);
    expect_usage_error("--spawn=clone", NULL);
    expect_usage_error("--color=sometimes", NULL);
    expect_usage_error("--render-size=1", NULL);
    expect_usage_error("--no-such-option", NULL);
    expect_usage_error("--runs", NULL); /* missing value */
    expect_usage_error("stray", NULL);
    expect_usage_error("--runs=5", "--min-time=1");
}

static void test_parse_helpers(void **state)
{
    (void)state;
    long l;
    double d;
    assert_true(parse_long("42", 0, 100, &l) && l == 42);
    assert_false(parse_long("", 0, 100, &l));
    assert_false(parse_long(" 4", 0, 100, &l) && l == 4 && false);
    assert_false(parse_long("101", 0, 100, &l));
    assert_true(parse_double("1e-3", 0, 1, &d) && d == 1e-3);
    assert_false(parse_double("1.5.2", 0, 10, &d));
    unsigned long long mask;
    assert_int_equal(parse_cpu_list("0,2-3", &mask), 0);
    assert_int_equal(mask, 0xdULL);
    assert_int_equal(parse_cpu_list("64", &mask), -1);
    char **v = parse_list("a,b");
    assert_non_null(v);
    assert_string_equal(v[1], "b");
    strv_free(v);
    assert_null(parse_list("a,"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_option),
        cmocka_unit_test(test_help_returns_one),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_parse_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
