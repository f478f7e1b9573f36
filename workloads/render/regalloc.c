#include "workloads/render/regalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define NO_REG 0xff

struct alloc {
    const struct vm_prog *p;
    unsigned n_regs;
    /* Use lists: value v is used by instructions use_pos[use_start[v] .. use_start[v + 1]). */
    uint32_t *use_start;
    uint32_t *use_pos;
    uint32_t *cursor; /* the first use of v not yet passed */
    uint8_t *val_reg;
    uint32_t *val_slot;
    uint32_t *pool_index; /* constants: their pool entry */
    uint32_t reg_val[REGALLOC_MAX_REGS];
    uint32_t free_regs; /* bit mask */
    uint32_t *free_slots;
    uint32_t n_free_slots;
    struct mcode *m;
    size_t cap_mops;
    bool oom;
};

static bool is_remat(const struct alloc *s, uint32_t v)
{
    uint8_t op = s->p->insns[v].op;
    return op == VM_CONST || op == VM_VAR_X || op == VM_VAR_Y;
}

static uint32_t next_use(const struct alloc *s, uint32_t v)
{
    return s->cursor[v] < s->use_start[v + 1] ? s->use_pos[s->cursor[v]] : NONE;
}

/* Takes the fields one by one: a mop assembled on the stack field by field and then passed whole
 * stalls on store forwarding, and this is the allocator's innermost call. */
static void emit(struct alloc *s, uint8_t kind, uint8_t dst, uint8_t src1, uint8_t src2_kind,
                 uint32_t src2)
{
    struct mcode *m = s->m;
    if (m->n_mops == s->cap_mops) {
        size_t cap = s->cap_mops ? 2 * s->cap_mops : 1024;
        struct mop *grown = realloc(m->mops, cap * sizeof *grown);
        if (!grown) {
            s->oom = true;
            return;
        }
        m->mops = grown;
        s->cap_mops = cap;
    }
    struct mop *op = &m->mops[m->n_mops++];
    op->kind = kind;
    op->dst = dst;
    op->src1 = src1;
    op->src2_kind = src2_kind;
    op->src2 = src2;
}

/* Where v can be read from memory: its constant, x, y, or its spill slot. */
static void memory_operand(const struct alloc *s, uint32_t v, uint8_t *kind, uint32_t *index)
{
    switch (s->p->insns[v].op) {
    case VM_CONST:
        *kind = OPND_CONST, *index = s->pool_index[v];
        break;
    case VM_VAR_X:
        *kind = OPND_X, *index = 0;
        break;
    case VM_VAR_Y:
        *kind = OPND_Y, *index = 0;
        break;
    default:
        *kind = OPND_SLOT, *index = s->val_slot[v];
        break;
    }
}

static uint32_t slot_take(struct alloc *s)
{
    return s->n_free_slots ? s->free_slots[--s->n_free_slots] : s->m->n_slots++;
}

/* Frees register r, storing its value first unless memory already holds it. */
static void evict(struct alloc *s, unsigned r)
{
    uint32_t v = s->reg_val[r];
    if (!is_remat(s, v) && s->val_slot[v] == NONE) {
        s->val_slot[v] = slot_take(s);
        emit(s, MOP_STORE, 0, (uint8_t)r, OPND_SLOT, s->val_slot[v]);
        s->m->n_stores++;
    }
    s->val_reg[v] = NO_REG;
    s->reg_val[r] = NONE;
    s->free_regs |= 1u << r;
}

/* A free register, evicting the value used furthest in the future (never one in pinned). Among
 * equally distant values, one that memory already holds goes first: evicting it costs no store. */
static unsigned take_reg(struct alloc *s, uint32_t pinned)
{
    if (!s->free_regs) {
        unsigned best = 0;
        uint32_t best_use = 0;
        bool best_clean = false;
        for (unsigned r = 0; r < s->n_regs; r++) {
            if (pinned & (1u << r))
                continue;
            uint32_t v = s->reg_val[r], use = next_use(s, v);
            bool clean = is_remat(s, v) || s->val_slot[v] != NONE;
            if (use > best_use || (use == best_use && clean && !best_clean)) {
                best = r, best_use = use, best_clean = clean;
            }
        }
        evict(s, best);
    }
    unsigned r = (unsigned)__builtin_ctz(s->free_regs);
    s->free_regs &= ~(1u << r);
    return r;
}

static void bind(struct alloc *s, uint32_t v, unsigned r)
{
    s->val_reg[v] = (uint8_t)r;
    s->reg_val[r] = v;
}

