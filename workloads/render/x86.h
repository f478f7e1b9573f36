/* x86: the few x86-64 instructions the JIT emits, encoded by hand (VEX for AVX2, EVEX for AVX-512).
 *
 * Hand encoding was chosen over Zydis's encoder on compile time: see docs/renderer.md. Zydis checks
 * the result in the tests, where every emitted instruction is disassembled and compared. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct x86_buf {
    uint8_t *bytes;
    size_t len;
    size_t cap;
    bool oom; /* a write failed for lack of memory; the buffer is unusable */
};

/* General-purpose registers by their encoding number. */
enum x86_gpr {
    X86_RAX,
    X86_RCX,
    X86_RDX,
    X86_RBX,
    X86_RSP,
    X86_RBP,
    X86_RSI,
    X86_RDI,
    X86_R8,
    X86_R9,
    X86_R10,
    X86_R11,
    X86_R12,
    X86_R13,
    X86_R14,
    X86_R15,
};

/* The vector width and its encoding. */
enum x86_width {
    X86_YMM, /* VEX.256, registers 0-15 */
    X86_ZMM, /* EVEX.512, registers 0-31 */
};

/* A register or a [base + disp] memory operand, optionally a broadcast 32-bit element (EVEX). */
struct x86_rm {
    bool mem;
    bool bcst;
    uint8_t reg;  /* !mem: vector register */
    uint8_t base; /* mem: enum x86_gpr */
    int32_t disp;
};

/* Operand constructors (macros: the project does not return structures from functions). */
#define X86_REG(r) ((struct x86_rm){.reg = (uint8_t)(r)})
#define X86_MEM(b, d) ((struct x86_rm){.mem = true, .base = (uint8_t)(b), .disp = (int32_t)(d)})
#define X86_BCST(b, d)                                                                             \
    ((struct x86_rm){.mem = true, .bcst = true, .base = (uint8_t)(b), .disp = (int32_t)(d)})

/* Packed-single operations, all "dst, src1, src2/mem" in the 0F map without a prefix. */
enum x86_vop {
    X86_VADDPS = 0x58,
    X86_VMULPS = 0x59,
    X86_VSUBPS = 0x5c,
    X86_VMINPS = 0x5d,
    X86_VMAXPS = 0x5f,
    X86_VXORPS = 0x57,
};

/* Makes room for at least n more bytes, so that writing them never reallocates. */
void x86_reserve(struct x86_buf *a, size_t n);
void x86_byte(struct x86_buf *a, uint8_t b);
void x86_u32(struct x86_buf *a, uint32_t v);

/* dst = src1 op rm */
void x86_vop(struct x86_buf *a, enum x86_width w, enum x86_vop op, unsigned dst, unsigned src1,
             struct x86_rm rm);
/* dst = sqrt(rm) */
void x86_vsqrtps(struct x86_buf *a, enum x86_width w, unsigned dst, struct x86_rm rm);
/* dst = [mem] (vmovups) */
void x86_vload(struct x86_buf *a, enum x86_width w, unsigned dst, struct x86_rm mem);
/* [mem] = src (vmovups) */
void x86_vstore(struct x86_buf *a, enum x86_width w, struct x86_rm mem, unsigned src);
/* dst = the float at [mem] in every lane (vbroadcastss) */
void x86_vbroadcastss(struct x86_buf *a, enum x86_width w, unsigned dst, struct x86_rm mem);
/* vcmpps with predicate imm: ZMM writes mask register k, YMM writes vector register dst. */
void x86_vcmpps(struct x86_buf *a, enum x86_width w, unsigned dst, unsigned src1, struct x86_rm rm,
                uint8_t predicate);
/* eax = the sign bits of ymm src (vmovmskps) */
void x86_vmovmskps_eax(struct x86_buf *a, unsigned src);
/* eax = mask register k (kmovw) */
void x86_kmovw_eax(struct x86_buf *a, unsigned k);
void x86_vzeroupper(struct x86_buf *a);
