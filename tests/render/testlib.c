#include "tests/render/testlib.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "workloads/render/parse.h"
#include "workloads/render/vm_apply.h"

uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)((rng_next(s) >> 32) % n);
}

static const char *const special_constants[] = {
    "0", "-0", "1", "-1", "0.5", "2", "1e-40", "-1e-45", "3e38", "-3e38", "1e-20", "1e20", "0.1",
};

static void append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        *cap *= 2;
        *buf = realloc(*buf, *cap);
        assert_non_null(*buf);
    }
}

/* An operand: usually a recent value (short live ranges), sometimes any earlier one (long). */
static uint32_t pick(uint64_t *s, uint32_t i)
{
    if (rng_below(s, 4) == 0)
        return rng_below(s, i);
    uint32_t back = 1 + rng_below(s, i < 12 ? i : 12);
    return i - back;
}

char *random_program(uint64_t *s, uint32_t n)
{
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    assert_non_null(buf);
    buf[0] = '\0';
    append(&buf, &len, &cap, "# random program\n_0 var-x\n_1 var-y\n");
    for (uint32_t i = 2; i < n; i++) {
        /* Every op, constants a little more often so that folding has work. */
        uint32_t op = rng_below(s, VM_OP_COUNT + 2);
        if (op >= VM_OP_COUNT)
            op = VM_CONST;
        if (op == VM_VAR_X || op == VM_VAR_Y) {
            append(&buf, &len, &cap, "_%x %s\n", i, vm_op_name((enum vm_op)op));
        } else if (op == VM_CONST) {
            if (rng_below(s, 3) == 0)
                append(&buf, &len, &cap, "_%x const %s\n", i,
                       special_constants[rng_below(s, sizeof special_constants /
                                                          sizeof special_constants[0])]);
            else
                append(&buf, &len, &cap, "_%x const %.6g\n", i,
                       ((double)rng_below(s, 2000000) - 1e6) / 3e5);
        } else if (vm_op_arity((enum vm_op)op) == 1) {
            append(&buf, &len, &cap, "_%x %s _%x\n", i, vm_op_name((enum vm_op)op), pick(s, i));
        } else {
            append(&buf, &len, &cap, "_%x %s _%x _%x\n", i, vm_op_name((enum vm_op)op), pick(s, i),
                   pick(s, i));
        }
    }
    return buf;
}

void parse_ok(const char *text, struct vm_prog *out)
{
    struct vm_parse_error err;
    int rc = vm_parse(text, strlen(text), out, &err);
    if (rc != 0)
        fail_msg("line %lu: %s", err.line, err.msg);
}

static float operand(const struct mcode *m, const float *regs, const float *slots, uint8_t kind,
                     uint32_t index, float x, float y)
{
    switch ((enum opnd_kind)kind) {
    case OPND_REG:
        return regs[index];
    case OPND_SLOT:
        return slots[index];
    case OPND_CONST:
        return m->pool[index];
    case OPND_X:
        return x;
    case OPND_Y:
    default:
        return y;
    }
}

/* Reading a register or slot nothing has written is an allocator bug the values might hide. */
static void check_reads(const struct mcode *m, const struct mop *o, uint32_t defined,
                        const bool *written, size_t at)
{
    bool reads_src1 = o->kind != MOP_SQRT && o->kind != MOP_LOAD;
    if (reads_src1 && !(defined & (1u << o->src1)))
        fail_msg("mop %zu reads register %u before any write", at, o->src1);
    if (o->kind == MOP_STORE)
        return;
    if (o->src2_kind == OPND_REG && !(defined & (1u << o->src2)))
        fail_msg("mop %zu reads register %u before any write", at, o->src2);
    if (o->src2_kind == OPND_SLOT && (o->src2 >= m->n_slots || !written[o->src2]))
        fail_msg("mop %zu reads slot %u before any store", at, o->src2);
    if (o->src2_kind == OPND_CONST && o->src2 >= m->n_pool)
        fail_msg("mop %zu reads pool entry %u of %u", at, o->src2, m->n_pool);
}

float simulate_mcode(const struct mcode *m, float x, float y)
{
    float regs[32] = {0};
    float *slots = calloc(m->n_slots + 1, sizeof *slots);
    bool *written = calloc(m->n_slots + 1, sizeof *written);
    uint32_t defined = 0;
    assert_non_null(slots);
    assert_non_null(written);
    for (size_t i = 0; i < m->n_mops; i++) {
        const struct mop *o = &m->mops[i];
        assert_true(o->dst < 32 && o->src1 < 32);
        check_reads(m, o, defined, written, i);
        float a = regs[o->src1];
        float b = operand(m, regs, slots, o->src2_kind, o->src2, x, y);
        if (o->kind == MOP_STORE)
            written[o->src2] = true;
        else
            defined |= 1u << o->dst;
        switch ((enum mop_kind)o->kind) {
        case MOP_ADD:
            regs[o->dst] = vm_apply(VM_ADD, a, b);
            break;
        case MOP_SUB:
            regs[o->dst] = vm_apply(VM_SUB, a, b);
            break;
        case MOP_MUL:
            regs[o->dst] = vm_apply(VM_MUL, a, b);
            break;
        case MOP_MIN:
            regs[o->dst] = vm_apply(VM_MIN, a, b);
            break;
        case MOP_MAX:
            regs[o->dst] = vm_apply(VM_MAX, a, b);
            break;
        case MOP_SQRT:
            regs[o->dst] = vm_apply(VM_SQRT, b, 0);
            break;
        case MOP_SQUARE:
            regs[o->dst] = vm_apply(VM_SQUARE, a, 0);
            break;
        case MOP_NEG:
            regs[o->dst] = vm_apply(VM_NEG, a, 0);
            break;
        case MOP_LOAD:
            regs[o->dst] = b;
            break;
        case MOP_STORE:
            assert_int_equal(o->src2_kind, OPND_SLOT);
            assert_true(o->src2 < m->n_slots);
            slots[o->src2] = a;
            break;
        default:
            fail_msg("unknown mop %d", o->kind);
        }
    }
    if (!(defined & (1u << m->result_reg)))
        fail_msg("the result register %u is never written", m->result_reg);
    float r = regs[m->result_reg];
    free(slots);
    free(written);
    return r;
}

bool same_value(float a, float b)
{
    if (isnan(a) && isnan(b))
        return true;
    return memcmp(&a, &b, sizeof a) == 0;
}

float random_coord(uint64_t *s)
{
    switch (rng_below(s, 16)) {
    case 0:
        return 0.0f;
    case 1:
        return -0.0f;
    case 2:
        return (float)rng_below(s, 1000) * 1000.0f;
    default:
        return ((float)rng_below(s, 2000001) - 1e6f) / 1e6f;
    }
}

char *read_shared(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/../shared/data/%s", SOURCE_ROOT, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        print_message("skip: %s is absent\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    *len = fread(buf, 1, (size_t)size, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

char *read_shared_or_skip(const char *name, size_t *len)
{
    char *text = read_shared(name, len);
    if (!text)
        skip(); /* read_shared said which file is absent; skip() leaves the test */
    return text;
}
