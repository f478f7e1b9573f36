/* bench-render-encoder [FILE.vm]: how long encoding a whole allocated program takes with the
 * hand-written VEX/EVEX encoder (workloads/render/x86.c, what sbx-render uses) and with Zydis's
 * encoder, one ZydisEncoderRequest per instruction, for both ISAs. Prints JSON; medians of many
 * repetitions. Also counts the instructions both encoders encode to identical bytes. The choice of
 * encoder in docs/renderer.md rests on these figures. Default program: the built-in scene. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "workloads/render/compile.h"
#include "workloads/render/regalloc.h"
#include "workloads/render/scene.h"

#define REPS 101

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static ZydisRegister zreg(enum render_isa isa, unsigned r)
{
    return (isa == ISA_AVX512 ? ZYDIS_REGISTER_ZMM0 : ZYDIS_REGISTER_YMM0) + r;
}

static const ZydisRegister gpr[] = {
    [X86_RDI] = ZYDIS_REGISTER_RDI,
    [X86_RSI] = ZYDIS_REGISTER_RSI,
    [X86_R9] = ZYDIS_REGISTER_R9,
    [X86_R10] = ZYDIS_REGISTER_R10,
};

static void set_operand(ZydisEncoderOperand *o, const struct x86_rm *rm, enum render_isa isa,
                        uint16_t mem_size)
{
    memset(o, 0, sizeof *o);
    if (!rm->mem) {
        o->type = ZYDIS_OPERAND_TYPE_REGISTER;
        o->reg.value = zreg(isa, rm->reg);
        return;
    }
    o->type = ZYDIS_OPERAND_TYPE_MEMORY;
    o->mem.base = gpr[rm->base];
    o->mem.displacement = rm->disp;
    o->mem.size = rm->bcst ? 4 : mem_size;
}

/* One mop as a Zydis request, with the same operands the JIT uses. */
static void request_for(const struct mop *op, enum render_isa isa, const struct jit_layout *l,
                        ZydisEncoderRequest *r)
{
    static const ZydisMnemonic binary[] = {
        [MOP_ADD] = ZYDIS_MNEMONIC_VADDPS, [MOP_SUB] = ZYDIS_MNEMONIC_VSUBPS,
        [MOP_MUL] = ZYDIS_MNEMONIC_VMULPS, [MOP_MIN] = ZYDIS_MNEMONIC_VMINPS,
        [MOP_MAX] = ZYDIS_MNEMONIC_VMAXPS,
    };
    struct x86_rm dst = X86_REG(op->dst), src1 = X86_REG(op->src1), src2;
    jit_operand(l, op->src2_kind, op->src2, &src2);
    uint16_t vec = (uint16_t)l->vec_bytes;
    memset(r, 0, sizeof *r);
    r->machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
    switch ((enum mop_kind)op->kind) {
    case MOP_SQUARE:
        src2 = src1;
        /* fall through */
    case MOP_ADD:
    case MOP_SUB:
    case MOP_MUL:
    case MOP_MIN:
    case MOP_MAX:
    case MOP_NEG:
        if (op->kind == MOP_NEG)
            jit_operand(l, OPND_CONST, POOL_SIGN, &src2);
        r->mnemonic = op->kind == MOP_SQUARE ? ZYDIS_MNEMONIC_VMULPS
                      : op->kind == MOP_NEG  ? ZYDIS_MNEMONIC_VXORPS
                                             : binary[op->kind];
        r->operand_count = 3;
        set_operand(&r->operands[0], &dst, isa, vec);
        set_operand(&r->operands[1], &src1, isa, vec);
        set_operand(&r->operands[2], &src2, isa, vec);
        break;
    case MOP_SQRT:
        r->mnemonic = ZYDIS_MNEMONIC_VSQRTPS;
        r->operand_count = 2;
        set_operand(&r->operands[0], &dst, isa, vec);
        set_operand(&r->operands[1], &src2, isa, vec);
        break;
    case MOP_LOAD:
        src2.bcst = false;
        r->mnemonic = op->src2_kind == OPND_CONST && isa == ISA_AVX512 ? ZYDIS_MNEMONIC_VBROADCASTSS
                                                                       : ZYDIS_MNEMONIC_VMOVUPS;
        r->operand_count = 2;
        set_operand(&r->operands[0], &dst, isa, vec);
        set_operand(&r->operands[1], &src2, isa,
                    r->mnemonic == ZYDIS_MNEMONIC_VBROADCASTSS ? 4 : vec);
        break;
    case MOP_STORE:
    default:
        r->mnemonic = ZYDIS_MNEMONIC_VMOVUPS;
        r->operand_count = 2;
        set_operand(&r->operands[0], &src2, isa, vec);
        set_operand(&r->operands[1], &src1, isa, vec);
        break;
    }
    if (isa == ISA_AVX512) {
        /* EVEX requests name the (absent) write mask k0 after the destination. */
        memmove(&r->operands[2], &r->operands[1], (r->operand_count - 1) * sizeof r->operands[0]);
        memset(&r->operands[1], 0, sizeof r->operands[1]);
        r->operands[1].type = ZYDIS_OPERAND_TYPE_REGISTER;
        r->operands[1].reg.value = ZYDIS_REGISTER_K0;
        r->operand_count++;
        if (src2.mem && src2.bcst)
            r->evex.broadcast = ZYDIS_BROADCAST_MODE_1_TO_16;
    }
}

