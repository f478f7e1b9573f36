/* Hash-consing, constant folding and dead-code removal: what they remove, and that the program
 * computes exactly the same values afterwards. */
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

static void optimize_text(const char *text, struct vm_prog *out, struct vm_opt_stats *st)
{
    struct vm_prog in;
    parse_ok(text, &in);
    assert_int_equal(vm_optimize(&in, out, st), 0);
    vm_prog_free(&in);
}

static void test_dedup(void **state)
{
    (void)state;
    struct vm_prog p;
    struct vm_opt_stats st;
    optimize_text("_0 var-x\n_1 var-x\n_2 const 2\n_3 const 2\n"
                  "_4 mul _0 _2\n_5 mul _1 _3\n_6 add _4 _5\n",
                  &p, &st);
    /* _1, _3 and then _5 are copies: x, 2, x*2, x*2 + x*2 */
    assert_int_equal(st.before, 7);
    assert_int_equal(st.deduped, 3);
    assert_int_equal(st.after, 4);
    assert_int_equal(p.n, 4);
    assert_int_equal(p.insns[3].op, VM_ADD);
    assert_int_equal(p.insns[3].a, p.insns[3].b);
    vm_prog_free(&p);
}

static void test_operand_order_and_zero_signs_are_kept(void **state)
{
    (void)state;
    struct vm_prog p;
    struct vm_opt_stats st;
    /* min(x, y) and min(y, x) differ for NaN and signed zeros; 0 and -0 are different constants. */
    optimize_text("_0 var-x\n_1 var-y\n_2 min _0 _1\n_3 min _1 _0\n_4 const 0\n_5 const -0\n"
                  "_6 add _2 _4\n_7 add _3 _5\n_8 max _6 _7\n",
                  &p, &st);
    assert_int_equal(st.deduped, 0);
    assert_int_equal(p.n, 9);
    vm_prog_free(&p);
}

static void test_folding(void **state)
{
    (void)state;
    struct vm_prog p;
    struct vm_opt_stats st;
    optimize_text("_0 const 2\n_1 sqrt _0\n_2 neg _1\n_3 const -1\n_4 sqrt _3\n"
                  "_5 var-x\n_6 mul _5 _2\n_7 max _6 _4\n",
                  &p, &st);
    /* sqrt(2), -sqrt(2) and sqrt(-1) become constants; the constants 2 and -1 die. */
    assert_int_equal(st.folded, 3);
    assert_int_equal(p.n, 5);
    bool saw_neg_sqrt2 = false, saw_nan = false;
    for (uint32_t i = 0; i < p.n; i++) {
        if (p.insns[i].op != VM_CONST)
            continue;
        saw_neg_sqrt2 |= p.insns[i].imm == -sqrtf(2.0f);
        saw_nan |= isnan(p.insns[i].imm);
    }
    assert_true(saw_neg_sqrt2 && saw_nan);
    assert_int_equal(p.insns[p.n - 1].op, VM_MAX);
    vm_prog_free(&p);
}

static void test_dead_code(void **state)
{
    (void)state;
    struct vm_prog p;
    struct vm_opt_stats st;
    optimize_text("_0 var-x\n_1 var-y\n_2 square _1\n_3 sqrt _2\n_4 neg _0\n", &p, &st);
    assert_int_equal(st.dead, 3);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.insns[0].op, VM_VAR_X);
    assert_int_equal(p.insns[1].op, VM_NEG);
    assert_int_equal(p.insns[1].a, 0);
    vm_prog_free(&p);
    /* The result is a copy of an earlier instruction: that one becomes the last. */
    optimize_text("_0 var-x\n_1 square _0\n_2 var-y\n_3 square _0\n", &p, &st);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.insns[1].op, VM_SQUARE);
    vm_prog_free(&p);
}

static void eval_all(const struct vm_prog *p, const float *xs, const float *ys, float *out,
                     size_t n)
{
    struct vm_interp *in = vm_interp_new(p);
    assert_non_null(in);
    float *scratch = vm_interp_scratch_new(in);
    assert_non_null(scratch);
    vm_interp_eval(in, scratch, xs, ys, out, n);
    free(scratch);
    vm_interp_free(in);
}

/* Random programs with every op: the optimised program's values are the original's. */
static void test_values_unchanged(void **state)
{
    (void)state;
    enum { POINTS = 200 };
    float xs[POINTS], ys[POINTS], before[POINTS], after[POINTS];
    for (uint64_t seed = 1; seed <= 300; seed++) {
        uint64_t rng = seed;
        char *text = random_program(&rng, 3 + rng_below(&rng, 300));
        struct vm_prog in, out, again;
        struct vm_opt_stats st, st2;
        parse_ok(text, &in);
        assert_int_equal(vm_optimize(&in, &out, &st), 0);
        assert_int_equal(st.before, in.n);
        assert_int_equal(st.after, out.n);
        assert_true(st.after + st.dead + st.deduped <= st.before);
        for (int i = 0; i < POINTS; i++) {
            xs[i] = random_coord(&rng);
            ys[i] = random_coord(&rng);
        }
        eval_all(&in, xs, ys, before, POINTS);
        eval_all(&out, xs, ys, after, POINTS);
        for (int i = 0; i < POINTS; i++)
            if (!same_value(before[i], after[i]))
                fail_msg("seed %llu, point %d: %a before, %a after", (unsigned long long)seed, i,
                         (double)before[i], (double)after[i]);
        /* A second pass finds nothing more. */
        assert_int_equal(vm_optimize(&out, &again, &st2), 0);
        assert_int_equal(again.n, out.n);
        vm_prog_free(&in);
        vm_prog_free(&out);
        vm_prog_free(&again);
        free(text);
    }
}

static void test_prospero(void **state)
{
    (void)state;
    size_t len;
    char *text = read_shared_or_skip("prospero.vm", &len);
    struct vm_prog out;
    struct vm_opt_stats st;
    optimize_text(text, &out, &st);
    /* The published figure: hash-consing removes 275 of 7866 instructions. */
    assert_int_equal(st.before, 7866);
    assert_int_equal(st.deduped, 275);
    assert_int_equal(st.after, 7591);
    vm_prog_free(&out);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dedup),
        cmocka_unit_test(test_operand_order_and_zero_signs_are_kept),
        cmocka_unit_test(test_folding),
        cmocka_unit_test(test_dead_code),
        cmocka_unit_test(test_values_unchanged),
        cmocka_unit_test(test_prospero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
