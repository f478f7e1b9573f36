/* Unit tests: the sandbox's input options (--inputs, --input, --inputs-from, --staging,
 * --overlay-lower), their formatting back, the inputs' directories, and what sbx_prepare refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox/internal.h"

static int parse(struct sbx_config *c, char **argv, struct sbx_error *e)
{
    int argc = 0, i = 0, rc = 1;
    while (argv[argc])
        argc++;
    while (i < argc && (rc = sbx_parse_option(c, argc, argv, &i, e)) == 1)
        ;
    return rc;
}

static void free_words(char **w)
{
    for (size_t i = 0; w && w[i]; i++)
        free(w[i]);
    free(w);
}

static void test_options(void **state)
{
    (void)state;
    struct sbx_config c;
    struct sbx_error e;
    sbx_config_init(&c);
    char *argv[] = {"--inputs",    "/in//root/", "--input",   "a/b.c",
                    "--input=d.h", "--staging",  "bind-each", NULL};
    assert_int_equal(parse(&c, argv, &e), 1);
    assert_string_equal(c.inputs.root, "/in/root");
    assert_int_equal(c.inputs.n, 2);
    assert_string_equal(c.inputs.files[0], "a/b.c");
    assert_string_equal(c.inputs.files[1], "d.h");
    assert_null(c.inputs.files[2]);
    assert_int_equal(c.inputs.how, SBX_STAGE_BIND_EACH);
    /* Without a list file, each input is written back as --input. */
    char **w = sbx_config_format(&c);
    assert_non_null(w);
    size_t n = 0, inputs = 0;
    bool staging = false;
    for (; w[n]; n++) {
        inputs += strncmp(w[n], "--input=", 8) == 0;
        staging |= strcmp(w[n], "--staging=bind-each") == 0;
    }
    assert_int_equal(inputs, 2);
    assert_true(staging);
    struct sbx_config d;
    sbx_config_init(&d);
    assert_int_equal(parse(&d, w, &e), 1);
    assert_int_equal(d.inputs.n, 2);
    assert_string_equal(d.inputs.root, "/in/root");
    free_words(w);
    sbx_config_free(&c);
    sbx_config_free(&d);
    for (int s = SBX_STAGE_PER_FILE; s <= SBX_STAGE_OVERLAY; s++)
        assert_int_equal(sbx_staging_from_name(sbx_staging_name((enum sbx_staging)s)), s);
}

static void test_inputs_from(void **state)
{
    (void)state;
    char list[] = "/tmp/sbx-inputs-list-XXXXXX";
    int fd = mkstemp(list);
    assert_true(fd >= 0);
    const char text[] = "s0/f0.in\n\ns1/m2/f9.in\nlast\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    struct sbx_config c;
    struct sbx_error e;
    sbx_config_init(&c);
    char *argv[] = {
        "--inputs=/r", "--inputs-from", list, "--staging=overlay", "--overlay-lower=/cache/lower",
        NULL};
    assert_int_equal(parse(&c, argv, &e), 1);
    assert_int_equal(c.inputs.n, 3); /* the blank line is skipped */
    assert_string_equal(c.inputs.files[2], "last");
    assert_string_equal(c.inputs.lower, "/cache/lower");
    /* With a list file, the file is written back, not its lines. */
    char **w = sbx_config_format(&c);
    bool from = false;
    for (size_t i = 0; w[i]; i++) {
        assert_true(strncmp(w[i], "--input=", 8) != 0);
        from |= strncmp(w[i], "--inputs-from=", 14) == 0 && strcmp(w[i] + 14, list) == 0;
    }
    assert_true(from);
    free_words(w);
    sbx_config_free(&c);
    /* A bad line names itself. */
    fd = open(list, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0 && write(fd, "ok\n../up\n", 9) == 9);
    close(fd);
    sbx_config_init(&c);
    char *bad[] = {"--inputs-from", list, NULL};
    assert_int_equal(parse(&c, bad, &e), -1);
    assert_non_null(strstr(e.msg, "../up"));
    sbx_config_free(&c);
    unlink(list);
    sbx_config_init(&c);
    char *missing[] = {"--inputs-from", "/sbx/no/such/list", NULL};
    assert_int_equal(parse(&c, missing, &e), -1);
    assert_non_null(strstr(e.msg, "No such file"));
    sbx_config_free(&c);
}

