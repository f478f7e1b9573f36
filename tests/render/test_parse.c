/* The VM parser: what it accepts, the value of each constant, and one error with the right line
 * for every kind of bad input. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/render/testlib.h"
#include "workloads/render/parse.h"

static int parse_text(const char *text, size_t len, struct vm_prog *p, struct vm_parse_error *err)
{
    return vm_parse(text, len, p, err);
}

static void test_valid_program(void **state)
{
    (void)state;
    const char *text = "# a comment\n"
                       "_0 var-x\r\n"
                       "\n"
                       "   # indented comment\n"
                       "_1\tvar-y\n"
                       "_2 const 2.5\n"
                       "_3 add _0 _1\n"
                       "_4 sub _3 _2\n"
                       "_5 mul _4 _4\n"
                       "_6 max _5 _0\n"
                       "_7 min _6 _1\n"
                       "_8 neg _7\n"
                       "_9 square _8\n"
                       "_a sqrt _9"; /* no final newline */
    struct vm_prog p;
    parse_ok(text, &p);
    assert_int_equal(p.n, 11);
    static const enum vm_op ops[] = {VM_VAR_X, VM_VAR_Y, VM_CONST, VM_ADD,    VM_SUB, VM_MUL,
                                     VM_MAX,   VM_MIN,   VM_NEG,   VM_SQUARE, VM_SQRT};
    for (int i = 0; i < 11; i++)
        assert_int_equal(p.insns[i].op, ops[i]);
    assert_true(p.insns[2].imm == 2.5f);
    assert_int_equal(p.insns[3].a, 0);
    assert_int_equal(p.insns[3].b, 1);
    assert_int_equal(p.insns[4].a, 3);
    assert_int_equal(p.insns[4].b, 2);
    assert_int_equal(p.insns[10].a, 9);
    vm_prog_free(&p);
}

static void test_ids_of_every_spelling(void **state)
{
    (void)state;
    /* Canonical hex ids go through the direct map, the rest through the hash table: "_10" and
     * "_010" are different ids, and each reference must find its own. */
    const char *text = "_10 var-x\n"
                       "_010 var-y\n"
                       "_Abc_9 sub _10 _010\n"
                       "_ffffffff neg _Abc_9\n"
                       "_zz add _ffffffff _010\n";
    struct vm_prog p;
    parse_ok(text, &p);
    assert_int_equal(p.n, 5);
    assert_int_equal(p.insns[2].a, 0);
    assert_int_equal(p.insns[2].b, 1);
    assert_int_equal(p.insns[3].a, 2);
    assert_int_equal(p.insns[4].a, 3);
    assert_int_equal(p.insns[4].b, 1);
    vm_prog_free(&p);
}

static float parse_constant(const char *number)
{
    char text[512];
    snprintf(text, sizeof text, "_0 const %s\n", number);
    struct vm_prog p;
    parse_ok(text, &p);
    float f = p.insns[0].imm;
    vm_prog_free(&p);
    return f;
}

static void test_numbers(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        float value;
    } cases[] = {
        {"1", 1.0f},
        {"-1", -1.0f},
        {"+1.5", 1.5f},
        {".5", 0.5f},
        {"5.", 5.0f},
        {"1e3", 1000.0f},
        {"1E-3", 1e-3f},
        {"0.1", 0.1f},
        {"8.13008", 8.13008f},
        {"1e-45", 1e-45f},
        {"3.4028235e38", 3.4028235e38f},
        {"000000000000000000000000000012.5", 12.5f},
        {"0.000000000000000000000000000000000000000000001", 1e-45f},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float got = parse_constant(cases[i].text);
        if (memcmp(&got, &cases[i].value, sizeof got) != 0)
            fail_msg("%s: got %a, expected %a", cases[i].text, (double)got, (double)cases[i].value);
    }
    float z = parse_constant("-0");
    assert_true(z == 0.0f && signbit(z));
    z = parse_constant("0.0");
    assert_true(z == 0.0f && !signbit(z));
}

/* The fast path (Clinger's) and the slow path (strtod) must agree with strtod then rounding to
 * float, the VM format's definition, for any decimal. */
