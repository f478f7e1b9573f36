#include "workloads/render/jit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Registers the kernel's loop uses: the System V arguments, then two bases of its own. */
#define REG_XS X86_RDI
#define REG_Y X86_RSI
#define REG_OUT X86_RDX
#define REG_COUNT X86_RCX
#define REG_SPILL X86_R8
#define REG_SLOTS X86_R9 /* spill + slot_bias */
#define REG_POOL X86_R10 /* pool + pool_bias */

#define CMP_LT_OQ 0x11 /* less than, ordered, quiet: false for NaN */

unsigned jit_registers(enum render_isa isa)
{
    return isa == ISA_AVX512 ? 32 : 16;
}

unsigned jit_lanes(enum render_isa isa)
{
    return isa == ISA_AVX512 ? 16 : isa == ISA_AVX2 ? 8 : 1;
}

/* The biases put the first 256 slots (AVX-512: 8-bit displacements are scaled by the vector size)
 * or the first 8 (AVX2) within a one-byte displacement, and likewise the busiest constants. */
void jit_layout(enum render_isa isa, struct jit_layout *l)
{
    if (isa == ISA_AVX512)
        *l = (struct jit_layout){X86_ZMM, 64, 4, 128 * 64, 128 * 4};
    else
        *l = (struct jit_layout){X86_YMM, 32, 32, 128, 128};
}

void jit_operand(const struct jit_layout *l, uint8_t kind, uint32_t index, struct x86_rm *rm)
{
    switch ((enum opnd_kind)kind) {
    case OPND_SLOT:
        *rm = X86_MEM(REG_SLOTS, (int32_t)(index * l->vec_bytes) - l->slot_bias);
        break;
    case OPND_CONST: {
        int32_t disp = (int32_t)(index * l->pool_stride) - l->pool_bias;
        *rm = l->width == X86_ZMM ? X86_BCST(REG_POOL, disp) : X86_MEM(REG_POOL, disp);
        break;
    }
    case OPND_X:
        *rm = X86_MEM(REG_XS, 0);
        break;
    case OPND_Y:
        *rm = X86_MEM(REG_Y, 0);
        break;
    case OPND_REG:
    default:
        *rm = X86_REG(index);
        break;
    }
}

static const uint8_t vop_of[] = {
    [MOP_ADD] = X86_VADDPS, [MOP_SUB] = X86_VSUBPS, [MOP_MUL] = X86_VMULPS,
    [MOP_MIN] = X86_VMINPS, [MOP_MAX] = X86_VMAXPS,
};

static void emit_mop(struct x86_buf *a, const struct jit_layout *l, const struct mop *op)
{
    struct x86_rm src2, sign;
    jit_operand(l, op->src2_kind, op->src2, &src2);
    switch ((enum mop_kind)op->kind) {
    case MOP_ADD:
    case MOP_SUB:
    case MOP_MUL:
    case MOP_MIN:
    case MOP_MAX:
        x86_vop(a, l->width, (enum x86_vop)vop_of[op->kind], op->dst, op->src1, src2);
        break;
    case MOP_SQUARE:
        x86_vop(a, l->width, X86_VMULPS, op->dst, op->src1, X86_REG(op->src1));
        break;
    case MOP_NEG:
        jit_operand(l, OPND_CONST, POOL_SIGN, &sign);
        x86_vop(a, l->width, X86_VXORPS, op->dst, op->src1, sign);
        break;
    case MOP_SQRT:
        x86_vsqrtps(a, l->width, op->dst, src2);
        break;
    case MOP_LOAD:
        if (op->src2_kind == OPND_CONST && l->width == X86_ZMM)
            x86_vbroadcastss(a, l->width, op->dst, src2);
        else
            x86_vload(a, l->width, op->dst, src2);
        break;
    case MOP_STORE:
        x86_vstore(a, l->width, src2, op->src1);
        break;
    default:
        break;
    }
}

static void emit_pool(struct x86_buf *a, const struct mcode *m, const struct jit_layout *l)
{
    for (uint32_t i = 0; i < m->n_pool; i++) {
        uint32_t bits;
        memcpy(&bits, &m->pool[i], sizeof bits);
        for (unsigned k = 0; k < l->pool_stride / 4; k++)
            x86_u32(a, bits);
    }
    while (a->len % 64)
        x86_byte(a, 0);
}

static void rel32_at(struct x86_buf *a, size_t at, size_t target)
{
    if (a->oom)
        return;
    uint32_t rel = (uint32_t)((int64_t)target - (int64_t)(at + 4));
    memcpy(a->bytes + at, &rel, 4);
}

