/* The words of a description line: quoting, expansion, operators, and each error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "workloads/wl_lex.h"

static const char *vars(void *ctx, const char *name)
{
    (void)ctx;
    if (strcmp(name, "dir") == 0)
        return "/some dir";
    if (strcmp(name, "n") == 0)
        return "42";
    if (strcmp(name, "empty") == 0)
        return "";
    return NULL;
}

static void lex_ok(const char *line, struct wl_tokens *t)
{
    char why[256] = "";
    int rc = wl_lex(line, vars, NULL, t, why, sizeof why);
    if (rc != 0)
        fail_msg("'%s' should lex, got: %s", line, why);
}

static void lex_fails(const char *line, const char *expected)
{
    struct wl_tokens t;
    char why[256] = "";
    assert_int_equal(wl_lex(line, vars, NULL, &t, why, sizeof why), -1);
    assert_int_equal(t.n, 0);
    assert_null(t.v);
    if (!strstr(why, expected))
        fail_msg("'%s': expected an error containing '%s', got '%s'", line, expected, why);
}

static void assert_words(const char *line, const char *const *words, size_t n)
{
    struct wl_tokens t;
    lex_ok(line, &t);
    assert_int_equal(t.n, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(t.v[i].kind, WL_WORD);
        assert_string_equal(t.v[i].text, words[i]);
    }
    wl_tokens_free(&t);
}

static void test_blanks_and_comments(void **state)
{
    (void)state;
    const char *const w[] = {"a", "b", "c#d"};
    assert_words("  a\tb  c#d  # a comment | > ", w, 3);
    assert_words("", w, 0);
    assert_words("   # only a comment", w, 0);
}

static void test_quotes_and_escapes(void **state)
{
    (void)state;
    const char *const w[] = {"it's", "a b", "${dir}", "x\"y", "\\n", "$", "a b"};
    assert_words("\"it's\" 'a b' '${dir}' \"x\\\"y\" \"\\n\" \"\\$\" a\\ b", w, 7);
    const char *const glued[] = {"abc", ""};
    assert_words("a'b'\"c\" ''", glued, 2);
}

static void test_variables_are_one_word(void **state)
{
    (void)state;
    const char *const w[] = {"/some dir/x", "/some dir", "n=42", ""};
    assert_words("${dir}/x \"${dir}\" n=${n} ${empty}", w, 4);
}

static void test_operators(void **state)
{
    (void)state;
    struct wl_tokens t;
    lex_ok("a<in|b 2>err 2>>log >out>>app 2>&1|c", &t);
    const enum wl_token_kind kinds[] = {WL_WORD, WL_REDIR, WL_WORD, WL_PIPE,  WL_WORD, WL_REDIR,
                                        WL_WORD, WL_REDIR, WL_WORD, WL_REDIR, WL_WORD, WL_REDIR,
                                        WL_WORD, WL_REDIR, WL_PIPE, WL_WORD};
    assert_int_equal(t.n, sizeof kinds / sizeof kinds[0]);
    for (size_t i = 0; i < t.n; i++)
        assert_int_equal(t.v[i].kind, kinds[i]);
    assert_int_equal(t.v[1].redir, PL_IN);
    assert_int_equal(t.v[5].redir, PL_ERR);
    assert_int_equal(t.v[7].redir, PL_ERR_APPEND);
    assert_int_equal(t.v[9].redir, PL_OUT);
    assert_int_equal(t.v[11].redir, PL_APPEND);
    assert_int_equal(t.v[13].redir, PL_ERR_TO_OUT);
    assert_string_equal(t.v[12].text, "app");
    wl_tokens_free(&t);
    /* Quoted, or inside a word after its start, they are characters. */
    const char *const w[] = {"|", "a>b", "x2"};
    assert_words("'|' \"a>b\" x2", w, 3);
}

static void test_quote_errors(void **state)
{
    (void)state;
    lex_fails("a 'bc", "unterminated '...'");
    lex_fails("a \"bc", "unterminated \"...\"");
    lex_fails("a \"b${dir}", "unterminated \"...\"");
    lex_fails("a\\", "a backslash ends the line");
}

static void test_variable_errors(void **state)
{
    (void)state;
    lex_fails("$dir", "'$' must start ${name}");
    lex_fails("\"$dir\"", "'$' must start ${name}");
    lex_fails("${dir", "bad variable reference");
    lex_fails("${}", "bad variable reference");
    lex_fails("${1x}", "bad variable reference");
    lex_fails("${a-b}", "bad variable reference");
    lex_fails("${nosuch}", "unknown variable ${nosuch}");
    lex_fails("\"${nosuch}\"", "unknown variable ${nosuch}");
    char longname[128];
    snprintf(longname, sizeof longname, "${%070d}", 0);
    longname[2] = 'x';
    lex_fails(longname, "variable name too long");
}

static void test_shell_syntax_errors(void **state)
{
    (void)state;
    lex_fails("a; b", "unquoted ';'");
    lex_fails("a & b", "unquoted '&'");
    lex_fails("echo `x`", "unquoted '`'");
    lex_fails("(a)", "unquoted '('");
    lex_fails("a)", "unquoted ')'");
    lex_fails("ls *.c", "no filename globbing");
    lex_fails("ls a?", "no filename globbing");
    lex_fails("a >&2", "'>&' is not supported");
    lex_fails("a 2>&2", "'2>&' is not supported");
    lex_fails("a <&0", "'<&' is not supported");
    lex_fails("a >|f", "'>|' is not supported");
    lex_fails("a 2>|f", "'2>|' is not supported");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blanks_and_comments),    cmocka_unit_test(test_quotes_and_escapes),
        cmocka_unit_test(test_variables_are_one_word), cmocka_unit_test(test_operators),
        cmocka_unit_test(test_quote_errors),           cmocka_unit_test(test_variable_errors),
        cmocka_unit_test(test_shell_syntax_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
