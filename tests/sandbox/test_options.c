/* Unit tests: the sandbox's options (sbx_parse_option) and their formatting back
 * (sbx_config_format). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sandbox/sbx.h"

/* Parses every word of a NULL-terminated list; returns the first failing rc (or 1) and the index
 * where parsing stopped. */
static int parse_all(struct sbx_config *c, char **argv, int *stopped, struct sbx_error *e)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    int i = 0, rc = 1;
    while (i < argc && (rc = sbx_parse_option(c, argc, argv, &i, e)) == 1)
        ;
    *stopped = i;
    return rc;
}

static int parse_words(struct sbx_config *c, const char *w1, const char *w2, struct sbx_error *e)
{
    char *argv[] = {(char *)w1, (char *)w2, NULL};
    int stopped;
    sbx_config_init(c);
    return parse_all(c, w2 ? argv : (char *[]){(char *)w1, NULL}, &stopped, e);
}

static void test_bind_forms(void **state)
{
    (void)state;
    struct sbx_config c;
    struct sbx_error e;
    assert_int_equal(parse_words(&c, "--ro-bind", "/usr/share", &e), 1);
    assert_int_equal(c.n_binds, 1);
    assert_string_equal(c.binds[0].src, "/usr/share");
    assert_string_equal(c.binds[0].dst, "/usr/share");
    assert_false(c.binds[0].rw);
    sbx_config_free(&c);

    assert_int_equal(parse_words(&c, "--bind=/home/me/src:/work", NULL, &e), 1);
    assert_string_equal(c.binds[0].src, "/home/me/src");
    assert_string_equal(c.binds[0].dst, "/work");
    assert_true(c.binds[0].rw);
    sbx_config_free(&c);

    /* Relative sources are fine with a destination; the destination is normalised. */
    assert_int_equal(parse_words(&c, "--bind", "build:/out//x///", &e), 1);
    assert_string_equal(c.binds[0].src, "build");
    assert_string_equal(c.binds[0].dst, "/out/x");
    sbx_config_free(&c);

    /* A colon not followed by a slash is part of the path. */
    assert_int_equal(parse_words(&c, "--ro-bind", "/a:b", &e), 1);
    assert_string_equal(c.binds[0].src, "/a:b");
    assert_string_equal(c.binds[0].dst, "/a:b");
    sbx_config_free(&c);
}

static void test_bind_errors(void **state)
{
    (void)state;
    struct sbx_config c;
    struct sbx_error e;
    assert_int_equal(parse_words(&c, "--bind", "relative", &e), -1);
    assert_non_null(strstr(e.msg, "relative"));
    sbx_config_free(&c);
    assert_int_equal(parse_words(&c, "--bind", "/a:/b/../c", &e), -1);
    assert_non_null(strstr(e.msg, ".."));
    sbx_config_free(&c);
    assert_int_equal(parse_words(&c, "--ro-bind", "/a:/", &e), -1);
    assert_non_null(strstr(e.msg, "root"));
    sbx_config_free(&c);
    assert_int_equal(parse_words(&c, "--ro-bind", ":/x", &e), -1);
    sbx_config_free(&c);
    assert_int_equal(parse_words(&c, "--tmpfs", "tmp", &e), -1);
    assert_non_null(strstr(e.msg, "absolute"));
    sbx_config_free(&c);
    assert_int_equal(parse_words(&c, "--chdir", "work", &e), -1);
    sbx_config_free(&c);
}

static void test_values(void **state)
{
    (void)state;
    struct sbx_config c;
    struct sbx_error e;
    char *argv[] = {
        "--setenv",  "A=1",         "--setenv=B=x=y", "--clearenv",  "--hostname",
        "box",       "--share-net", "--cap-add",      "NET_RAW",     "--cap-add=cap_sys_ptrace",
        "--seccomp", "none",        "--timeout=2.5",  "--mechanism", "inproc-fs",
        "--tmpfs",   "/scratch",    "--chdir=/work",  NULL};
    int stopped;
    sbx_config_init(&c);
    assert_int_equal(parse_all(&c, argv, &stopped, &e), 1);
    assert_string_equal(c.setenv[0], "A=1");
    assert_string_equal(c.setenv[1], "B=x=y");
    assert_true(c.clearenv);
    assert_string_equal(c.hostname, "box");
    assert_true(c.share_net);
    assert_string_equal(c.cap_add[0], "cap_net_raw");
    assert_string_equal(c.cap_add[1], "cap_sys_ptrace");
    assert_string_equal(c.seccomp, "none");
    assert_true(c.timeout > 2.49 && c.timeout < 2.51);
    assert_int_equal(c.layer, SBX_FILESYSTEM);
    assert_string_equal(c.tmpfs[0], "/scratch");
    assert_string_equal(c.chdir, "/work");
    sbx_config_free(&c);
}

