#include "workloads/render/interp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/render/vm_apply.h"

#define L VM_INTERP_LANES

struct step {
    uint8_t op;
    uint32_t dst, a, b; /* scratch rows */
};

struct vm_interp {
    struct step *steps;
    uint32_t n_steps;
    uint32_t n_rows;
    uint32_t result_row;
    /* Constants live in rows of their own, filled once per scratch. */
    uint32_t *const_rows;
    float *const_values;
    uint32_t n_consts;
};

/* Row allocation: a stack of free rows, new rows when it is empty. */
struct rows {
    uint32_t *free;
    uint32_t n_free;
    uint32_t used;
};

static uint32_t row_take(struct rows *r)
{
    return r->n_free ? r->free[--r->n_free] : r->used++;
}

static void row_give(struct rows *r, uint32_t row)
{
    r->free[r->n_free++] = row;
}

static int plan(struct vm_interp *in, const struct vm_prog *p, uint32_t *last_use, uint32_t *row)
{
    struct rows rows = {.free = malloc(p->n * sizeof *rows.free)};
    if (!rows.free)
        return -1;
    for (uint32_t i = 0; i < p->n; i++)
        last_use[i] = i;
    for (uint32_t i = 0; i < p->n; i++) {
        int arity = vm_op_arity((enum vm_op)p->insns[i].op);
        if (arity >= 1)
            last_use[p->insns[i].a] = i;
        if (arity == 2)
            last_use[p->insns[i].b] = i;
    }
    last_use[p->n - 1] = UINT32_MAX; /* the result outlives the program */
    /* Constants come first, in rows that no other value ever uses: they are filled only once. */
    for (uint32_t i = 0; i < p->n; i++) {
        if (p->insns[i].op != VM_CONST)
            continue;
        row[i] = rows.used++;
        in->const_rows[in->n_consts] = row[i];
        in->const_values[in->n_consts++] = p->insns[i].imm;
    }
    for (uint32_t i = 0; i < p->n; i++) {
        const struct vm_insn *x = &p->insns[i];
        if (x->op == VM_CONST)
            continue;
        row[i] = row_take(&rows);
        in->steps[in->n_steps++] = (struct step){x->op, row[i], row[x->a], row[x->b]};
        int arity = vm_op_arity((enum vm_op)x->op);
        if (arity >= 1 && last_use[x->a] == i && p->insns[x->a].op != VM_CONST)
            row_give(&rows, row[x->a]);
        if (arity == 2 && last_use[x->b] == i && x->b != x->a && p->insns[x->b].op != VM_CONST)
            row_give(&rows, row[x->b]);
        if (last_use[i] == i) /* never used */
            row_give(&rows, row[i]);
    }
    in->n_rows = rows.used;
    in->result_row = row[p->n - 1];
    free(rows.free);
    return 0;
}

struct vm_interp *vm_interp_new(const struct vm_prog *p)
{
    struct vm_interp *in = calloc(1, sizeof *in);
    uint32_t *last_use = malloc(p->n * sizeof *last_use);
    uint32_t *row = malloc(p->n * sizeof *row);
    if (in) {
        in->steps = malloc(p->n * sizeof *in->steps);
        in->const_rows = malloc(p->n * sizeof *in->const_rows);
        in->const_values = malloc(p->n * sizeof *in->const_values);
    }
    if (!in || !last_use || !row || !in->steps || !in->const_rows || !in->const_values ||
        plan(in, p, last_use, row) < 0) {
        vm_interp_free(in);
        in = NULL;
    }
    free(last_use);
    free(row);
    return in;
}

void vm_interp_free(struct vm_interp *in)
{
    if (!in)
        return;
    free(in->steps);
    free(in->const_rows);
    free(in->const_values);
    free(in);
}

float *vm_interp_scratch_new(const struct vm_interp *in)
{
    float *s = aligned_alloc(64, (size_t)in->n_rows * L * sizeof *s);
    if (!s)
        return NULL;
    for (uint32_t c = 0; c < in->n_consts; c++)
        for (int i = 0; i < L; i++)
            s[(size_t)in->const_rows[c] * L + i] = in->const_values[c];
    return s;
}

/* One loop per op so that each vectorises; the values are vm_apply's. */
static void run_step(const struct step *st, float *s, const float *x, const float *y)
{
    float *restrict d = s + (size_t)st->dst * L;
    const float *a = s + (size_t)st->a * L, *b = s + (size_t)st->b * L;
    switch ((enum vm_op)st->op) {
    case VM_VAR_X:
        memcpy(d, x, L * sizeof *d);
        break;
    case VM_VAR_Y:
        memcpy(d, y, L * sizeof *d);
        break;
    case VM_ADD:
        for (int i = 0; i < L; i++)
            d[i] = a[i] + b[i];
        break;
    case VM_SUB:
        for (int i = 0; i < L; i++)
            d[i] = a[i] - b[i];
        break;
    case VM_MUL:
        for (int i = 0; i < L; i++)
            d[i] = a[i] * b[i];
        break;
    case VM_MAX:
        for (int i = 0; i < L; i++)
            d[i] = vm_max(a[i], b[i]);
        break;
    case VM_MIN:
        for (int i = 0; i < L; i++)
            d[i] = vm_min(a[i], b[i]);
        break;
    case VM_NEG:
        for (int i = 0; i < L; i++)
            d[i] = -a[i];
        break;
    case VM_SQUARE:
        for (int i = 0; i < L; i++)
            d[i] = a[i] * a[i];
        break;
    case VM_SQRT:
        for (int i = 0; i < L; i++)
            d[i] = __builtin_sqrtf(a[i]);
        break;
    case VM_CONST:
    case VM_OP_COUNT:
    default:
        break;
    }
}

void vm_interp_eval(const struct vm_interp *in, float *scratch, const float *xs, const float *ys,
                    float *out, size_t n)
{
    float xb[L], yb[L];
    for (size_t at = 0; at < n; at += L) {
        size_t k = n - at < L ? n - at : L;
        memset(xb, 0, sizeof xb);
        memset(yb, 0, sizeof yb);
        memcpy(xb, xs + at, k * sizeof *xb);
        memcpy(yb, ys + at, k * sizeof *yb);
        for (uint32_t i = 0; i < in->n_steps; i++)
            run_step(&in->steps[i], scratch, xb, yb);
        memcpy(out + at, scratch + (size_t)in->result_row * L, k * sizeof *out);
    }
}