/* v's register, loading it from memory into a new one if need be. */
static unsigned ensure_reg(struct alloc *s, uint32_t v, uint32_t pinned)
{
    if (s->val_reg[v] != NO_REG)
        return s->val_reg[v];
    unsigned r = take_reg(s, pinned);
    uint8_t kind;
    uint32_t index;
    memory_operand(s, v, &kind, &index);
    emit(s, MOP_LOAD, (uint8_t)r, 0, kind, index);
    s->m->n_loads++;
    bind(s, v, r);
    return r;
}

/* The operand after the instruction at pos is done with it; it dies if that was its last use.
 * Its register is free at once (the instruction reads it before writing its result), but its slot
 * only after the instruction: an eviction in between must not reuse a slot still to be read. */
static void pass_use(struct alloc *s, uint32_t v, uint32_t pos, uint32_t *dead_slot)
{
    if (s->cursor[v] < s->use_start[v + 1] && s->use_pos[s->cursor[v]] == pos)
        s->cursor[v]++;
    if (next_use(s, v) != NONE)
        return;
    if (s->val_reg[v] != NO_REG) {
        s->reg_val[s->val_reg[v]] = NONE;
        s->free_regs |= 1u << s->val_reg[v];
        s->val_reg[v] = NO_REG;
    }
    if (s->val_slot[v] != NONE) {
        *dead_slot = s->val_slot[v];
        s->val_slot[v] = NONE;
    }
}

static void free_slot(struct alloc *s, uint32_t slot)
{
    if (slot != NONE)
        s->free_slots[s->n_free_slots++] = slot;
}

static const uint8_t mop_of[VM_OP_COUNT] = {
    [VM_ADD] = MOP_ADD, [VM_SUB] = MOP_SUB, [VM_MUL] = MOP_MUL,       [VM_MAX] = MOP_MAX,
    [VM_MIN] = MOP_MIN, [VM_NEG] = MOP_NEG, [VM_SQUARE] = MOP_SQUARE, [VM_SQRT] = MOP_SQRT,
};

static void allocate_insn(struct alloc *s, uint32_t i)
{
    const struct vm_insn *x = &s->p->insns[i];
    int arity = vm_op_arity((enum vm_op)x->op);
    if (arity == 0)
        return; /* constants and inputs are read from memory where they are used */
    uint8_t src1 = 0, src2_kind = OPND_REG;
    uint32_t src2 = 0;
    uint32_t first = x->a, second = arity == 2 ? x->b : x->a;
    if (x->op == VM_SQRT) {
        if (s->val_reg[first] != NO_REG)
            src2 = s->val_reg[first];
        else
            memory_operand(s, first, &src2_kind, &src2);
    } else {
        /* Only the second operand can be memory, so a commutative op takes the one in a
         * register first. */
        if (vm_op_commutes((enum vm_op)x->op) && s->val_reg[first] == NO_REG &&
            s->val_reg[second] != NO_REG) {
            uint32_t t = first;
            first = second, second = t;
        }
        uint32_t pinned = s->val_reg[second] != NO_REG ? 1u << s->val_reg[second] : 0;
        src1 = (uint8_t)ensure_reg(s, first, pinned);
        if (arity == 2) {
            if (s->val_reg[second] != NO_REG)
                src2 = s->val_reg[second];
            else
                memory_operand(s, second, &src2_kind, &src2);
        }
    }
    if (src2_kind != OPND_REG && arity == 2)
        s->m->n_mem_operands++;
    uint32_t dead_slots[2] = {NONE, NONE};
    pass_use(s, x->a, i, &dead_slots[0]);
    if (arity == 2)
        pass_use(s, x->b, i, &dead_slots[1]);
    unsigned d = take_reg(s, 0);
    emit(s, mop_of[x->op], (uint8_t)d, src1, src2_kind, src2);
    bind(s, i, d);
    free_slot(s, dead_slots[0]);
    free_slot(s, dead_slots[1]);
    if (next_use(s, i) == NONE && i != s->p->n - 1) {
        uint32_t unused = NONE;
        pass_use(s, i, NONE, &unused); /* never used: free it at once */
    }
}

static uint32_t uses_of(const struct alloc *s, uint32_t v)
{
    return s->use_start[v + 1] - s->use_start[v];
}

