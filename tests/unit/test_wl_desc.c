/* Description files: what parses, what each case expands to, and every error with its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/wl_desc.h"

static void base_vars(struct wl_vars *v)
{
    memset(v, 0, sizeof *v);
    wl_vars_set(v, "dir", "/");
    wl_vars_set(v, "exe_dir", "/bin");
    wl_vars_set(v, "pipe_sizes", "4,16");
    wl_vars_set(v, "pipe_bytes", "1000");
}

static void parse_ok(const char *text, struct wl_desc *d)
{
    struct wl_vars v;
    base_vars(&v);
    struct errbuf eb = {{0}};
    if (wl_desc_parse("t.wl", text, &v, d, &eb) != 0)
        fail_msg("should parse:\n%s\ngot: %s", text, eb.msg);
}

/* expected: the start of the message after "t.wl:", e.g. "3: unknown directive". */
static void parse_fails_as(const char *path, const char *text, const char *expected)
{
    struct wl_vars v;
    base_vars(&v);
    struct errbuf eb = {{0}};
    struct wl_desc d;
    assert_int_equal(wl_desc_parse(path, text, &v, &d, &eb), -1);
    assert_null(d.path);
    assert_null(d.name);
    if (!strstr(eb.msg, expected))
        fail_msg("%s\nexpected an error containing '%s', got '%s'", text, expected, eb.msg);
}

static void parse_fails(const char *text, const char *expected)
{
    parse_fails_as("t.wl", text, expected);
}

/* Instantiates case index of text; expects success. */
static void instance_ok(const char *text, size_t index, struct wl_desc *d, struct wl_instance *in)
{
    parse_ok(text, d);
    struct wl_vars v;
    base_vars(&v);
    struct errbuf eb = {{0}};
    bool host = true;
    if (wl_instantiate(d, index, &v, in, &host, &eb) != 0)
        fail_msg("should instantiate:\n%s\ngot: %s", text, eb.msg);
    assert_false(host);
}

static void instance_fails(const char *text, const char *expected, bool host_missing)
{
    struct wl_desc d;
    parse_ok(text, &d);
    struct wl_vars v;
    base_vars(&v);
    struct errbuf eb = {{0}};
    struct wl_instance in;
    bool host = !host_missing;
    assert_int_equal(wl_instantiate(&d, 0, &v, &in, &host, &eb), -1);
    assert_null(in.label);
    assert_null(in.strings);
    if (!strstr(eb.msg, expected))
        fail_msg("%s\nexpected an error containing '%s', got '%s'", text, expected, eb.msg);
    if (host != host_missing)
        fail_msg("%s\n%s: host_missing should be %d", text, eb.msg, host_missing);
    wl_desc_free(&d);
}

static void test_parse_everything(void **state)
{
    (void)state;
    struct wl_desc d;
    parse_ok("# a comment\n"
             "\n"
             "summary   two params \t \n"
             "param size ${pipe_sizes} in 1..100\n"
             "param mode fast,slow\n"
             "label ${size}-${mode}\n"
             "ro /etc\n"
             "ro /usr /bin\n"
             "rw ${tmp}\n"
             "env A=1 B=2\r\n"
             "cwd /\n"
             "expect-stdout ok\n"
             "throughput ${size}\n"
             "run sh -c 'echo ok' \\\n"
             "    | cat\n",
             &d);
    assert_string_equal(d.name, "t");
    assert_string_equal(d.summary, "two params");
    assert_int_equal(d.n_params, 2);
    assert_string_equal(d.params[0].name, "size");
    assert_int_equal(d.params[0].n_values, 2);
    assert_string_equal(d.params[0].values[1], "16");
    assert_true(d.params[0].numeric);
    assert_false(d.params[1].numeric);
    assert_int_equal(d.n_cases, 4);
    assert_int_equal(d.ro.n, 2);
    assert_int_equal(d.ro.v[1].lineno, 8);
    assert_int_equal(d.env.n, 1);
    assert_int_equal(d.run.lineno, 14);
    assert_true(d.uses_tmp);
    wl_desc_free(&d);

    parse_ok("run true", &d);
    assert_null(d.summary);
    assert_int_equal(d.n_cases, 1);
    assert_false(d.uses_tmp);
    wl_desc_free(&d);
}