/* The block's output: its sign mask, or its values. Then the step to the next block. */
static void emit_output(struct x86_buf *a, const struct mcode *m, enum render_isa isa,
                        enum jit_output out, const struct jit_layout *l)
{
    struct x86_rm zero;
    jit_operand(l, OPND_CONST, POOL_ZERO, &zero);
    uint8_t out_step = 4;
    if (out == JIT_VALUES) {
        x86_vstore(a, l->width, X86_MEM(REG_OUT, 0), m->result_reg);
        out_step = (uint8_t)l->vec_bytes;
    } else if (isa == ISA_AVX512) {
        x86_vcmpps(a, l->width, 1, m->result_reg, zero, CMP_LT_OQ); /* k1 */
        x86_kmovw_eax(a, 1);
    } else {
        x86_vcmpps(a, l->width, m->result_reg, m->result_reg, zero, CMP_LT_OQ);
        x86_vmovmskps_eax(a, m->result_reg);
    }
    if (out == JIT_MASKS) {
        x86_byte(a, 0x89); /* mov [rdx], eax */
        x86_byte(a, 0x02);
    }
    const uint8_t step[] = {
        0x48, 0x83, 0xc7, (uint8_t)l->vec_bytes, /* add rdi, vector bytes */
        0x48, 0x83, 0xc2, out_step,              /* add rdx, output bytes */
        0x48, 0xff, 0xc9,                        /* dec rcx */
    };
    for (size_t i = 0; i < sizeof step; i++)
        x86_byte(a, step[i]);
}

int jit_encode(const struct mcode *m, enum render_isa isa, enum jit_output out, struct x86_buf *a,
               size_t *code_offset, size_t *body_offset, size_t *body_len)
{
    struct jit_layout l;
    jit_layout(isa, &l);
    /* Room for the pool and the longest encoding of every mop (EVEX, disp32: 10 bytes). */
    x86_reserve(a, (size_t)m->n_pool * l.pool_stride + 64 + m->n_mops * 11 + 128);
    emit_pool(a, m, &l);
    size_t code = a->len;

    /* lea r9, [r8 + slot_bias] */
    static const uint8_t lea_r9[] = {0x4d, 0x8d, 0x88};
    for (size_t i = 0; i < sizeof lea_r9; i++)
        x86_byte(a, lea_r9[i]);
    x86_u32(a, (uint32_t)l.slot_bias);
    /* lea r10, [rip + pool + pool_bias]: the pool starts the buffer */
    x86_byte(a, 0x4c);
    x86_byte(a, 0x8d);
    x86_byte(a, 0x15);
    x86_u32(a, (uint32_t)(int32_t)(l.pool_bias - (int64_t)(a->len + 4)));
    /* test rcx, rcx; jz done */
    static const uint8_t test_jz[] = {0x48, 0x85, 0xc9, 0x0f, 0x84};
    for (size_t i = 0; i < sizeof test_jz; i++)
        x86_byte(a, test_jz[i]);
    size_t jz_rel = a->len;
    x86_u32(a, 0);

    size_t loop = a->len;
    for (size_t i = 0; i < m->n_mops; i++)
        emit_mop(a, &l, &m->mops[i]);
    size_t body_end = a->len;

    emit_output(a, m, isa, out, &l);
    x86_byte(a, 0x0f); /* jnz loop */
    x86_byte(a, 0x85);
    size_t jnz_rel = a->len;
    x86_u32(a, 0);
    rel32_at(a, jnz_rel, loop);
    rel32_at(a, jz_rel, a->len);
    x86_vzeroupper(a);
    x86_byte(a, 0xc3); /* ret */

    *code_offset = code;
    *body_offset = loop - code;
    *body_len = body_end - loop;
    return a->oom ? -1 : 0;
}

int jit_build(const struct mcode *m, enum render_isa isa, enum jit_output out, struct jit_kernel *k,
              char *why, size_t whylen)
{
    memset(k, 0, sizeof *k);
    struct x86_buf a = {0};
    size_t code;
    if (isa != ISA_AVX2 && isa != ISA_AVX512) {
        snprintf(why, whylen, "no JIT for %s", isa_name(isa));
        return -1;
    }
    if (jit_encode(m, isa, out, &a, &code, &k->body_offset, &k->body_len) < 0) {
        free(a.bytes);
        snprintf(why, whylen, "encoding: %s", strerror(ENOMEM));
        return -1;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (a.len + page - 1) / page * page;
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        snprintf(why, whylen, "mmap: %s", strerror(errno));
        free(a.bytes);
        return -1;
    }
    memcpy(map, a.bytes, a.len);
    free(a.bytes);
    /* Write, then execute: the mapping is never writable and executable at once. */
    if (mprotect(map, len, PROT_READ | PROT_EXEC) < 0) {
        snprintf(why, whylen, "mprotect(PROT_EXEC): %s", strerror(errno));
        munmap(map, len);
        return -1;
    }
    k->isa = isa;
    k->lanes = jit_lanes(isa);
    k->map = map;
    k->map_len = len;
    k->code_offset = code;
    k->code_len = a.len - code;
    struct jit_layout l;
    jit_layout(isa, &l);
    k->spill_bytes = (size_t)m->n_slots * l.vec_bytes;
    k->fn = (jit_fn)(void *)((char *)map + code);
    return 0;
}

void jit_free(struct jit_kernel *k)
{
    if (k->map)
        munmap(k->map, k->map_len);
    memset(k, 0, sizeof *k);
}