static void test_numbers_match_strtod(void **state)
{
    (void)state;
    uint64_t rng = 42;
    for (int i = 0; i < 200000; i++) {
        char num[64];
        int digits = 1 + (int)rng_below(&rng, 20);
        int point = (int)rng_below(&rng, (uint32_t)digits + 1);
        int n = 0;
        if (rng_below(&rng, 2))
            num[n++] = '-';
        for (int d = 0; d < digits; d++) {
            if (d == point && d > 0)
                num[n++] = '.';
            num[n++] = (char)('0' + rng_below(&rng, 10));
        }
        if (rng_below(&rng, 3) == 0)
            n += snprintf(num + n, sizeof num - (size_t)n, "e%d", (int)rng_below(&rng, 80) - 40);
        num[n] = '\0';
        double d = strtod(num, NULL);
        float expected = (float)d;
        if (!isfinite(expected))
            continue;
        float got = parse_constant(num);
        if (memcmp(&got, &expected, sizeof got) != 0)
            fail_msg("%s: got %a, expected %a", num, (double)got, (double)expected);
    }
}

static void test_long_numbers(void **state)
{
    (void)state;
    /* 400 characters still parse (through strtod); one more is refused with its own message. */
    char text[512] = "_0 const 0.";
    size_t len = strlen(text);
    while (len < 9 + 400)
        text[len++] = '0';
    text[len - 1] = '5';
    text[len] = '\0';
    struct vm_prog p;
    parse_ok(text, &p);
    assert_true(p.insns[0].imm == 0.0f); /* 5e-389 underflows to zero */
    vm_prog_free(&p);
    text[len - 1] = '0';
    text[len++] = '5';
    text[len] = '\0';
    struct vm_parse_error err;
    assert_int_equal(vm_parse(text, len, &p, &err), -1);
    assert_non_null(strstr(err.msg, "number too long"));
}

struct bad_case {
    const char *text;
    size_t len; /* 0: strlen */
    unsigned long line;
    const char *message; /* a substring of the error */
};

static const struct bad_case bad_cases[] = {
    {"", 0, 1, "empty program"},
    {"# only a comment\n\n", 0, 2, "empty program"},
    {"# only a comment", 0, 1, "empty program"},
    {"\n", 0, 1, "empty program"},
    {"_0 var-x\n_1 foo _0\n", 0, 2, "unknown op 'foo'"},
    {"_0 var-x\n_1 add _0\n", 0, 2, "'add' takes 2 operands, not 1"},
    {"_0 var-x\n_1 add _0 _0 _0\n", 0, 2, "'add' takes 2 operands, not more than 2"},
    {"_0 neg\n", 0, 1, "'neg' takes 1 operand, not 0"},
    {"_0 var-x _1\n", 0, 1, "'var-x' takes 0 operands, not 1"},
    {"_0 const\n", 0, 1, "'const' takes 1 operand, not 0"},
    {"_0 const 1 2\n", 0, 1, "'const' takes 1 operand, not 2"},
    {"_0 var-x\n_1 neg _7\n", 0, 2, "undefined reference '_7'"},
    {"_0 var-x\n_1 neg _2\n_2 var-y\n", 0, 2, "forward reference to '_2' (defined on line 3)"},
    {"_0 var-x\n_1 neg _1\n", 0, 2, "'_1' refers to itself"},
    {"_0 var-x\n_0 var-y\n", 0, 2, "duplicate id '_0' (first defined on line 1)"},
    {"_a_b var-x\n\n_a_b var-y\n", 0, 3, "duplicate id '_a_b' (first defined on line 1)"},
    {"_0 const 1.2.3\n", 0, 1, "bad number '1.2.3'"},
    {"_0 const 1e\n", 0, 1, "bad number '1e'"},
    {"_0 const e5\n", 0, 1, "bad number 'e5'"},
    {"_0 const 0x10\n", 0, 1, "bad number '0x10'"},
    {"_0 const nan\n", 0, 1, "bad number 'nan'"},
    {"_0 const inf\n", 0, 1, "bad number 'inf'"},
    {"_0 const -\n", 0, 1, "bad number '-'"},
    {"_0 const 1,5\n", 0, 1, "bad number '1,5'"},
    {"_0 const 1e39\n", 0, 1, "out of single-precision range '1e39'"},
    {"_0 const -4e38\n", 0, 1, "out of single-precision range"},
    {"x var-x\n", 0, 1, "bad id 'x'"},
    {"_ var-x\n", 0, 1, "bad id '_'"},
    {"_a-b var-x\n", 0, 1, "bad id '_a-b'"},
    {"_0\n", 0, 1, "missing op after '_0'"},
    {"_0 var-x\n_1 neg x\n", 0, 2, "bad operand 'x'"},
    {"_0 var-x\x01\n", 0, 1, "bad character 0x01 in column 9"},
    {"_0 var\0-x\n", 10, 1, "bad character 0x00 in column 7"},
    {"_0 var-x\n_1 neg _0\n_2 sqrt _1\n_3 mul _2 _9\n", 0, 4, "undefined reference '_9'"},
    {"_0 const 1234567890123456789012345678901234567890123456789012345\n", 0, 1,
     "out of single-precision range '1234567890123456789012345678901234567890...'"},
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        size_t len = c->len ? c->len : strlen(c->text);
        struct vm_prog p;
        struct vm_parse_error err;
        if (parse_text(c->text, len, &p, &err) == 0)
            fail_msg("case %zu parsed; expected '%s'", i, c->message);
        if (err.line != c->line || !strstr(err.msg, c->message))
            fail_msg("case %zu: line %lu: '%s'; expected line %lu: '%s'", i, err.line, err.msg,
                     c->line, c->message);
        assert_null(p.insns);
    }
}

