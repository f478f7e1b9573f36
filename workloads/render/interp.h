/* interp: the portable evaluator, the renderer's fallback and the tests' oracle.
 *
 * It runs the program one instruction at a time over a batch of VM_INTERP_LANES points, each value
 * a row of lanes in a scratch buffer whose rows are reused once a value is dead. */
#pragma once

#include <stddef.h>

#include "workloads/render/vm.h"

#define VM_INTERP_LANES 64

struct vm_interp;

/* Plans the evaluation of p (which must stay valid); NULL when out of memory. */
struct vm_interp *vm_interp_new(const struct vm_prog *p);
void vm_interp_free(struct vm_interp *in);

/* Each thread evaluates with its own scratch, from vm_interp_scratch_new (free() it). */
float *vm_interp_scratch_new(const struct vm_interp *in);

/* out[i] = the program's result at (xs[i], ys[i]) for i < n. */
void vm_interp_eval(const struct vm_interp *in, float *scratch, const float *xs, const float *ys,
                    float *out, size_t n);
