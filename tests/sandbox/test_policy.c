/* Unit tests: the seccomp policy parser, the filter it compiles to, and the built-in policy against
 * its table in docs/sandbox.md (given as the first argument; skipped without it). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sandbox/internal.h"

static const char *docs_path;

static void test_default_policy_parses(void **state)
{
    (void)state;
    struct policy p;
    struct sbx_error e;
    assert_int_equal(policy_parse(&p, sbx_default_policy, "default", &e), 0);
    assert_int_equal(p.default_action, POLICY_ALLOW);
    assert_true(p.n_rules > 40);
    bool mount_denied = false;
    for (size_t i = 0; i < p.n_rules; i++)
        mount_denied |= strcmp(p.rules[i].syscall, "mount") == 0 &&
                        p.rules[i].action == POLICY_ERRNO && p.rules[i].errnum == EPERM &&
                        p.rules[i].n_conds == 0;
    assert_true(mount_denied);
    struct sock_fprog f;
    assert_int_equal(filter_build(&p, &f, &e), 0);
    assert_true(f.len > 10);
    filter_free(&f);
    policy_free(&p);
}

static void test_rules_and_conditions(void **state)
{
    (void)state;
    struct policy p;
    struct sbx_error e;
    const char *text = "# comment\r\n\n  default deny EACCES   # trailing comment\n"
                       "allow read write\n"
                       "kill ptrace\n"
                       "deny 22 ioctl if arg1 & 0xffffffff == TIOCSTI and arg0 != 3\n";
    assert_int_equal(policy_parse(&p, text, "t", &e), 0);
    assert_int_equal(p.default_action, POLICY_ERRNO);
    assert_int_equal(p.default_errnum, EACCES);
    assert_int_equal(p.n_rules, 4);
    assert_string_equal(p.rules[0].syscall, "read");
    assert_int_equal(p.rules[0].action, POLICY_ALLOW);
    assert_string_equal(p.rules[1].syscall, "write");
    assert_int_equal(p.rules[2].action, POLICY_KILL);
    const struct policy_rule *r = &p.rules[3];
    assert_string_equal(r->syscall, "ioctl");
    assert_int_equal(r->errnum, 22);
    assert_int_equal(r->n_conds, 2);
    assert_int_equal(r->conds[0].index, 1);
    assert_int_equal(r->conds[0].mask, 0xffffffffULL);
    assert_int_equal(r->conds[0].value, 0x5412);
    assert_false(r->conds[0].not_equal);
    assert_int_equal(r->conds[1].index, 0);
    assert_true(r->conds[1].not_equal);
    assert_int_equal(r->conds[1].value, 3);
    /* libseccomp probes the kernel with seccomp(2), which valgrind does not emulate. */
    if (!getenv("SBXBENCH_UNDER_VALGRIND")) {
        struct sock_fprog f;
        assert_int_equal(filter_build(&p, &f, &e), 0);
        filter_free(&f);
    }
    policy_free(&p);
}

static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *expect;
    } cases[] = {
        {"default allow\nfrobnicate mount\n", "line 2: expected default, allow, deny or kill"},
        {"default allow\ndeny EWHATEVER mount\n", "line 2: unknown errno: EWHATEVER"},
        {"default allow\ndeny EPERM\n", "line 2: no syscall named"},
        {"default allow\ndeny\n", "line 2: deny needs an errno"},
        {"default allow\n\n\ndeny EPERM mount if arg6 == 1\n", "line 4: expected arg0 to arg5"},
        {"default allow\ndeny EPERM mount if arg0 & 1 != 1\n", "a masked condition can only be =="},
        {"default allow\ndeny EPERM mount if arg0 == 1 and arg0 == 2\n",
         "one condition per argument"},
        {"default allow\ndeny EPERM mount if arg0 = 1\n", "expected == or !="},
        {"default allow\ndeny EPERM mount if arg0 == one\n", "bad value"},
        {"default allow\ndeny EPERM mount if\n", "a condition is missing"},
        {"default allow\ndeny EPERM mount if arg0 == 1 or arg1 == 2\n", "expected 'and'"},
        {"default allow\nallow get-pid\n", "not a syscall name"},
        {"deny EPERM mount\n", "no 'default' line"},
        {"default allow\ndefault kill\n", "line 2: a second default"},
        {"default allow please\n", "unexpected word"},
        {"default deny 99999\n", "unknown errno"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct policy p;
        struct sbx_error e = {{0}};
        if (policy_parse(&p, cases[i].text, "f.policy", &e) == 0) {
            policy_free(&p);
            fail_msg("accepted: %s", cases[i].text);
        }
        if (!strstr(e.msg, cases[i].expect) || !strstr(e.msg, "seccomp: f.policy"))
            fail_msg("for %s: message '%s' lacks '%s'", cases[i].text, e.msg, cases[i].expect);
    }
}