static void test_parse_directive_errors(void **state)
{
    (void)state;
    parse_fails("run true\nfrobnicate x", "t.wl:2: unknown directive 'frobnicate'");
    parse_fails("averyveryveryverylongdirectivename x\nrun true", "t.wl:1: unknown directive");
    parse_fails("run true\nrun false", "t.wl:2: 'run' given twice (first on line 1)");
    parse_fails("summary a\nsummary b\nrun true", "t.wl:2: 'summary' given twice");
    parse_fails("summary  \t\nrun true", "t.wl:1: 'summary' needs a value");
    parse_fails("run", "t.wl:1: 'run' needs a value");
    parse_fails("run true\nro   ", "t.wl:2: 'ro' needs a value");
    parse_fails("summary x\n", "t.wl: no 'run' line");
    parse_fails("", "no 'run' line");
    /* A continued line keeps its first line's number; the next line is counted right. */
    parse_fails("run a \\\n  b\nnope", "t.wl:3: unknown directive 'nope'");
}

static void test_parse_name_errors(void **state)
{
    (void)state;
    parse_fails_as("dir/.wl", "run true", "dir/.wl: a workload file needs a name");
    parse_fails_as("my workload.wl", "run true", "the file name makes the workload's name");
    struct wl_vars v;
    base_vars(&v);
    struct errbuf eb = {{0}};
    struct wl_desc d;
    assert_int_equal(wl_desc_parse("a/b-1.x.wl", "run true", &v, &d, &eb), 0);
    assert_string_equal(d.name, "b-1.x");
    wl_desc_free(&d);
}

static void test_param_errors(void **state)
{
    (void)state;
    parse_fails("param a 1\nparam b 1\nparam c 1\nparam d 1\nparam e 1\nrun true",
                "t.wl:5: too many params: at most 4");
    parse_fails("param a 'x\nrun true", "t.wl:1: param: unterminated");
    parse_fails("param a ${tmp}\nrun true", "unknown variable ${tmp} (a param may use");
    parse_fails("param a 1 | 2\nrun true", "param: '|' and redirections belong on the run line");
    parse_fails("param a\nrun true", "expected 'param NAME VALUE");
    parse_fails("param Big 1\nrun true", "param: 'Big' is not a name");
    parse_fails("param 1a 1\nrun true", "param: '1a' is not a name");
    parse_fails("param dir 1\nrun true", "param: 'dir' is a built-in variable's name");
    parse_fails("param a 1\nparam a 2\nrun true", "t.wl:2: param a: already defined on line 1");
    parse_fails("param a 1,,2\nrun true", "param a: empty value in list '1,,2'");
    parse_fails("param a 1,\nrun true", "param a: empty value");
    parse_fails("param a 1,2 1\nrun true", "param a: value '1' is listed twice");
    parse_fails("param a 1 in 5\nrun true", "expected a range MIN..MAX after 'in', got '5'");
    parse_fails("param a 1 in 5..1\nrun true", "MIN <= MAX, got '5..1'");
    parse_fails("param a 1 in x..5\nrun true", "MIN <= MAX, got 'x..5'");
    parse_fails("param a 1 in 1..5x\nrun true", "MIN <= MAX, got '1..5x'");
    parse_fails("param a x in 1..5\nrun true", "param a: 'x' is not a whole number");
    parse_fails("param a 1,9 in 1..5\nrun true", "param a: 9 is outside 1..5");
    parse_fails("param a in 1..5\nrun true", "'in MIN..MAX' comes last");
    parse_fails("param a 1 in 1..5 2\nrun true", "'in MIN..MAX' comes last");
    parse_fails("param a ${pipe_sizes} in 5..10\nrun true",
                "param a: 4 is outside 5..10 (from --pipe-sizes)");
    parse_fails("param a 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,"
                "26,27,28,29,30,31,32,33\n"
                "param b 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,"
                "26,27,28,29,30,31,32,33\nrun true",
                "t.wl:2: the params make more than 1024 cases");
}

static void test_instance_pipeline(void **state)
{
    (void)state;
    struct wl_desc d;
    struct wl_instance in;
    instance_ok("param a 1,2\n"
                "param b x,y\n"
                "env K=${a}\n"
                "ro /etc /dev/null\n"
                "throughput 1${a}\n"
                "expect-stdout \"${a} ${b}\"\n"
                "run sh -c \"echo ${a}\" < /dev/null 2>&1 | /bin/cat 2>> /dev/null",
                3, &d, &in);
    /* Case 3 is a=2, b=y: the first param varies slowest. */
    assert_string_equal(in.values[0], "2");
    assert_string_equal(in.values[1], "y");
    assert_string_equal(in.label, "2/y");
    assert_int_equal(in.pipeline.n_stages, 2);
    const struct pl_stage *s0 = &in.pipeline.stages[0], *s1 = &in.pipeline.stages[1];
    assert_int_equal(s0->argc, 3);
    assert_true(s0->argv[0][0] == '/'); /* sh, found in PATH */
    assert_string_equal(s0->argv[2], "echo 2");
    assert_string_equal(in.typed_program, "sh");
    assert_int_equal(s0->n_redirs, 2);
    assert_int_equal(s0->redirs[0].kind, PL_IN);
    assert_string_equal(s0->redirs[0].path, "/dev/null");
    assert_int_equal(s0->redirs[1].kind, PL_ERR_TO_OUT);
    assert_string_equal(s1->argv[0], "/bin/cat");
    assert_int_equal(s1->redirs[0].kind, PL_ERR_APPEND);
    assert_string_equal(in.env[0], "K=2");
    assert_string_equal(in.ro[1], "/dev/null");
    assert_int_equal(in.volume, 12);
    assert_string_equal(in.expect_stdout, "2 y");
    assert_null(in.cwd);
    wl_instance_free(&in);
    wl_desc_free(&d);
}

