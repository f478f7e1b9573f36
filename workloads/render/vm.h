/* vm: a Prospero VM program (Matt Keeter's Prospero challenge format) in memory.
 *
 * The program is straight-line SSA: instruction i may only use instructions before it, and the last
 * instruction is the result. The image is the set of points where the result is below zero. */
#pragma once

#include <stdint.h>

enum vm_op {
    VM_VAR_X,
    VM_VAR_Y,
    VM_CONST,
    VM_ADD,
    VM_SUB,
    VM_MUL,
    VM_MAX,
    VM_MIN,
    VM_NEG,
    VM_SQUARE,
    VM_SQRT,
    VM_OP_COUNT,
};

struct vm_insn {
    uint8_t op; /* enum vm_op */
    uint32_t a; /* operands: indices of earlier instructions (unused ones are 0) */
    uint32_t b;
    float imm; /* VM_CONST: the value */
};

struct vm_prog {
    struct vm_insn *insns;
    uint32_t n; /* at least 1; the result is insns[n - 1] */
};

/* The VM's spelling of op ("var-x", "add", ...). */
const char *vm_op_name(enum vm_op op);
/* How many operands op reads: 0 (var-x, var-y, const), 1 or 2. Inline: every pass asks. */
static inline int vm_op_arity(enum vm_op op)
{
    return op >= VM_ADD && op <= VM_MIN ? 2 : op >= VM_NEG && op <= VM_SQRT ? 1 : 0;
}
/* Whether op's result does not depend on its operands' order (bit for bit, NaN payloads aside). */
int vm_op_commutes(enum vm_op op);

void vm_prog_free(struct vm_prog *p);
