/* sbx-action's argument form: what the harness encodes, sbx-action decodes the same; bad forms
 * fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "helpers/pipeline_args.h"

static void decode_fails(char **args, size_t n, const char *expected)
{
    struct pl_pipeline p;
    char why[256] = "";
    assert_int_equal(pl_decode(n, args, &p, why, sizeof why), -1);
    assert_int_equal(p.n_stages, 0);
    assert_null(p.stages);
    if (!strstr(why, expected))
        fail_msg("expected an error containing '%s', got '%s'", expected, why);
}

static void test_decode_pipeline(void **state)
{
    (void)state;
    char *args[] = {"2",      "/bin/cat", "<", "<",  "/in",    "|",  "3",
                    "/bin/x", "|",        ">", ">>", "/tmp/o", "2>", "/tmp/e"};
    struct pl_pipeline p;
    char why[256] = "";
    assert_int_equal(pl_decode(sizeof args / sizeof args[0], args, &p, why, sizeof why), 0);
    assert_int_equal(p.n_stages, 2);
    assert_int_equal(p.stages[0].argc, 2);
    assert_string_equal(p.stages[0].argv[0], "/bin/cat");
    assert_string_equal(p.stages[0].argv[1], "<"); /* counted: an argument, not an operator */
    assert_null(p.stages[0].argv[2]);
    assert_int_equal(p.stages[0].n_redirs, 1);
    assert_int_equal(p.stages[0].redirs[0].kind, PL_IN);
    assert_string_equal(p.stages[0].redirs[0].path, "/in");
    assert_int_equal(p.stages[1].argc, 3);
    assert_string_equal(p.stages[1].argv[1], "|");
    assert_string_equal(p.stages[1].argv[2], ">");
    assert_int_equal(p.stages[1].n_redirs, 2);
    assert_int_equal(p.stages[1].redirs[0].kind, PL_APPEND);
    assert_string_equal(p.stages[1].redirs[0].path, "/tmp/o");
    assert_int_equal(p.stages[1].redirs[1].kind, PL_ERR);
    pl_free(&p);
}

static void test_decode_redirections(void **state)
{
    (void)state;
    char *args[] = {"1", "/bin/cat", "<", "/in", "2>&1", ">", "/out", "2>>", "/log"};
    struct pl_pipeline p;
    char why[256] = "";
    assert_int_equal(pl_decode(sizeof args / sizeof args[0], args, &p, why, sizeof why), 0);
    assert_int_equal(p.n_stages, 1);
    assert_int_equal(p.stages[0].n_redirs, 4);
    assert_int_equal(p.stages[0].redirs[0].kind, PL_IN);
    assert_int_equal(p.stages[0].redirs[1].kind, PL_ERR_TO_OUT);
    assert_null(p.stages[0].redirs[1].path);
    assert_int_equal(p.stages[0].redirs[2].kind, PL_OUT);
    assert_int_equal(p.stages[0].redirs[3].kind, PL_ERR_APPEND);
    assert_string_equal(p.stages[0].redirs[3].path, "/log");
    pl_free(&p);
}

static void test_round_trip(void **state)
{
    (void)state;
    char *a0[] = {"/bin/printf", "%s|%s\n", ">", NULL};
    char *a1[] = {"/usr/bin/tr", "a", "b", NULL};
    struct pl_redir r0[] = {{PL_IN, "/dev/null"}, {PL_ERR_TO_OUT, NULL}};
    struct pl_redir r1[] = {{PL_APPEND, "/tmp/out file"}};
    struct pl_stage stages[] = {{a0, 3, r0, 2}, {a1, 3, r1, 1}};
    struct pl_pipeline in = {stages, 2};
    size_t n = pl_encoded_len(&in);
    assert_int_equal(n, (1 + 3 + 2 + 1) + 1 + (1 + 3 + 2));
    const char **words = calloc(n + 1, sizeof *words);
    char numbers[2 * 24];
    pl_encode(&in, words, numbers);
    assert_string_equal(words[0], "3");
    assert_string_equal(words[4], "<");
    assert_string_equal(words[7], "|");
    struct pl_pipeline out;
    char why[256] = "";
    assert_int_equal(pl_decode(n, (char **)words, &out, why, sizeof why), 0);
    assert_int_equal(out.n_stages, 2);
    for (size_t s = 0; s < 2; s++) {
        assert_int_equal(out.stages[s].argc, stages[s].argc);
        for (size_t a = 0; a < stages[s].argc; a++)
            assert_string_equal(out.stages[s].argv[a], stages[s].argv[a]);
        assert_int_equal(out.stages[s].n_redirs, stages[s].n_redirs);
        for (size_t r = 0; r < stages[s].n_redirs; r++) {
            assert_int_equal(out.stages[s].redirs[r].kind, stages[s].redirs[r].kind);
            if (stages[s].redirs[r].path)
                assert_string_equal(out.stages[s].redirs[r].path, stages[s].redirs[r].path);
        }
    }
    pl_free(&out);
    free(words);
}

static void test_operator_names(void **state)
{
    (void)state;
    for (int k = PL_IN; k <= PL_ERR_TO_OUT; k++)
        assert_int_equal(pl_redir_kind_of(pl_redir_op((enum pl_redir_kind)k)), k);
    assert_int_equal(pl_redir_kind_of("|"), -1);
    assert_int_equal(pl_redir_target_fd(PL_IN), 0);
    assert_int_equal(pl_redir_target_fd(PL_APPEND), 1);
    assert_int_equal(pl_redir_target_fd(PL_ERR_TO_OUT), 2);
}

static void test_decode_errors(void **state)
{
    (void)state;
    decode_fails(NULL, 0, "no command");
    char *zero[] = {"0"};
    decode_fails(zero, 1, "expected the number of words");
    char *leading_zero[] = {"01", "/bin/true"};
    decode_fails(leading_zero, 2, "expected the number of words");
    char *not_number[] = {"/bin/true"};
    decode_fails(not_number, 1, "got '/bin/true'");
    char *too_many[] = {"3", "/bin/echo", "a"};
    decode_fails(too_many, 3, "no more than follow");
    char *huge[] = {"99999999999", "x"};
    decode_fails(huge, 2, "expected the number of words");
    char *trailing_pipe[] = {"1", "/bin/true", "|"};
    decode_fails(trailing_pipe, 3, "a command is missing after '|'");
    char *no_file[] = {"1", "/bin/true", ">"};
    decode_fails(no_file, 3, "'>' needs a file name");
    char *stray[] = {"1", "/bin/true", "extra"};
    decode_fails(stray, 3, "expected a redirection or '|', got 'extra'");
    char *bad_second[] = {"1", "/bin/true", "|", "x"};
    decode_fails(bad_second, 4, "got 'x'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_pipeline), cmocka_unit_test(test_decode_redirections),
        cmocka_unit_test(test_round_trip),      cmocka_unit_test(test_operator_names),
        cmocka_unit_test(test_decode_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