static void test_option_errors(void **state)
{
    (void)state;
    const char *bad[][2] = {
        {"--inputs", "relative/root"},
        {"--input", "/absolute"},
        {"--input", "a/../b"},
        {"--input", "a//b"},
        {"--input", "a/"},
        {"--input", "./a"},
        {"--input", ""},
        {"--staging", "per_file"},
        {"--overlay-lower", "/a:b"},
        {"--overlay-lower", "lower"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct sbx_config c;
        struct sbx_error e = {{0}};
        sbx_config_init(&c);
        char *argv[] = {(char *)bad[i][0], (char *)bad[i][1], NULL};
        assert_int_equal(parse(&c, argv, &e), -1);
        assert_non_null(strstr(e.msg, bad[i][0]));
        assert_null(strchr(e.msg, '\n'));
        sbx_config_free(&c);
    }
}

static void test_dirs(void **state)
{
    (void)state;
    struct sbx_error e;
    char *files[] = {"b/x/y/f", "a/f", "top", "b/x/g", "a/f2", "b-c/h", NULL};
    char **dirs = inputs_dirs(files, &e);
    assert_non_null(dirs);
    const char *want[] = {"a", "b", "b-c", "b/x", "b/x/y"};
    size_t n = 0;
    for (; dirs[n]; n++) {
        assert_true(n < 5);
        assert_string_equal(dirs[n], want[n]);
    }
    assert_int_equal(n, 5);
    /* Each after its parent. */
    for (size_t i = 0; i < n; i++) {
        const char *slash = strrchr(dirs[i], '/');
        if (!slash)
            continue;
        bool parent_before = false;
        for (size_t j = 0; j < i; j++)
            parent_before |= strlen(dirs[j]) == (size_t)(slash - dirs[i]) &&
                             strncmp(dirs[j], dirs[i], (size_t)(slash - dirs[i])) == 0;
        assert_true(parent_before);
    }
    vec_free(dirs);
    char *flat[] = {"x", "y", NULL};
    dirs = inputs_dirs(flat, &e);
    assert_non_null(dirs);
    assert_null(dirs[0]);
    vec_free(dirs);
}

static void test_prepare_refuses(void **state)
{
    (void)state;
    char *cmd[] = {"true", NULL};
    struct {
        const char *options[6];
        const char *message;
    } cases[] = {
        {{"--inputs=/usr", NULL}, "no input named"},
        {{"--inputs=/usr", "--input=bin", "--staging=overlay", NULL}, "--overlay-lower"},
        {{"--inputs=/usr", "--input=bin", "--mechanism=inproc-ns", NULL}, "filesystem layer"},
        {{"--inputs=/sbx/no/such/root", "--input=f", NULL}, "/sbx/no/such/root"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct sbx_config c;
        struct sbx_error e = {{0}};
        struct sbx *s = NULL;
        sbx_config_init(&c);
        assert_int_equal(parse(&c, (char **)cases[i].options, &e), 1);
        assert_int_equal(sbx_config_command(&c, cmd, &e), 0);
        assert_int_equal(sbx_prepare(&c, &s, &e), -1);
        assert_null(s);
        assert_non_null(strstr(e.msg, cases[i].message));
        sbx_config_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),         cmocka_unit_test(test_inputs_from),
        cmocka_unit_test(test_option_errors),   cmocka_unit_test(test_dirs),
        cmocka_unit_test(test_prepare_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
