/* The emitted machine code, disassembled by Zydis and compared instruction by instruction with
 * what each mop means: mnemonic, registers, memory operands (base, displacement, broadcast) and
 * immediates, for both ISAs, on hand-built mops covering every register, slot and constant
 * encoding range, on random programs and on prospero.vm. Nothing is executed here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <Zydis/Zydis.h>

#include "tests/render/testlib.h"
#include "workloads/render/jit.h"
#include "workloads/render/optimize.h"
#include "workloads/render/regalloc.h"

enum expect_kind { E_REG, E_MEM, E_IMM };

struct expect_operand {
    enum expect_kind kind;
    ZydisRegister reg; /* E_REG; E_MEM: base */
    int64_t disp;      /* E_MEM */
    bool bcst;         /* E_MEM: {1toN} */
    uint64_t imm;      /* E_IMM */
};

struct expect {
    ZydisMnemonic mnemonic;
    int n;
    struct expect_operand op[4];
    uint64_t target; /* branches and rip-relative lea: the absolute address, 0 if unchecked */
};

struct checker {
    enum render_isa isa;
    struct jit_layout layout;
    const uint8_t *code;
    size_t len;
    size_t at;     /* offset of the next instruction */
    uint64_t base; /* runtime address of code */
    const char *what;
};

static ZydisRegister vreg(const struct checker *c, unsigned r)
{
    return (c->isa == ISA_AVX512 ? ZYDIS_REGISTER_ZMM0 : ZYDIS_REGISTER_YMM0) + r;
}

/* Operand constructors: macros, as the project returns no structures from functions. */
#define reg_op(r) ((struct expect_operand){.kind = E_REG, .reg = (r)})
#define mem_op(b, d, bc)                                                                           \
    ((struct expect_operand){.kind = E_MEM, .reg = (b), .disp = (d), .bcst = (bc)})
#define imm_op(i) ((struct expect_operand){.kind = E_IMM, .imm = (i)})

/* The operand a mop's src2 names, from the layout's documented addressing. */
static void src2_op(const struct checker *c, uint8_t kind, uint32_t index, bool broadcast_ok,
                    struct expect_operand *op)
{
    const struct jit_layout *l = &c->layout;
    switch ((enum opnd_kind)kind) {
    case OPND_REG:
        *op = reg_op(vreg(c, index));
        break;
    case OPND_SLOT:
        *op = mem_op(ZYDIS_REGISTER_R9, (int64_t)index * l->vec_bytes - l->slot_bias, false);
        break;
    case OPND_CONST:
        *op = mem_op(ZYDIS_REGISTER_R10, (int64_t)index * l->pool_stride - l->pool_bias,
                     broadcast_ok && c->isa == ISA_AVX512);
        break;
    case OPND_X:
        *op = mem_op(ZYDIS_REGISTER_RDI, 0, false);
        break;
    case OPND_Y:
    default:
        *op = mem_op(ZYDIS_REGISTER_RSI, 0, false);
        break;
    }
}

