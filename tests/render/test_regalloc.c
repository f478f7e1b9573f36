/* Register allocation: the allocated code, simulated, computes the program's values whatever the
 * register count; registers and slots are written before they are read; slots are reused. */
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
#include "workloads/render/interp.h"
#include "workloads/render/optimize.h"
#include "workloads/render/regalloc.h"

static void check_against_interpreter(const struct vm_prog *p, const struct mcode *m, uint64_t *rng,
                                      int points, const char *what)
{
    struct vm_interp *in = vm_interp_new(p);
    float *scratch = vm_interp_scratch_new(in);
    assert_non_null(scratch);
    for (int i = 0; i < points; i++) {
        float x = random_coord(rng), y = random_coord(rng), expected;
        vm_interp_eval(in, scratch, &x, &y, &expected, 1);
        float got = simulate_mcode(m, x, y);
        if (!same_value(got, expected))
            fail_msg("%s: at (%a, %a): %a, expected %a", what, (double)x, (double)y, (double)got,
                     (double)expected);
    }
    free(scratch);
    vm_interp_free(in);
}

static void test_random_programs(void **state)
{
    (void)state;
    static const unsigned reg_counts[] = {4, 5, 6, 8, 16, 32};
    for (uint64_t seed = 1; seed <= 200; seed++) {
        uint64_t rng = seed;
        char *text = random_program(&rng, 3 + rng_below(&rng, seed % 10 == 0 ? 2000 : 200));
        struct vm_prog src, p;
        struct vm_opt_stats st;
        parse_ok(text, &src);
        assert_int_equal(vm_optimize(&src, &p, &st), 0);
        for (size_t r = 0; r < sizeof reg_counts / sizeof reg_counts[0]; r++) {
            struct mcode m;
            assert_int_equal(regalloc(&p, reg_counts[r], &m), 0);
            for (size_t i = 0; i < m.n_mops; i++) {
                assert_true(m.mops[i].dst < reg_counts[r]);
                assert_true(m.mops[i].src1 < reg_counts[r]);
                if (m.mops[i].src2_kind == OPND_REG)
                    assert_true(m.mops[i].src2 < reg_counts[r]);
            }
            assert_true(m.n_slots <= m.n_stores);
            char what[64];
            snprintf(what, sizeof what, "seed %llu, %u registers", (unsigned long long)seed,
                     reg_counts[r]);
            check_against_interpreter(&p, &m, &rng, 20, what);
            mcode_free(&m);
        }
        vm_prog_free(&src);
        vm_prog_free(&p);
        free(text);
    }
}

/* More registers never cost more stores on the same program (Belady's choice is monotone here in
 * practice; a regression would show as a jump), and with all 32 a small program spills nothing. */
static void test_no_spills_when_it_fits(void **state)
{
    (void)state;
    struct vm_prog p;
    parse_ok("_0 var-x\n_1 var-y\n_2 square _0\n_3 square _1\n_4 add _2 _3\n_5 sqrt _4\n"
             "_6 const 0.5\n_7 sub _5 _6\n",
             &p);
    struct mcode m;
    assert_int_equal(regalloc(&p, 32, &m), 0);
    assert_int_equal(m.n_slots, 0);
    assert_int_equal(m.n_stores, 0);
    /* x and y are loaded once each, the constant is a memory operand: 7 mops. */
    assert_int_equal(m.n_mops, 7);
    assert_int_equal(m.n_mem_operands, 1);
    mcode_free(&m);
    vm_prog_free(&p);
}

/* A wide program: 40 values all live at once need 40 - n_regs slots, and slots come back. */
static void test_slots_are_reused(void **state)
{
    (void)state;
    char text[8192];
    size_t len = 0;
    len += (size_t)snprintf(text + len, sizeof text - len, "_0 var-x\n");
    for (int round = 0; round < 3; round++) {
        int base = 1 + round * 79;
        /* 40 values from x, then their sum: all 40 are live until the sum consumes them. */
        for (int i = 0; i < 40; i++)
            len += (size_t)snprintf(text + len, sizeof text - len, "_%x %s _%x\n", base + i,
                                    i % 2 ? "square" : "neg", round == 0 ? 0 : base - 1);
        len += (size_t)snprintf(text + len, sizeof text - len, "_%x add _%x _%x\n", base + 40, base,
                                base + 1);
        for (int i = 2; i < 40; i++)
            len += (size_t)snprintf(text + len, sizeof text - len, "_%x add _%x _%x\n",
                                    base + 39 + i, base + 38 + i, base + i);
    }
    struct vm_prog p;
    parse_ok(text, &p);
    struct mcode m;
    assert_int_equal(regalloc(&p, 8, &m), 0);
    /* Three rounds each spill about 32 values; reusing slots keeps the total near one round's. */
    assert_true(m.n_stores >= 3 * 30);
    assert_true(m.n_slots <= 40);
    uint64_t rng = 3;
    check_against_interpreter(&p, &m, &rng, 50, "wide program");
    mcode_free(&m);
    vm_prog_free(&p);
}

static void test_prospero(void **state)
{
    (void)state;
    size_t len;
    char *text = read_shared_or_skip("prospero.vm", &len);
    struct vm_prog src, p;
    struct vm_opt_stats st;
    parse_ok(text, &src);
    assert_int_equal(vm_optimize(&src, &p, &st), 0);
    unsigned counts[] = {16, 32};
    for (int i = 0; i < 2; i++) {
        struct mcode m;
        assert_int_equal(regalloc(&p, counts[i], &m), 0);
        /* The published AVX2 JIT needed 142 slots with reuse (2781 without). */
        assert_true(m.n_slots < 142);
        assert_true(m.n_slots < m.n_stores);
        uint64_t rng = 5;
        check_against_interpreter(&p, &m, &rng, 200, "prospero");
        mcode_free(&m);
    }
    vm_prog_free(&src);
    vm_prog_free(&p);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_programs),
        cmocka_unit_test(test_no_spills_when_it_fits),
        cmocka_unit_test(test_slots_are_reused),
        cmocka_unit_test(test_prospero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
