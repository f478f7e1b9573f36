/* regalloc: linear-scan register allocation of a VM program onto n_regs vector registers.
 *
 * One pass in program order (the program is a single basic block in SSA form, so each value's live
 * range is one interval from its definition to its last use). When no register is free, the value
 * whose next use is furthest away is evicted (Belady's choice, optimal for straight-line code); a
 * value is stored at most once, to a spill slot that returns to a free list when the value dies.
 * Constants and the x and y inputs are never stored: they are memory operands already. A spilled
 * second operand is read straight from memory instead of being reloaded. */
#pragma once

#include "workloads/render/mcode.h"
#include "workloads/render/vm.h"

/* At most this many registers (a bit mask of them must fit in 32 bits). */
#define REGALLOC_MAX_REGS 32

/* Returns 0, or -1 when out of memory or n_regs is outside 4..REGALLOC_MAX_REGS. */
int regalloc(const struct vm_prog *p, unsigned n_regs, struct mcode *out);