/* Mutated programs: whatever the bytes, a program or one error on a line that exists. */
static void test_mutations_never_crash(void **state)
{
    (void)state;
    uint64_t rng = 7;
    char *base = random_program(&rng, 60);
    size_t len = strlen(base);
    char *buf = malloc(len + 64);
    assert_non_null(buf);
    for (int i = 0; i < 20000; i++) {
        memcpy(buf, base, len);
        size_t n = len;
        int edits = 1 + (int)rng_below(&rng, 4);
        for (int e = 0; e < edits; e++) {
            size_t at = rng_below(&rng, (uint32_t)n);
            switch (rng_below(&rng, 3)) {
            case 0:
                buf[at] = (char)rng_below(&rng, 256);
                break;
            case 1:
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
                break;
            default:
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = " \n_0x.e-"[rng_below(&rng, 8)];
                n++;
                break;
            }
        }
        unsigned long lines = 1;
        for (size_t k = 0; k < n; k++)
            lines += buf[k] == '\n';
        struct vm_prog p;
        struct vm_parse_error err;
        if (vm_parse(buf, n, &p, &err) == 0) {
            assert_true(p.n >= 1);
            for (uint32_t k = 0; k < p.n; k++) {
                int arity = vm_op_arity((enum vm_op)p.insns[k].op);
                assert_true(arity < 1 || p.insns[k].a < k);
                assert_true(arity < 2 || p.insns[k].b < k);
            }
            vm_prog_free(&p);
        } else {
            assert_true(err.line >= 1 && err.line <= lines);
            assert_true(err.msg[0] != '\0');
        }
    }
    free(buf);
    free(base);
}

static void test_prospero(void **state)
{
    (void)state;
    size_t len;
    char *text = read_shared_or_skip("prospero.vm", &len);
    struct vm_prog p;
    struct vm_parse_error err;
    assert_int_equal(vm_parse(text, len, &p, &err), 0);
    assert_int_equal(p.n, 7866);
    assert_int_equal(p.insns[p.n - 1].op, VM_MIN);
    vm_prog_free(&p);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_program), cmocka_unit_test(test_ids_of_every_spelling),
        cmocka_unit_test(test_numbers),       cmocka_unit_test(test_numbers_match_strtod),
        cmocka_unit_test(test_errors),        cmocka_unit_test(test_mutations_never_crash),
        cmocka_unit_test(test_long_numbers),  cmocka_unit_test(test_prospero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
