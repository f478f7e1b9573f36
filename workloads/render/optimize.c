#include "workloads/render/optimize.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/render/vm_apply.h"

struct consing {
    struct vm_insn *insns; /* the deduplicated program being built */
    uint32_t n;
    uint32_t *table; /* open addressing: index into insns + 1, 0 empty */
    uint32_t mask;
};

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static bool same(const struct vm_insn *x, const struct vm_insn *y)
{
    return x->op == y->op && x->a == y->a && x->b == y->b &&
           float_bits(x->imm) == float_bits(y->imm);
}

static uint32_t hash_insn(const struct vm_insn *x)
{
    uint64_t h = x->op;
    h = h * 0x9e3779b97f4a7c15ull + x->a;
    h = h * 0x9e3779b97f4a7c15ull + x->b;
    h = h * 0x9e3779b97f4a7c15ull + float_bits(x->imm);
    h *= 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

/* The index of an instruction identical to x, added if there is none yet. */
static uint32_t intern(struct consing *c, const struct vm_insn *x, bool *existed)
{
    uint32_t h = hash_insn(x) & c->mask;
    for (; c->table[h] != 0; h = (h + 1) & c->mask) {
        if (same(&c->insns[c->table[h] - 1], x)) {
            *existed = true;
            return c->table[h] - 1;
        }
    }
    *existed = false;
    c->insns[c->n] = *x;
    c->table[h] = ++c->n;
    return c->n - 1;
}

/* The instruction with operands renamed, folded into a constant when they all are. */
static struct vm_insn rewrite(const struct consing *c, const struct vm_insn *in,
                              const uint32_t *remap, bool *folded)
{
    struct vm_insn x = {.op = in->op};
    int arity = vm_op_arity((enum vm_op)in->op);
    *folded = false;
    if (in->op == VM_CONST)
        x.imm = in->imm;
    if (arity >= 1)
        x.a = remap[in->a];
    if (arity == 2)
        x.b = remap[in->b];
    bool constant =
        arity > 0 && c->insns[x.a].op == VM_CONST && (arity == 1 || c->insns[x.b].op == VM_CONST);
    if (constant) {
        float a = c->insns[x.a].imm, b = arity == 2 ? c->insns[x.b].imm : 0.0f;
        x = (struct vm_insn){.op = VM_CONST, .imm = vm_apply((enum vm_op)in->op, a, b)};
        *folded = true;
    }
    return x;
}

/* Keeps what the result depends on, in order; the result is the last instruction kept. */
static void remove_dead(struct vm_insn *insns, uint32_t *n, uint32_t result, uint32_t *renum)
{
    memset(renum, 0, (result + 1) * sizeof *renum);
    renum[result] = 1; /* marks live */
    for (uint32_t i = result + 1; i-- > 0;) {
        if (!renum[i])
            continue;
        int arity = vm_op_arity((enum vm_op)insns[i].op);
        if (arity >= 1)
            renum[insns[i].a] = 1;
        if (arity == 2)
            renum[insns[i].b] = 1;
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i <= result; i++) {
        if (!renum[i])
            continue;
        struct vm_insn x = insns[i];
        int arity = vm_op_arity((enum vm_op)x.op);
        if (arity >= 1)
            x.a = renum[x.a];
        if (arity == 2)
            x.b = renum[x.b];
        renum[i] = kept;
        insns[kept++] = x;
    }
    *n = kept;
}

int vm_optimize(const struct vm_prog *in, struct vm_prog *out, struct vm_opt_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    memset(out, 0, sizeof *out);
    uint32_t slots = 16;
    while (slots < 2 * in->n)
        slots *= 2;
    struct consing c = {.mask = slots - 1};
    c.insns = malloc(in->n * sizeof *c.insns);
    c.table = calloc(slots, sizeof *c.table);
    uint32_t *remap = malloc(in->n * sizeof *remap);
    if (!c.insns || !c.table || !remap) {
        free(c.insns);
        free(c.table);
        free(remap);
        return -1;
    }
    for (uint32_t i = 0; i < in->n; i++) {
        bool folded, existed;
        struct vm_insn x = rewrite(&c, &in->insns[i], remap, &folded);
        remap[i] = intern(&c, &x, &existed);
        stats->folded += folded;
        stats->deduped += existed && !folded;
    }
    uint32_t n = c.n;
    remove_dead(c.insns, &n, remap[in->n - 1], remap);
    free(c.table);
    free(remap);
    stats->before = in->n;
    stats->after = n;
    stats->dead = c.n - n;
    out->insns = c.insns;
    out->n = n;
    return 0;
}