static void expect_mop(const struct checker *c, const struct mop *o, struct expect *out)
{
    static const ZydisMnemonic binary[] = {
        [MOP_ADD] = ZYDIS_MNEMONIC_VADDPS, [MOP_SUB] = ZYDIS_MNEMONIC_VSUBPS,
        [MOP_MUL] = ZYDIS_MNEMONIC_VMULPS, [MOP_MIN] = ZYDIS_MNEMONIC_VMINPS,
        [MOP_MAX] = ZYDIS_MNEMONIC_VMAXPS,
    };
    struct expect e = {0};
    struct expect_operand src2, sign;
    src2_op(c, o->src2_kind, o->src2, o->kind != MOP_LOAD && o->kind != MOP_STORE, &src2);
    src2_op(c, OPND_CONST, POOL_SIGN, true, &sign);
    switch ((enum mop_kind)o->kind) {
    case MOP_ADD:
    case MOP_SUB:
    case MOP_MUL:
    case MOP_MIN:
    case MOP_MAX:
        e = (struct expect){
            binary[o->kind], 3, {reg_op(vreg(c, o->dst)), reg_op(vreg(c, o->src1)), src2}};
        break;
    case MOP_SQRT:
        e = (struct expect){ZYDIS_MNEMONIC_VSQRTPS, 2, {reg_op(vreg(c, o->dst)), src2}};
        break;
    case MOP_SQUARE:
        e = (struct expect){
            ZYDIS_MNEMONIC_VMULPS,
            3,
            {reg_op(vreg(c, o->dst)), reg_op(vreg(c, o->src1)), reg_op(vreg(c, o->src1))}};
        break;
    case MOP_NEG:
        e = (struct expect){
            ZYDIS_MNEMONIC_VXORPS, 3, {reg_op(vreg(c, o->dst)), reg_op(vreg(c, o->src1)), sign}};
        break;
    case MOP_LOAD: {
        bool bcst_load = o->src2_kind == OPND_CONST && c->isa == ISA_AVX512;
        e = (struct expect){bcst_load ? ZYDIS_MNEMONIC_VBROADCASTSS : ZYDIS_MNEMONIC_VMOVUPS,
                            2,
                            {reg_op(vreg(c, o->dst)), src2}};
        break;
    }
    case MOP_STORE:
        e = (struct expect){ZYDIS_MNEMONIC_VMOVUPS, 2, {src2, reg_op(vreg(c, o->src1))}};
        break;
    default:
        fail_msg("unknown mop kind %d", o->kind);
    }
    *out = e;
}

static void describe(const struct expect *e, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s", ZydisMnemonicGetString(e->mnemonic));
    for (int i = 0; i < e->n && n > 0 && (size_t)n < len; i++) {
        const struct expect_operand *o = &e->op[i];
        if (o->kind == E_REG)
            n += snprintf(buf + n, len - (size_t)n, "%s %s", i ? "," : "",
                          ZydisRegisterGetString(o->reg));
        else if (o->kind == E_MEM)
            n += snprintf(buf + n, len - (size_t)n, "%s [%s%+lld]%s", i ? "," : "",
                          ZydisRegisterGetString(o->reg), (long long)o->disp,
                          o->bcst ? "{bcst}" : "");
        else
            n += snprintf(buf + n, len - (size_t)n, "%s 0x%llx", i ? "," : "",
                          (unsigned long long)o->imm);
    }
}

/* Decodes the next instruction and compares it with e. */
static void check_next(struct checker *c, const struct expect *e)
{
    ZydisDisassembledInstruction in;
    char want[256];
    describe(e, want, sizeof want);
    if (c->at >= c->len)
        fail_msg("%s: code ends at %zu, expected %s", c->what, c->at, want);
    if (!ZYAN_SUCCESS(ZydisDisassembleIntel(ZYDIS_MACHINE_MODE_LONG_64, c->base + c->at,
                                            c->code + c->at, c->len - c->at, &in)))
        fail_msg("%s: undecodable bytes at %zu, expected %s", c->what, c->at, want);
    bool ok = in.info.mnemonic == e->mnemonic;
    int k = 0;
    for (int i = 0; ok && i < in.info.operand_count_visible; i++) {
        const ZydisDecodedOperand *o = &in.operands[i];
        if (o->type == ZYDIS_OPERAND_TYPE_REGISTER && o->reg.value == ZYDIS_REGISTER_K0)
            continue; /* EVEX's "no mask" */
        if (k == e->n) {
            ok = false;
            break;
        }
        const struct expect_operand *x = &e->op[k++];
        if (x->kind == E_REG)
            ok = o->type == ZYDIS_OPERAND_TYPE_REGISTER && o->reg.value == x->reg;
        else if (x->kind == E_IMM)
            ok = o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && o->imm.value.u == x->imm;
        else if (x->reg == ZYDIS_REGISTER_RIP)
            ok = o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->mem.base == ZYDIS_REGISTER_RIP;
        else
            ok = o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->mem.base == x->reg &&
                 o->mem.index == ZYDIS_REGISTER_NONE && o->mem.disp.value == x->disp &&
                 (in.info.avx.broadcast.mode != ZYDIS_BROADCAST_MODE_INVALID &&
                  !in.info.avx.broadcast.is_static) == x->bcst;
        if (ok && e->target && o->type != ZYDIS_OPERAND_TYPE_REGISTER) {
            uint64_t target;
            ok = ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in.info, o, c->base + c->at, &target)) &&
                 target == e->target;
        }
    }
    ok = ok && k == e->n;
    if (!ok)
        fail_msg("%s: at offset %zu: decoded '%s', expected %s", c->what, c->at, in.text, want);
    c->at += in.info.length;
}

