/* libFuzzer target: any bytes through the whole compiler. The parser must accept or reject them
 * cleanly; what it accepts must optimise, allocate (with few registers too) and, where this CPU
 * has a JIT, run with exactly the interpreter's values. A difference aborts, so the fuzzer keeps
 * the input. Build with meson -Dfuzz=true and clang; scripts/fuzz runs it (tests/fuzz/fuzz.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "workloads/render/interp.h"
#include "workloads/render/jit.h"
#include "workloads/render/optimize.h"
#include "workloads/render/parse.h"
#include "workloads/render/regalloc.h"

#define MAX_CHECKED_INSNS 4000 /* bigger programs are only parsed: keeps each input fast */
#define LANES_MAX 16

static bool same_value(float a, float b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void check_jit(const struct vm_prog *p, enum render_isa isa, unsigned n_regs,
                      const float *expected, const float *xs, const float *y)
{
    struct mcode m;
    struct jit_kernel k;
    char why[256];
    if (regalloc(p, n_regs, &m) < 0)
        abort();
    if (jit_build(&m, isa, JIT_VALUES, &k, why, sizeof why) < 0) {
        fprintf(stderr, "jit_build: %s\n", why);
        abort();
    }
    float *spill = aligned_alloc(64, (k.spill_bytes + 127) / 64 * 64);
    float got[LANES_MAX] __attribute__((aligned(64)));
    k.fn(xs, y, got, 1, spill);
    for (unsigned i = 0; i < k.lanes; i++) {
        if (!same_value(got[i], expected[i])) {
            fprintf(stderr, "%s, %u registers: lane %u: %a, interpreter %a\n", isa_name(isa),
                    n_regs, i, (double)got[i], (double)expected[i]);
            abort();
        }
    }
    free(spill);
    jit_free(&k);
    mcode_free(&m);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct vm_prog src, p;
    struct vm_parse_error err;
    if (vm_parse((const char *)data, size, &src, &err) < 0) {
        if (err.line == 0 || err.msg[0] == '\0')
            abort(); /* every error names a line and says why */
        return 0;
    }
    if (src.n > MAX_CHECKED_INSNS) {
        vm_prog_free(&src);
        return 0;
    }
    struct vm_opt_stats st;
    if (vm_optimize(&src, &p, &st) < 0)
        abort();

    float xs[LANES_MAX] __attribute__((aligned(64)));
    float y[LANES_MAX] __attribute__((aligned(64)));
    float ys[LANES_MAX], expected[LANES_MAX];
    for (int i = 0; i < LANES_MAX; i++) {
        xs[i] = -1.0f + (float)i * 0.13f;
        y[i] = ys[i] = 0.37f;
    }
    struct vm_interp *in = vm_interp_new(&src);
    float *scratch = in ? vm_interp_scratch_new(in) : NULL;
    if (!scratch)
        abort();
    vm_interp_eval(in, scratch, xs, ys, expected, LANES_MAX);

    static const enum render_isa isas[] = {ISA_AVX512, ISA_AVX2};
    for (int i = 0; i < 2; i++) {
        if (!isa_supported(isas[i]))
            continue;
        check_jit(&p, isas[i], jit_registers(isas[i]), expected, xs, y);
        check_jit(&p, isas[i], 4, expected, xs, y);
    }
    free(scratch);
    vm_interp_free(in);
    vm_prog_free(&src);
    vm_prog_free(&p);
    return 0;
}
