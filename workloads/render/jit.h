/* jit: x86-64 machine code from an allocated program (mcode), in W^X memory.
 *
 * The kernel evaluates one row segment of nblocks vectors:
 *     fn(xs, y, out, nblocks, spill)
 * xs holds nblocks * lanes x values, y one vector of the row's y, out receives one 32-bit word per
 * block (bit i set where the result at lane i is < 0) and spill is the caller's 64-byte aligned
 * area of jit_spill_bytes() bytes. The kernel keeps the System V ABI (it touches no callee-saved
 * register). The constant pool sits in the same mapping, in front of the code. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "workloads/render/cpu.h"
#include "workloads/render/mcode.h"
#include "workloads/render/x86.h"

typedef void (*jit_fn)(const float *xs, const float *y, void *out, size_t nblocks, void *spill);

/* What the kernel writes per block: the sign mask (rendering) or the result vector itself
 * (the tests, which compare values bit for bit). */
enum jit_output {
    JIT_MASKS,  /* one uint32_t per block */
    JIT_VALUES, /* lanes floats per block */
};

struct jit_kernel {
    enum render_isa isa;
    unsigned lanes;
    jit_fn fn;
    void *map;
    size_t map_len;
    size_t code_offset; /* where the code starts in map, after the pool */
    size_t code_len;
    size_t body_offset; /* the mops' instructions, one each, from here (relative to the code) */
    size_t body_len;
    size_t spill_bytes;
};

/* Vector registers the allocator may use for isa. */
unsigned jit_registers(enum render_isa isa);
unsigned jit_lanes(enum render_isa isa);

/* Encodes m for isa (AVX2 or AVX-512) into buf, the pool first; *body_* locate the mops' code
 * within buf. Returns 0, or -1 when out of memory. */
int jit_encode(const struct mcode *m, enum render_isa isa, enum jit_output out, struct x86_buf *buf,
               size_t *code_offset, size_t *body_offset, size_t *body_len);

/* Encodes, maps, copies and makes the mapping read+exec. Returns 0, or -1 with why filled. */
int jit_build(const struct mcode *m, enum render_isa isa, enum jit_output out, struct jit_kernel *k,
              char *why, size_t whylen);
void jit_free(struct jit_kernel *k);

/* How the kernel addresses its memory operands, shared with the tests that check its code. */
struct jit_layout {
    enum x86_width width;
    unsigned vec_bytes;   /* one vector: one spill slot */
    unsigned pool_stride; /* bytes per pool entry: one float (broadcast) or one vector */
    int32_t slot_bias;    /* r9 = spill + slot_bias */
    int32_t pool_bias;    /* r10 = pool + pool_bias */
};

void jit_layout(enum render_isa isa, struct jit_layout *l);
/* The memory or register operand of kind/index (enum opnd_kind), as the kernel encodes it. */
void jit_operand(const struct jit_layout *l, uint8_t kind, uint32_t index, struct x86_rm *rm);