static void expect3(struct checker *c, ZydisMnemonic m, struct expect_operand a,
                    struct expect_operand b, uint64_t target)
{
    struct expect e = {m, 2, {a, b}, target};
    check_next(c, &e);
}

static void expect_branch(struct checker *c, ZydisMnemonic m, uint64_t target)
{
    struct expect e = {m, 1, {imm_op(0)}, target};
    /* Relative branches decode as an immediate; only their target is compared. */
    ZydisDisassembledInstruction in;
    assert_true(ZYAN_SUCCESS(ZydisDisassembleIntel(ZYDIS_MACHINE_MODE_LONG_64, c->base + c->at,
                                                   c->code + c->at, c->len - c->at, &in)));
    uint64_t got = 0;
    if (in.info.mnemonic != m ||
        !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in.info, &in.operands[0], c->base + c->at, &got)) ||
        got != target)
        fail_msg("%s: at %zu: decoded '%s', expected %s to 0x%llx", c->what, c->at, in.text,
                 ZydisMnemonicGetString(m), (unsigned long long)target);
    (void)e;
    c->at += in.info.length;
}

/* Builds the kernel for m and checks every instruction of it. */
static void check_kernel(const struct mcode *m, enum render_isa isa, enum jit_output out,
                         const char *what)
{
    struct jit_kernel k;
    char why[256];
    if (jit_build(m, isa, out, &k, why, sizeof why) < 0)
        fail_msg("%s: %s", what, why);
    struct checker c = {.isa = isa,
                        .code = (const uint8_t *)k.map + k.code_offset,
                        .len = k.code_len,
                        .what = what};
    jit_layout(isa, &c.layout);
    c.base = (uint64_t)(uintptr_t)c.code;
    uint64_t pool = (uint64_t)(uintptr_t)k.map;
    uint64_t end = c.base + c.len - 4; /* vzeroupper; ret */
    uint64_t loop = c.base + k.body_offset;

    expect3(&c, ZYDIS_MNEMONIC_LEA, reg_op(ZYDIS_REGISTER_R9),
            mem_op(ZYDIS_REGISTER_R8, c.layout.slot_bias, false), 0);
    expect3(&c, ZYDIS_MNEMONIC_LEA, reg_op(ZYDIS_REGISTER_R10),
            mem_op(ZYDIS_REGISTER_RIP, 0, false), pool + (uint64_t)c.layout.pool_bias);
    expect3(&c, ZYDIS_MNEMONIC_TEST, reg_op(ZYDIS_REGISTER_RCX), reg_op(ZYDIS_REGISTER_RCX), 0);
    expect_branch(&c, ZYDIS_MNEMONIC_JZ, end);
    assert_int_equal(c.at, k.body_offset);

    for (size_t i = 0; i < m->n_mops; i++) {
        struct expect e;
        expect_mop(&c, &m->mops[i], &e);
        check_next(&c, &e);
    }
    assert_int_equal(c.at, k.body_offset + k.body_len);

    ZydisRegister res = vreg(&c, m->result_reg);
    struct expect_operand zero;
    src2_op(&c, OPND_CONST, POOL_ZERO, true, &zero);
    if (out == JIT_VALUES) {
        expect3(&c, ZYDIS_MNEMONIC_VMOVUPS, mem_op(ZYDIS_REGISTER_RDX, 0, false), reg_op(res), 0);
    } else {
        struct expect cmp = {
            ZYDIS_MNEMONIC_VCMPPS, 4, {reg_op(res), reg_op(res), zero, imm_op(0x11)}};
        if (isa == ISA_AVX512) {
            cmp.n = 4;
            cmp.op[0] = reg_op(ZYDIS_REGISTER_K1);
            check_next(&c, &cmp);
            expect3(&c, ZYDIS_MNEMONIC_KMOVW, reg_op(ZYDIS_REGISTER_EAX), reg_op(ZYDIS_REGISTER_K1),
                    0);
        } else {
            check_next(&c, &cmp);
            expect3(&c, ZYDIS_MNEMONIC_VMOVMSKPS, reg_op(ZYDIS_REGISTER_EAX), reg_op(res), 0);
        }
        expect3(&c, ZYDIS_MNEMONIC_MOV, mem_op(ZYDIS_REGISTER_RDX, 0, false),
                reg_op(ZYDIS_REGISTER_EAX), 0);
    }
    expect3(&c, ZYDIS_MNEMONIC_ADD, reg_op(ZYDIS_REGISTER_RDI), imm_op(c.layout.vec_bytes), 0);
    expect3(&c, ZYDIS_MNEMONIC_ADD, reg_op(ZYDIS_REGISTER_RDX),
            imm_op(out == JIT_VALUES ? c.layout.vec_bytes : 4), 0);
    struct expect dec = {ZYDIS_MNEMONIC_DEC, 1, {reg_op(ZYDIS_REGISTER_RCX)}};
    check_next(&c, &dec);
    expect_branch(&c, ZYDIS_MNEMONIC_JNZ, loop);
    struct expect vz = {ZYDIS_MNEMONIC_VZEROUPPER, 0};
    check_next(&c, &vz);
    struct expect ret = {ZYDIS_MNEMONIC_RET, 0};
    check_next(&c, &ret);
    assert_int_equal(c.at, c.len);
    jit_free(&k);
}