static void test_unknown_syscall(void **state)
{
    (void)state;
    struct policy p;
    struct sbx_error e;
    assert_int_equal(policy_parse(&p, "default allow\ndeny EPERM mount no_such_call\n", "t", &e),
                     0);
    struct sock_fprog f;
    assert_int_equal(filter_build(&p, &f, &e), -1);
    assert_non_null(strstr(e.msg, "no_such_call"));
    policy_free(&p);
}

static void test_errno_names(void **state)
{
    (void)state;
    assert_int_equal(policy_errno_from_name("EPERM"), EPERM);
    assert_int_equal(policy_errno_from_name("ENOSYS"), ENOSYS);
    assert_int_equal(policy_errno_from_name("13"), 13);
    assert_int_equal(policy_errno_from_name("0"), -1);
    assert_int_equal(policy_errno_from_name("eperm"), -1);
    assert_string_equal(policy_errno_name(EPERM), "EPERM");
    assert_null(policy_errno_name(4000));
}

/* "clone:1:0x10000000" for each rule of a policy, sorted, one string. */
static char *rule_key(const char *syscall, int errnum, uint64_t value, bool has_value)
{
    char *k = NULL;
    if (has_value ? asprintf(&k, "%s:%d:%#llx", syscall, errnum, (unsigned long long)value) < 0
                  : asprintf(&k, "%s:%d", syscall, errnum) < 0)
        return NULL;
    return k;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static uint64_t constant(const char *name)
{
    static const struct {
        const char *n;
        uint64_t v;
    } names[] = {
        {"CLONE_NEWNS", 0x00020000},     {"CLONE_NEWUTS", 0x04000000}, {"CLONE_NEWIPC", 0x08000000},
        {"CLONE_NEWUSER", 0x10000000},   {"CLONE_NEWPID", 0x20000000}, {"CLONE_NEWNET", 0x40000000},
        {"CLONE_NEWCGROUP", 0x02000000}, {"TIOCSTI", 0x5412},          {"TIOCLINUX", 0x541C}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(names[i].n, name) == 0)
            return names[i].v;
    fail_msg("unknown constant %s in the docs' table", name);
    return 0;
}

/* Every rule of the built-in policy is a row of the documented table, and every row a rule. */
static void test_docs_table_matches(void **state)
{
    (void)state;
    FILE *f = docs_path ? fopen(docs_path, "r") : NULL;
    if (!f) {
        print_message("docs/sandbox.md not given or not found: skipped\n");
        skip();
    }
    char *doc[256], line[1024];
    size_t n_doc = 0;
    bool in_table = false;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "<!-- seccomp-table"))
            in_table = true;
        else if (strstr(line, "<!-- /seccomp-table"))
            in_table = false;
        if (!in_table || strncmp(line, "| `", 3) != 0)
            continue;
        char *cells[3], *save = NULL;
        char *c = strtok_r(line + 1, "|", &save);
        for (int i = 0; i < 3; i++, c = strtok_r(NULL, "|", &save))
            cells[i] = c ? c : "";
        char errname[32] = "";
        sscanf(strchr(cells[2], '`') ? strchr(cells[2], '`') + 1 : "", "%31[A-Z]", errname);
        int err = policy_errno_from_name(errname);
        assert_true(err > 0);
        char cname[64] = "";
        const char *u = strpbrk(cells[1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
        if (u)
            sscanf(u, "%63[A-Z_]", cname);
        for (char *tick = strchr(cells[0], '`'); tick; tick = strchr(tick + 1, '`')) {
            char name[64];
            if (sscanf(tick + 1, "%63[a-z0-9_]", name) != 1)
                continue;
            tick = strchr(tick + 1, '`');
            doc[n_doc++] = rule_key(name, err, cname[0] ? constant(cname) : 0, cname[0] != 0);
            if (!tick)
                break;
        }
    }
    fclose(f);
    struct policy p;
    struct sbx_error e;
    assert_int_equal(policy_parse(&p, sbx_default_policy, "default", &e), 0);
    char **code = calloc(p.n_rules, sizeof *code);
    for (size_t i = 0; i < p.n_rules; i++) {
        const struct policy_rule *r = &p.rules[i];
        code[i] =
            rule_key(r->syscall, r->errnum, r->n_conds ? r->conds[0].value : 0, r->n_conds > 0);
    }
    qsort(doc, n_doc, sizeof *doc, cmp_str);
    qsort(code, p.n_rules, sizeof *code, cmp_str);
    for (size_t i = 0; i < n_doc || i < p.n_rules; i++) {
        const char *d = i < n_doc ? doc[i] : "(none)", *k = i < p.n_rules ? code[i] : "(none)";
        if (strcmp(d, k) != 0)
            fail_msg("docs/sandbox.md says %s where the default policy has %s", d, k);
    }
    for (size_t i = 0; i < n_doc; i++)
        free(doc[i]);
    for (size_t i = 0; i < p.n_rules; i++)
        free(code[i]);
    free(code);
    policy_free(&p);
}

int main(int argc, char **argv)
{
    docs_path = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_policy_parses),
        cmocka_unit_test(test_rules_and_conditions),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_unknown_syscall),
        cmocka_unit_test(test_errno_names),
        cmocka_unit_test(test_docs_table_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