static void test_instance_label_and_tmp(void **state)
{
    (void)state;
    struct wl_desc d;
    struct wl_instance in;
    instance_ok("param n 4096\nlabel n${n}\ncwd ${tmp}\nrw ${tmp}/x\nrun true > ${tmp}/out", 0, &d,
                &in);
    assert_string_equal(in.label, "n4096");
    assert_string_equal(in.cwd, "/nonexistent/sbxbench-tmp"); /* the stand-in for checking */
    assert_string_equal(in.rw[0], "/nonexistent/sbxbench-tmp/x");
    wl_instance_free(&in);
    wl_desc_free(&d);
    instance_ok("run true", 0, &d, &in);
    assert_string_equal(in.label, "");
    assert_int_equal(in.pipeline.n_stages, 1);
    assert_int_equal(in.volume, 0);
    assert_null(in.env[0]);
    wl_instance_free(&in);
    wl_desc_free(&d);
}

static void test_instance_errors(void **state)
{
    (void)state;
    instance_fails("label ${nosuch}\nrun true", "t.wl:1: unknown variable ${nosuch}", false);
    instance_fails("label a b\nrun true", "label: expected one word, got 2", false);
    instance_fails("label ''\nrun true", "t.wl:1: label: empty after expansion", false);
    instance_fails("label a|b\nrun true", "label: '|' and redirections belong on the run line",
                   false);
    instance_fails("run true 'x", "t.wl:1: unterminated", false);
    instance_fails("run > /dev/null", "run: no command (only redirections)", false);
    instance_fails("run | true", "run: a '|' has no command before it", false);
    instance_fails("run true |", "run: a '|' has no command after it", false);
    instance_fails("run true >", "run: '>' needs a file name after it", false);
    instance_fails("run true 2> | true", "run: '2>' needs a file name after it", false);
    instance_fails("run true > out", "t.wl:1: run: '>': 'out' is not an absolute path", false);
    instance_fails("run ./prog", "run: program './prog' must be a bare name", false);
    instance_fails("run sbxbench-no-such-program-x",
                   "program 'sbxbench-no-such-program-x' not "
                   "found in PATH",
                   true);
    instance_fails("run /etc/passwd", "run: program /etc/passwd: Permission denied", true);
    instance_fails("run /nonexistent/x", "run: program /nonexistent/x: No such file", true);
    instance_fails("run true < /nonexistent/in", "run: '<': /nonexistent/in: No such file", true);
    instance_fails("ro etc\nrun true", "t.wl:1: ro: 'etc' is not an absolute path", false);
    instance_fails("ro /nonexistent/x\nrun true", "ro: /nonexistent/x: No such file", true);
    instance_fails("rw /etc > /x\nrun true", "rw: '|' and redirections belong on the run line",
                   false);
    instance_fails("env 1A=b\nrun true", "env: expected NAME=VALUE", false);
    instance_fails("env A\nrun true", "env: expected NAME=VALUE with a name", false);
    instance_fails("env =x\nrun true", "env: expected NAME=VALUE", false);
    instance_fails("cwd / /\nrun true", "cwd: expected one word, got 2", false);
    instance_fails("cwd tmp\nrun true", "cwd: 'tmp' is not an absolute path", false);
    instance_fails("cwd /nonexistent\nrun true", "cwd: /nonexistent: No such file", true);
    instance_fails("expect-stdout ok\nrun true > /dev/null",
                   "expect-stdout: the last command's stdout is redirected (run line 2)", false);
    instance_fails("throughput x\nrun true", "throughput: expected the bytes a run moves", false);
    instance_fails("throughput 0\nrun true", "throughput: expected the bytes", false);
    instance_fails("throughput -5\nrun true", "throughput: expected the bytes", false);
    instance_fails("throughput 99999999999999999999\nrun true", "throughput: expected", false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_everything),  cmocka_unit_test(test_parse_directive_errors),
        cmocka_unit_test(test_parse_name_errors), cmocka_unit_test(test_param_errors),
        cmocka_unit_test(test_instance_pipeline), cmocka_unit_test(test_instance_label_and_tmp),
        cmocka_unit_test(test_instance_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