static void add_mop(struct mcode *m, size_t *cap, enum mop_kind kind, unsigned dst, unsigned src1,
                    enum opnd_kind src2_kind, uint32_t src2)
{
    if (m->n_mops == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        m->mops = realloc(m->mops, *cap * sizeof *m->mops);
        assert_non_null(m->mops);
    }
    m->mops[m->n_mops++] =
        (struct mop){(uint8_t)kind, (uint8_t)dst, (uint8_t)src1, (uint8_t)src2_kind, src2};
}

/* Every mop kind with every register in every position, and memory operands at the edges of the
 * one-byte displacement ranges. Not a program: only its encoding is checked. */
static void build_exhaustive(struct mcode *m, unsigned n_regs)
{
    size_t cap = 0;
    memset(m, 0, sizeof *m);
    m->n_pool = 400;
    m->pool = calloc(m->n_pool, sizeof *m->pool);
    m->n_slots = 1100;
    static const uint32_t slots[] = {0, 1, 7, 8, 9, 127, 128, 255, 256, 257, 1000, 1099};
    static const uint32_t consts[] = {0, 1, 2, 3, 4, 5, 31, 32, 33, 127, 128, 255, 256, 399};
    for (unsigned r = 0; r < n_regs; r++) {
        unsigned o = (r * 7 + 3) % n_regs, p = (r * 13 + 5) % n_regs;
        for (int kind = MOP_ADD; kind <= MOP_MAX; kind++) {
            add_mop(m, &cap, (enum mop_kind)kind, r, o, OPND_REG, p);
            add_mop(m, &cap, (enum mop_kind)kind, o, r, OPND_REG, p);
            add_mop(m, &cap, (enum mop_kind)kind, p, o, OPND_REG, r);
        }
        add_mop(m, &cap, MOP_SQRT, r, 0, OPND_REG, o);
        add_mop(m, &cap, MOP_SQRT, o, 0, OPND_REG, r);
        add_mop(m, &cap, MOP_SQUARE, r, o, OPND_REG, 0);
        add_mop(m, &cap, MOP_SQUARE, o, r, OPND_REG, 0);
        add_mop(m, &cap, MOP_NEG, r, o, OPND_REG, 0);
        add_mop(m, &cap, MOP_NEG, o, r, OPND_REG, 0);
        add_mop(m, &cap, MOP_LOAD, r, 0, OPND_X, 0);
        add_mop(m, &cap, MOP_LOAD, r, 0, OPND_Y, 0);
        add_mop(m, &cap, MOP_ADD, r, o, OPND_X, 0);
        add_mop(m, &cap, MOP_MUL, o, r, OPND_Y, 0);
        for (size_t s = 0; s < sizeof slots / sizeof slots[0]; s++) {
            add_mop(m, &cap, MOP_STORE, 0, r, OPND_SLOT, slots[s]);
            add_mop(m, &cap, MOP_LOAD, r, 0, OPND_SLOT, slots[s]);
            add_mop(m, &cap, MOP_MAX, r, o, OPND_SLOT, slots[s]);
            add_mop(m, &cap, MOP_SQRT, r, 0, OPND_SLOT, slots[s]);
        }
        for (size_t k = 0; k < sizeof consts / sizeof consts[0]; k++) {
            add_mop(m, &cap, MOP_LOAD, r, 0, OPND_CONST, consts[k]);
            add_mop(m, &cap, MOP_SUB, r, o, OPND_CONST, consts[k]);
            add_mop(m, &cap, MOP_SQRT, r, 0, OPND_CONST, consts[k]);
        }
    }
    m->result_reg = (uint8_t)(n_regs - 1);
}

