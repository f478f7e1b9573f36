/* vm_apply: what each VM op computes on one lane, the single definition shared by constant folding
 * and the interpreter. The JIT emits exactly these IEEE single-precision operations, so its values
 * equal the interpreter's bit for bit. */
#pragma once

#include "workloads/render/vm.h"

/* max and min follow x86's vmaxps/vminps, not fmaxf/fminf: the second operand unless the first is
 * strictly greater (smaller). So a NaN in either operand, or max(+0, -0), gives the second one. */
static inline float vm_max(float a, float b)
{
    return a > b ? a : b;
}

static inline float vm_min(float a, float b)
{
    return a < b ? a : b;
}

static inline float vm_apply(enum vm_op op, float a, float b)
{
    switch (op) {
    case VM_ADD:
        return a + b;
    case VM_SUB:
        return a - b;
    case VM_MUL:
        return a * b;
    case VM_MAX:
        return vm_max(a, b);
    case VM_MIN:
        return vm_min(a, b);
    case VM_NEG:
        return -a;
    case VM_SQUARE:
        return a * a;
    case VM_SQRT:
        return __builtin_sqrtf(a);
    case VM_VAR_X:
    case VM_VAR_Y:
    case VM_CONST:
    case VM_OP_COUNT:
    default:
        return 0.0f;
    }
}
