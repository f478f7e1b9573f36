/* optimize: hash-consing deduplication, constant folding and dead-code removal.
 *
 * Every rewrite keeps each value bit for bit: an instruction is merged only with an identical one
 * (same op, same operands in the same order, same constant bits) and a fold computes exactly what
 * the interpreter would at run time (vm_apply). */
#pragma once

#include <stdint.h>

#include "workloads/render/vm.h"

struct vm_opt_stats {
    uint32_t before;  /* instructions in */
    uint32_t deduped; /* merged with an earlier identical instruction */
    uint32_t folded;  /* computed from constants at compile time */
    uint32_t dead;    /* not reachable from the result */
    uint32_t after;   /* instructions out */
};

/* Writes the optimised program to *out; returns 0, or -1 when out of memory. */
int vm_optimize(const struct vm_prog *in, struct vm_prog *out, struct vm_opt_stats *stats);