static void test_every_encoding(void **state)
{
    (void)state;
    struct mcode m;
    build_exhaustive(&m, 32);
    check_kernel(&m, ISA_AVX512, JIT_MASKS, "avx512 exhaustive");
    check_kernel(&m, ISA_AVX512, JIT_VALUES, "avx512 exhaustive, values");
    mcode_free(&m);
    build_exhaustive(&m, 16);
    check_kernel(&m, ISA_AVX2, JIT_MASKS, "avx2 exhaustive");
    check_kernel(&m, ISA_AVX2, JIT_VALUES, "avx2 exhaustive, values");
    mcode_free(&m);
}

static void check_program(const char *text, const char *what)
{
    struct vm_prog src, p;
    struct vm_opt_stats st;
    parse_ok(text, &src);
    assert_int_equal(vm_optimize(&src, &p, &st), 0);
    static const enum render_isa isas[] = {ISA_AVX512, ISA_AVX2};
    for (int i = 0; i < 2; i++) {
        struct mcode m;
        assert_int_equal(regalloc(&p, jit_registers(isas[i]), &m), 0);
        char label[128];
        snprintf(label, sizeof label, "%s, %s", what, isa_name(isas[i]));
        check_kernel(&m, isas[i], JIT_MASKS, label);
        mcode_free(&m);
    }
    vm_prog_free(&src);
    vm_prog_free(&p);
}

static void test_random_programs(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        uint64_t rng = seed * 977;
        char *text = random_program(&rng, 3 + rng_below(&rng, 3000));
        char what[64];
        snprintf(what, sizeof what, "random program %llu", (unsigned long long)seed);
        check_program(text, what);
        free(text);
    }
}

static void test_prospero(void **state)
{
    (void)state;
    size_t len;
    char *text = read_shared_or_skip("prospero.vm", &len);
    check_program(text, "prospero.vm");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_encoding),
        cmocka_unit_test(test_random_programs),
        cmocka_unit_test(test_prospero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