static void bench(const struct mcode *m, enum render_isa isa, int first)
{
    struct jit_layout l;
    jit_layout(isa, &l);
    double ours[REPS], zydis[REPS];
    size_t same = 0, failed = 0, ours_bytes = 0, zydis_bytes = 0;
    uint8_t *out = malloc(m->n_mops * 16 + 16);
    for (int rep = 0; rep < REPS; rep++) {
        struct x86_buf a = {0};
        size_t code, body, body_len;
        double t0 = now_seconds();
        jit_encode(m, isa, JIT_MASKS, &a, &code, &body, &body_len);
        ours[rep] = now_seconds() - t0;

        t0 = now_seconds();
        size_t at = 0;
        for (size_t i = 0; i < m->n_mops; i++) {
            ZydisEncoderRequest r;
            ZyanUSize len = 16;
            request_for(&m->mops[i], isa, &l, &r);
            if (ZYAN_SUCCESS(ZydisEncoderEncodeInstruction(&r, out + at, &len)))
                at += len;
            else if (rep == 0)
                failed++;
        }
        zydis[rep] = now_seconds() - t0;
        if (rep == 0) {
            /* Compare instruction by instruction, decoding our stream to find boundaries. */
            size_t ours_at = code + body, z_at = 0;
            for (size_t i = 0; i < m->n_mops; i++) {
                ZydisDisassembledInstruction d1, d2;
                ZydisDisassembleIntel(ZYDIS_MACHINE_MODE_LONG_64, 0, a.bytes + ours_at,
                                      a.len - ours_at, &d1);
                if (!ZYAN_SUCCESS(ZydisDisassembleIntel(ZYDIS_MACHINE_MODE_LONG_64, 0, out + z_at,
                                                        at - z_at, &d2)))
                    break;
                same += d1.info.length == d2.info.length &&
                        memcmp(a.bytes + ours_at, out + z_at, d1.info.length) == 0;
                ours_at += d1.info.length;
                z_at += d2.info.length;
            }
            ours_bytes = body_len;
            zydis_bytes = at;
        }
        free(a.bytes);
    }
    printf("%s\n    {\"isa\": \"%s\", \"instructions\": %zu, \"hand_us\": %.1f, "
           "\"zydis_us\": %.1f, \"zydis_over_hand\": %.1f, \"identical_bytes\": %zu, "
           "\"zydis_failed\": %zu, \"hand_bytes\": %zu, \"zydis_bytes\": %zu}",
           first ? "" : ",", isa_name(isa), m->n_mops, median(ours, REPS) * 1e6,
           median(zydis, REPS) * 1e6, median(zydis, REPS) / median(ours, REPS), same, failed,
           ours_bytes, zydis_bytes);
    free(out);
}

int main(int argc, char **argv)
{
    const char *text = render_scene_vm;
    size_t len = render_scene_vm_len;
    char *file = NULL;
    if (argc > 1) {
        FILE *f = fopen(argv[1], "rb");
        if (!f) {
            perror(argv[1]);
            return 2;
        }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        rewind(f);
        file = malloc((size_t)n);
        len = fread(file, 1, (size_t)n, f);
        fclose(f);
        text = file;
    }
    printf("{\"program\": \"%s\", \"encoders\": [", argc > 1 ? argv[1] : "built-in scene");
    static const enum render_isa isas[] = {ISA_AVX512, ISA_AVX2};
    for (int i = 0; i < 2; i++) {
        struct compiled c;
        struct vm_parse_error perr;
        char why[256];
        if (compile_program(text, len, ISA_INTERP, &c, &perr, why, sizeof why) != COMPILE_OK) {
            fprintf(stderr, "bench-render-encoder: %lu: %s%s\n", perr.line, perr.msg, why);
            return 2;
        }
        struct mcode m;
        if (regalloc(&c.prog, jit_registers(isas[i]), &m) < 0)
            return 1;
        bench(&m, isas[i], i == 0);
        mcode_free(&m);
        compiled_free(&c);
    }
    printf("\n]}\n");
    free(file);
    return 0;
}
