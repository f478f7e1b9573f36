/* VEX and EVEX encoding, after the Intel SDM volume 2, chapter 2 ("Instruction Format"):
 * prefix, opcode, ModRM, optional SIB, displacement, optional immediate. */
#include "workloads/render/x86.h"

#include <stdlib.h>
#include <string.h>

enum { MAP_0F = 1, MAP_0F38 = 2 };
enum { PP_NONE = 0, PP_66 = 1 };
#define NO_VVVV 0 /* an instruction without a second source encodes register 0, inverted as 1111   \
                   */

void x86_reserve(struct x86_buf *a, size_t n)
{
    if (a->oom || a->cap - a->len >= n)
        return;
    size_t cap = a->cap ? a->cap : 4096;
    while (cap - a->len < n)
        cap *= 2;
    uint8_t *grown = realloc(a->bytes, cap);
    if (!grown) {
        a->oom = true;
        return;
    }
    a->bytes = grown;
    a->cap = cap;
}

void x86_byte(struct x86_buf *a, uint8_t b)
{
    if (a->len == a->cap)
        x86_reserve(a, 1);
    if (a->oom)
        return;
    a->bytes[a->len++] = b;
}

void x86_u32(struct x86_buf *a, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        x86_byte(a, (uint8_t)(v >> (8 * i)));
}

/* ModRM, SIB and displacement for reg and rm. disp8_scale is EVEX's compressed disp8 factor N
 * (the displacement must be a multiple of N to use one byte), 1 for VEX. */
static void modrm(struct x86_buf *a, unsigned reg, struct x86_rm rm, int disp8_scale)
{
    if (!rm.mem) {
        x86_byte(a, (uint8_t)(0xc0 | (reg & 7) << 3 | (rm.reg & 7)));
        return;
    }
    unsigned base = rm.base & 7;
    bool fits8 =
        rm.disp % disp8_scale == 0 && rm.disp / disp8_scale >= -128 && rm.disp / disp8_scale <= 127;
    unsigned mod = rm.disp == 0 && base != X86_RBP ? 0 : fits8 ? 1 : 2;
    x86_byte(a, (uint8_t)(mod << 6 | (reg & 7) << 3 | base));
    if (base == X86_RSP)
        x86_byte(a, 0x24); /* SIB: no index, base rsp/r12 */
    if (mod == 1)
        x86_byte(a, (uint8_t)(int8_t)(rm.disp / disp8_scale));
    else if (mod == 2)
        x86_u32(a, (uint32_t)rm.disp);
}

/* VEX: 2-byte C5 when it can express the instruction, 3-byte C4 otherwise. */
static void vex(struct x86_buf *a, unsigned map, unsigned pp, unsigned L, unsigned reg,
                unsigned vvvv, struct x86_rm rm)
{
    unsigned r = !(reg & 8), x = 1, b = rm.mem ? !(rm.base & 8) : !(rm.reg & 8);
    unsigned tail = (~vvvv & 15) << 3 | L << 2 | pp;
    if (map == MAP_0F && b) {
        x86_byte(a, 0xc5);
        x86_byte(a, (uint8_t)(r << 7 | tail));
    } else {
        x86_byte(a, 0xc4);
        x86_byte(a, (uint8_t)(r << 7 | x << 6 | b << 5 | map));
        x86_byte(a, (uint8_t)tail); /* W = 0 */
    }
}

/* EVEX.512.W0 with embedded broadcast bit b and opmask aaa. */
static void evex(struct x86_buf *a, unsigned map, unsigned pp, unsigned reg, unsigned vvvv,
                 struct x86_rm rm, unsigned aaa)
{
    unsigned r = !(reg & 8), r2 = !(reg & 16);
    unsigned x, b;
    if (rm.mem) {
        x = 1; /* no index register */
        b = !(rm.base & 8);
    } else {
        x = !(rm.reg & 16);
        b = !(rm.reg & 8);
    }
    x86_byte(a, 0x62);
    x86_byte(a, (uint8_t)(r << 7 | x << 6 | b << 5 | r2 << 4 | map));
    x86_byte(a, (uint8_t)((~vvvv & 15) << 3 | 1 << 2 | pp));
    x86_byte(a, (uint8_t)(2 << 5 | (rm.mem && rm.bcst) << 4 | !(vvvv & 16) << 3 | aaa));
}

/* One vector instruction. elem_n is EVEX's disp8 factor when the memory operand is a single
 * element (broadcast or scalar); a full vector's is its width. */
static void vinsn(struct x86_buf *a, enum x86_width w, unsigned map, unsigned pp, uint8_t opcode,
                  unsigned reg, unsigned vvvv, struct x86_rm rm, bool scalar_mem, unsigned aaa)
{
    if (w == X86_ZMM) {
        evex(a, map, pp, reg, vvvv, rm, aaa);
        x86_byte(a, opcode);
        modrm(a, reg, rm, rm.bcst || scalar_mem ? 4 : 64);
    } else {
        vex(a, map, pp, 1, reg, vvvv, rm);
        x86_byte(a, opcode);
        modrm(a, reg, rm, 1);
    }
}

void x86_vop(struct x86_buf *a, enum x86_width w, enum x86_vop op, unsigned dst, unsigned src1,
             struct x86_rm rm)
{
    vinsn(a, w, MAP_0F, PP_NONE, (uint8_t)op, dst, src1, rm, false, 0);
}

void x86_vsqrtps(struct x86_buf *a, enum x86_width w, unsigned dst, struct x86_rm rm)
{
    vinsn(a, w, MAP_0F, PP_NONE, 0x51, dst, NO_VVVV, rm, false, 0);
}

void x86_vload(struct x86_buf *a, enum x86_width w, unsigned dst, struct x86_rm mem)
{
    vinsn(a, w, MAP_0F, PP_NONE, 0x10, dst, NO_VVVV, mem, false, 0);
}

void x86_vstore(struct x86_buf *a, enum x86_width w, struct x86_rm mem, unsigned src)
{
    vinsn(a, w, MAP_0F, PP_NONE, 0x11, src, NO_VVVV, mem, false, 0);
}

void x86_vbroadcastss(struct x86_buf *a, enum x86_width w, unsigned dst, struct x86_rm mem)
{
    mem.bcst = false;
    vinsn(a, w, MAP_0F38, PP_66, 0x18, dst, NO_VVVV, mem, true, 0);
}

void x86_vcmpps(struct x86_buf *a, enum x86_width w, unsigned dst, unsigned src1, struct x86_rm rm,
                uint8_t predicate)
{
    vinsn(a, w, MAP_0F, PP_NONE, 0xc2, dst, src1, rm, false, 0);
    x86_byte(a, predicate);
}

void x86_vmovmskps_eax(struct x86_buf *a, unsigned src)
{
    vex(a, MAP_0F, PP_NONE, 1, X86_RAX, NO_VVVV, X86_REG(src));
    x86_byte(a, 0x50);
    modrm(a, X86_RAX, X86_REG(src), 1);
}

void x86_kmovw_eax(struct x86_buf *a, unsigned k)
{
    vex(a, MAP_0F, PP_NONE, 0, X86_RAX, NO_VVVV, X86_REG(k));
    x86_byte(a, 0x93);
    modrm(a, X86_RAX, X86_REG(k), 1);
}

void x86_vzeroupper(struct x86_buf *a)
{
    x86_byte(a, 0xc5);
    x86_byte(a, 0xf8);
    x86_byte(a, 0x77);
}
