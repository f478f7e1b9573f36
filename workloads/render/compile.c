#include "workloads/render/compile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "workloads/render/interp.h"
#include "workloads/render/regalloc.h"

double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static enum compile_status out_of_memory(char *why, size_t whylen, const char *phase)
{
    snprintf(why, whylen, "%s: %s", phase, strerror(ENOMEM));
    return COMPILE_FAILED;
}

enum compile_status compile_program(const char *text, size_t len, enum render_isa isa,
                                    struct compiled *c, struct vm_parse_error *perr, char *why,
                                    size_t whylen)
{
    memset(c, 0, sizeof *c);
    double t0 = now_seconds();
    if (vm_parse(text, len, &c->source, perr) < 0)
        return COMPILE_BAD_PROGRAM;
    double t1 = now_seconds();
    c->times.parse = t1 - t0;
    if (vm_optimize(&c->source, &c->prog, &c->opt) < 0)
        return out_of_memory(why, whylen, "dedup");
    double t2 = now_seconds();
    c->times.dedup = t2 - t1;
    c->eval.isa = isa;
    if (isa == ISA_INTERP) {
        c->interp = vm_interp_new(&c->prog);
        c->times.regalloc = now_seconds() - t2;
        if (!c->interp)
            return out_of_memory(why, whylen, "interpreter");
        c->eval.interp = c->interp;
        return COMPILE_OK;
    }
    if (regalloc(&c->prog, jit_registers(isa), &c->mcode) < 0)
        return out_of_memory(why, whylen, "register allocation");
    double t3 = now_seconds();
    c->times.regalloc = t3 - t2;
    if (jit_build(&c->mcode, isa, JIT_MASKS, &c->kernel, why, whylen) < 0)
        return COMPILE_FAILED;
    c->times.emit = now_seconds() - t3;
    c->eval.kernel = &c->kernel;
    return COMPILE_OK;
}

void compiled_free(struct compiled *c)
{
    vm_prog_free(&c->source);
    vm_prog_free(&c->prog);
    mcode_free(&c->mcode);
    jit_free(&c->kernel);
    vm_interp_free(c->interp);
    memset(c, 0, sizeof *c);
}
