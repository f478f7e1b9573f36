/* Property tests: random programs using every op, run by the JIT of every ISA this CPU has, give
 * the interpreter's values bit for bit (any NaN matching any NaN) at sampled points, and the sign
 * masks the renderer uses agree with those values. The interpreter runs the program as parsed, so
 * the optimiser is checked too. */
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
#include "workloads/render/jit.h"
#include "workloads/render/optimize.h"
#include "workloads/render/regalloc.h"

#define POINTS 64 /* per row: a multiple of both ISAs' lanes */
#define ROWS 6

struct oracle {
    struct vm_interp *in;
    float *scratch;
};

static void oracle_eval(struct oracle *o, const float *xs, float y, float *out)
{
    float ys[POINTS];
    for (int i = 0; i < POINTS; i++)
        ys[i] = y;
    vm_interp_eval(o->in, o->scratch, xs, ys, out, POINTS);
}

static void *aligned(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    assert_non_null(p);
    return p;
}

/* Runs p's JIT (allocated onto n_regs registers) on ROWS rows and compares with the oracle. */
static void check_jit(const struct vm_prog *p, struct oracle *o, enum render_isa isa,
                      unsigned n_regs, uint64_t *rng, const char *what)
{
    struct mcode m;
    struct jit_kernel values, masks;
    char why[256];
    assert_int_equal(regalloc(p, n_regs, &m), 0);
    if (jit_build(&m, isa, JIT_VALUES, &values, why, sizeof why) < 0 ||
        jit_build(&m, isa, JIT_MASKS, &masks, why, sizeof why) < 0)
        fail_msg("%s: %s", what, why);
    unsigned lanes = values.lanes;
    float *xs = aligned(POINTS * sizeof *xs), *y = aligned(64), *got = aligned(POINTS * 4);
    uint32_t *bits = aligned(POINTS / 8 * sizeof *bits);
    void *spill = aligned(values.spill_bytes + 64);
    float expected[POINTS];
    for (int row = 0; row < ROWS; row++) {
        for (int i = 0; i < POINTS; i++)
            xs[i] = random_coord(rng);
        float yv = random_coord(rng);
        for (unsigned i = 0; i < lanes; i++)
            y[i] = yv;
        oracle_eval(o, xs, yv, expected);
        values.fn(xs, y, got, POINTS / lanes, spill);
        masks.fn(xs, y, bits, POINTS / lanes, spill);
        for (int i = 0; i < POINTS; i++) {
            if (!same_value(got[i], expected[i]))
                fail_msg("%s, %s, %u registers: at (%a, %a): %a, interpreter %a", what,
                         isa_name(isa), n_regs, (double)xs[i], (double)yv, (double)got[i],
                         (double)expected[i]);
            bool inside = (bits[i / lanes] >> (i % lanes)) & 1;
            if (inside != (expected[i] < 0.0f))
                fail_msg("%s, %s: mask bit %d is %d for value %a", what, isa_name(isa), i, inside,
                         (double)expected[i]);
        }
    }
    free(xs);
    free(y);
    free(got);
    free(bits);
    free(spill);
    jit_free(&values);
    jit_free(&masks);
    mcode_free(&m);
}

static void check_program(const char *text, uint64_t *rng, const char *what, bool few_registers)
{
    struct vm_prog src, p;
    struct vm_opt_stats st;
    parse_ok(text, &src);
    assert_int_equal(vm_optimize(&src, &p, &st), 0);
    struct oracle o = {vm_interp_new(&src), NULL};
    assert_non_null(o.in);
    o.scratch = vm_interp_scratch_new(o.in);
    assert_non_null(o.scratch);
    static const enum render_isa isas[] = {ISA_AVX512, ISA_AVX2};
    for (int i = 0; i < 2; i++) {
        if (!isa_supported(isas[i]))
            continue; /* cannot run here; its encoding is still checked by render-encode */
        check_jit(&p, &o, isas[i], jit_registers(isas[i]), rng, what);
        if (few_registers) /* forces spills, reloads and memory operands everywhere */
            check_jit(&p, &o, isas[i], 5, rng, what);
    }
    free(o.scratch);
    vm_interp_free(o.in);
    vm_prog_free(&src);
    vm_prog_free(&p);
}

static void test_random_programs(void **state)
{
    (void)state;
    if (!isa_supported(ISA_AVX2))
        skip(); /* no JIT on this CPU: nothing to compare */
    for (uint64_t seed = 1; seed <= 400; seed++) {
        uint64_t rng = seed * 7919;
        uint32_t n = 3 + rng_below(&rng, seed % 25 == 0 ? 3000 : 120);
        char *text = random_program(&rng, n);
        char what[64];
        snprintf(what, sizeof what, "seed %llu (%u instructions)", (unsigned long long)seed, n);
        check_program(text, &rng, what, seed % 4 == 0);
        free(text);
    }
}

/* Programs built to hit the corners of the IEEE operations the VM names. */
static void test_special_values(void **state)
{
    (void)state;
    if (!isa_supported(ISA_AVX2))
        skip(); /* no JIT on this CPU */
    static const char *const programs[] = {
        /* min and max with NaN and signed zeros, in both operand orders */
        "_0 var-x\n_1 const -1\n_2 sqrt _1\n_3 min _0 _2\n_4 min _2 _0\n_5 max _3 _4\n",
        ("_0 var-x\n_1 const -0\n_2 const 0\n_3 max _1 _2\n_4 min _2 _1\n_5 mul _0 _3\n"
         "_6 mul _0 _4\n_7 sub _5 _6\n"), /* one program on two lines (clang asks for the parens) */
        "_0 var-x\n_1 var-y\n_2 max _0 _1\n_3 min _1 _0\n_4 sub _2 _3\n",
        /* overflow to infinity, inf - inf, denormals */
        "_0 var-x\n_1 const 3e38\n_2 mul _0 _1\n_3 mul _2 _1\n_4 sub _3 _3\n_5 neg _4\n",
        "_0 var-y\n_1 const 1e-40\n_2 mul _0 _1\n_3 square _2\n_4 sqrt _3\n_5 add _4 _2\n",
        /* a constant result, a bare input */
        "_0 const 2\n",
        "_0 var-y\n",
        "_0 var-x\n_1 neg _0\n",
    };
    uint64_t rng = 11;
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
        char what[32];
        snprintf(what, sizeof what, "program %zu", i);
        check_program(programs[i], &rng, what, true);
    }
}

static void test_prospero(void **state)
{
    (void)state;
    size_t len;
    char *text = read_shared_or_skip("prospero.vm", &len);
    if (!isa_supported(ISA_AVX2))
        skip(); /* no JIT on this CPU */
    uint64_t rng = 17;
    check_program(text, &rng, "prospero.vm", true);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_programs),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_prospero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