static void test_value_errors(void **state)
{
    (void)state;
    struct sbx_config c;
    struct sbx_error e;
    const char *bad[][2] = {
        {"--setenv", "NOEQUALS"}, {"--setenv", "=v"},    {"--cap-add", "cap_flying"},
        {"--timeout", "-1"},      {"--timeout", "soon"}, {"--mechanism", "docker"},
        {"--hostname", ""},       {"--seccomp", ""},     {"--clearenv=yes", NULL},
        {"--bind", NULL},         {"--cap-add", "net_raw\xff"}, {"--cap-add", "net_raw-x"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(parse_words(&c, bad[i][0], bad[i][1], &e), -1);
        assert_true(strncmp(e.msg, "sandbox: ", 9) == 0);
        sbx_config_free(&c);
    }
}

static void test_stops(void **state)
{
    (void)state;
    struct sbx_config c;
    struct sbx_error e;
    int stopped;
    char *argv[] = {"--clearenv", "--", "cmd", NULL};
    sbx_config_init(&c);
    assert_int_equal(parse_all(&c, argv, &stopped, &e), 0); /* "--" is the caller's */
    assert_int_equal(stopped, 1);
    sbx_config_free(&c);
    char *argv2[] = {"--clearenv", "make", "--bind", NULL};
    assert_int_equal(parse_all(&c, argv2, &stopped, &e), 0); /* the command's own options */
    assert_int_equal(stopped, 1);
    sbx_config_free(&c);
    char *argv3[] = {"--frobnicate", NULL};
    assert_int_equal(parse_all(&c, argv3, &stopped, &e), 0);
    assert_int_equal(stopped, 0);
    sbx_config_free(&c);
    assert_int_equal(sbx_layer_from_name("inproc"), SBX_FULL);
    assert_int_equal(sbx_layer_from_name("inproc-ns"), SBX_NAMESPACES);
    assert_int_equal(sbx_layer_from_name("process"), -1);
}

/* Formatting the options and parsing them again gives the same options. */
static void test_format_round_trip(void **state)
{
    (void)state;
    struct sbx_config c, d;
    struct sbx_error e;
    char *argv[] = {"--mechanism=inproc-fs",
                    "--ro-bind",
                    "/usr/share",
                    "--bind",
                    "out:/o",
                    "--tmpfs",
                    "/t",
                    "--chdir",
                    "/o",
                    "--clearenv",
                    "--setenv",
                    "K=V",
                    "--hostname",
                    "h",
                    "--share-net",
                    "--cap-add",
                    "net_raw",
                    "--seccomp",
                    "x.policy",
                    "--timeout",
                    "3",
                    NULL};
    int stopped;
    sbx_config_init(&c);
    assert_int_equal(parse_all(&c, argv, &stopped, &e), 1);
    char **words = sbx_config_format(&c);
    assert_non_null(words);
    sbx_config_init(&d);
    assert_int_equal(parse_all(&d, words, &stopped, &e), 1);
    char **again = sbx_config_format(&d);
    size_t n = 0;
    for (; words[n]; n++) {
        assert_non_null(again[n]);
        assert_string_equal(words[n], again[n]);
    }
    assert_null(again[n]);
    assert_string_equal(words[0], "--mechanism=inproc-fs");
    for (size_t i = 0; words[i]; i++) {
        free(words[i]);
        free(again[i]);
    }
    free(words);
    free(again);
    assert_int_equal(d.n_binds, 2);
    assert_string_equal(d.binds[1].dst, "/o");
    sbx_config_free(&c);
    sbx_config_free(&d);

    /* Defaults are left out. */
    sbx_config_init(&c);
    words = sbx_config_format(&c);
    assert_string_equal(words[0], "--mechanism=inproc");
    assert_null(words[1]);
    free(words[0]);
    free(words);
    sbx_config_free(&c);
}

static void test_prepare_errors(void **state)
{
    (void)state;
    /* sbx_prepare starts the template in new namespaces with mount_setattr and seccomp, which
     * valgrind does not emulate (tests/extra/valgrind.sh sets this). */
    if (getenv("SBXBENCH_UNDER_VALGRIND"))
        skip();
    struct sbx_config c;
    struct sbx_error e;
    struct sbx *s = NULL;
    sbx_config_init(&c);
    assert_int_equal(sbx_prepare(&c, &s, &e), -1); /* no command */
    assert_null(s);
    char *cmd[] = {"true", NULL};
    assert_int_equal(sbx_config_command(&c, cmd, &e), 0);
    assert_int_equal(sbx_config_bind(&c, "/sbx/no/such/dir", false, &e), 0);
    assert_int_equal(sbx_prepare(&c, &s, &e), -1);
    assert_non_null(strstr(e.msg, "/sbx/no/such/dir"));
    assert_non_null(strstr(e.msg, "No such file"));
    sbx_config_free(&c);

    sbx_config_init(&c);
    assert_int_equal(sbx_config_command(&c, cmd, &e), 0);
    assert_int_equal(sbx_config_string(&c.seccomp, "/sbx/no/such.policy", &e), 0);
    assert_int_equal(sbx_prepare(&c, &s, &e), -1);
    assert_non_null(strstr(e.msg, "seccomp: /sbx/no/such.policy"));
    sbx_config_free(&c);

    /* A good one prepares, whether or not this host can run it. */
    sbx_config_init(&c);
    assert_int_equal(sbx_config_command(&c, cmd, &e), 0);
    assert_int_equal(sbx_prepare(&c, &s, &e), 0);
    sbx_free(s);
    sbx_config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bind_forms),     cmocka_unit_test(test_bind_errors),
        cmocka_unit_test(test_values),         cmocka_unit_test(test_value_errors),
        cmocka_unit_test(test_stops),          cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_prepare_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