/* Constants by how often they are used, so the busiest get the shortest addresses. */
static int build_pool(struct alloc *s)
{
    const struct vm_prog *p = s->p;
    struct mcode *m = s->m;
    uint32_t n_const = 0;
    for (uint32_t v = 0; v < p->n; v++)
        n_const += p->insns[v].op == VM_CONST;
    m->pool = malloc((n_const + 2) * sizeof *m->pool);
    uint32_t *order = malloc((n_const + 1) * sizeof *order);
    if (!m->pool || !order) {
        free(order);
        return -1;
    }
    m->pool[POOL_SIGN] = -0.0f;
    m->pool[POOL_ZERO] = 0.0f;
    m->n_pool = 2;
    /* A counting sort on use counts, busiest first, ties in program order. */
    uint32_t max_uses = 0;
    for (uint32_t v = 0; v < p->n; v++)
        if (p->insns[v].op == VM_CONST && uses_of(s, v) > max_uses)
            max_uses = uses_of(s, v);
    uint32_t *bucket = calloc((size_t)max_uses + 2, sizeof *bucket);
    if (!bucket) {
        free(order);
        return -1;
    }
    for (uint32_t v = 0; v < p->n; v++)
        if (p->insns[v].op == VM_CONST)
            bucket[max_uses - uses_of(s, v) + 1]++;
    for (uint32_t u = 0; u <= max_uses; u++)
        bucket[u + 1] += bucket[u];
    for (uint32_t v = 0; v < p->n; v++)
        if (p->insns[v].op == VM_CONST)
            order[bucket[max_uses - uses_of(s, v)]++] = v;
    free(bucket);
    uint32_t k = n_const;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t v = order[i];
        float f = p->insns[v].imm;
        uint32_t bits, sign = 0x80000000u, zero = 0;
        memcpy(&bits, &f, sizeof bits);
        if (bits == sign || bits == zero) {
            s->pool_index[v] = bits == sign ? POOL_SIGN : POOL_ZERO;
        } else {
            s->pool_index[v] = m->n_pool;
            m->pool[m->n_pool++] = f;
        }
    }
    free(order);
    return 0;
}

static int build_uses(struct alloc *s)
{
    const struct vm_prog *p = s->p;
    for (uint32_t i = 0; i < p->n; i++) {
        int arity = vm_op_arity((enum vm_op)p->insns[i].op);
        if (arity >= 1)
            s->use_start[p->insns[i].a + 1]++;
        if (arity == 2 && p->insns[i].b != p->insns[i].a)
            s->use_start[p->insns[i].b + 1]++;
    }
    for (uint32_t v = 0; v < p->n; v++)
        s->use_start[v + 1] += s->use_start[v];
    memcpy(s->cursor, s->use_start, p->n * sizeof *s->cursor);
    for (uint32_t i = 0; i < p->n; i++) {
        int arity = vm_op_arity((enum vm_op)p->insns[i].op);
        if (arity >= 1)
            s->use_pos[s->cursor[p->insns[i].a]++] = i;
        if (arity == 2 && p->insns[i].b != p->insns[i].a)
            s->use_pos[s->cursor[p->insns[i].b]++] = i;
    }
    memcpy(s->cursor, s->use_start, p->n * sizeof *s->cursor);
    return 0;
}

static void free_state(struct alloc *s)
{
    free(s->use_start);
    free(s->use_pos);
    free(s->cursor);
    free(s->val_reg);
    free(s->val_slot);
    free(s->pool_index);
    free(s->free_slots);
}

int regalloc(const struct vm_prog *p, unsigned n_regs, struct mcode *out)
{
    memset(out, 0, sizeof *out);
    if (n_regs < 4 || n_regs > REGALLOC_MAX_REGS || p->n == 0)
        return -1;
    struct alloc s = {.p = p, .n_regs = n_regs, .m = out};
    s.use_start = calloc((size_t)p->n + 1, sizeof *s.use_start);
    s.use_pos = malloc(2 * (size_t)p->n * sizeof *s.use_pos);
    s.cursor = malloc(p->n * sizeof *s.cursor);
    s.val_reg = malloc(p->n);
    s.val_slot = malloc(p->n * sizeof *s.val_slot);
    s.pool_index = malloc(p->n * sizeof *s.pool_index);
    s.free_slots = malloc(p->n * sizeof *s.free_slots);
    if (!s.use_start || !s.use_pos || !s.cursor || !s.val_reg || !s.val_slot || !s.pool_index ||
        !s.free_slots || build_uses(&s) < 0 || build_pool(&s) < 0) {
        free_state(&s);
        mcode_free(out);
        return -1;
    }
    memset(s.val_reg, NO_REG, p->n);
    memset(s.val_slot, 0xff, p->n * sizeof *s.val_slot);
    for (unsigned r = 0; r < REGALLOC_MAX_REGS; r++)
        s.reg_val[r] = NONE;
    s.free_regs = n_regs == 32 ? UINT32_MAX : (1u << n_regs) - 1;

    for (uint32_t i = 0; i < p->n && !s.oom; i++)
        allocate_insn(&s, i);
    out->result_reg = (uint8_t)ensure_reg(&s, p->n - 1, 0);
    bool oom = s.oom;
    free_state(&s);
    if (oom) {
        mcode_free(out);
        return -1;
    }
    return 0;
}

void mcode_free(struct mcode *m)
{
    free(m->mops);
    free(m->pool);
    memset(m, 0, sizeof *m);
}
