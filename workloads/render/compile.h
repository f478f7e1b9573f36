/* compile: text to something that renders, phase by phase, each phase timed.
 *
 * parse -> dedup (hash-consing, folding, dead code) -> register allocation -> emit (JIT), or the
 * interpreter's plan when the ISA is ISA_INTERP. */
#pragma once

#include <stddef.h>

#include "workloads/render/jit.h"
#include "workloads/render/mcode.h"
#include "workloads/render/optimize.h"
#include "workloads/render/parse.h"
#include "workloads/render/render.h"

struct compile_times {
    double parse, dedup, regalloc, emit; /* seconds */
};

struct compiled {
    struct vm_prog source; /* as parsed */
    struct vm_prog prog;   /* as optimised; what runs */
    struct vm_opt_stats opt;
    struct mcode mcode;       /* JIT only */
    struct jit_kernel kernel; /* JIT only */
    struct vm_interp *interp; /* interpreter only */
    struct evaluator eval;
    struct compile_times times;
};

enum compile_status {
    COMPILE_OK,
    COMPILE_BAD_PROGRAM, /* *perr says why and where */
    COMPILE_FAILED,      /* why says why: out of memory, no executable memory, ... */
};

enum compile_status compile_program(const char *text, size_t len, enum render_isa isa,
                                    struct compiled *c, struct vm_parse_error *perr, char *why,
                                    size_t whylen);
void compiled_free(struct compiled *c);

/* Seconds on the monotonic clock. */
double now_seconds(void);
