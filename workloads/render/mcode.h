/* mcode: the program after register allocation, as a list of vector machine operations that any
 * x86 vector ISA (or a test's expectation) can be written from.
 *
 * Registers are numbered 0..n_regs-1. A memory operand is a spill slot, a constant of the pool
 * (broadcast to every lane), the x row ([xs]) or the y vector. */
#pragma once

#include <stddef.h>
#include <stdint.h>

enum mop_kind {
    MOP_ADD,    /* dst = src1 + src2 */
    MOP_SUB,    /* dst = src1 - src2 */
    MOP_MUL,    /* dst = src1 * src2 */
    MOP_MIN,    /* dst = src1 < src2 ? src1 : src2 */
    MOP_MAX,    /* dst = src1 > src2 ? src1 : src2 */
    MOP_SQRT,   /* dst = sqrt(src2) */
    MOP_SQUARE, /* dst = src1 * src1 */
    MOP_NEG,    /* dst = src1 with its sign flipped (xor with the pool's -0.0) */
    MOP_LOAD,   /* dst = src2, a memory operand */
    MOP_STORE,  /* slot src2 = src1 */
};

enum opnd_kind {
    OPND_REG,
    OPND_SLOT,
    OPND_CONST,
    OPND_X,
    OPND_Y,
};

struct mop {
    uint8_t kind;      /* enum mop_kind */
    uint8_t dst;       /* register */
    uint8_t src1;      /* register */
    uint8_t src2_kind; /* enum opnd_kind */
    uint32_t src2;     /* register, slot or pool index */
};

/* Pool entries every program has, whatever its own constants. */
#define POOL_SIGN 0 /* -0.0f: xor flips the sign */
#define POOL_ZERO 1 /* +0.0f: the result is compared with it */

struct mcode {
    struct mop *mops;
    size_t n_mops;
    uint8_t result_reg; /* where the result is after the last mop */
    uint32_t n_slots;   /* spill slots, each one vector */
    float *pool;        /* constants, most used first after the two fixed ones */
    uint32_t n_pool;
    /* What the allocation cost, for --timings and the tests. */
    uint32_t n_stores;
    uint32_t n_loads;
    uint32_t n_mem_operands;
};

void mcode_free(struct mcode *m);
