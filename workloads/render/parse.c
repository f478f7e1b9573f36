/* The VM parser: one pass over the lines, ids resolved through an open-addressing hash table.
 * Each failure is reported once, with its line, and the partial program is discarded. */
#include "workloads/render/parse.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 4          /* id, op and at most two operands */
#define MAX_NUMBER_CHARS 400  /* longer constants are refused rather than copied */
#define QUOTE_MAX 40          /* how much of a bad token an error message repeats */

struct token {
    const char *s;
    size_t n;
};

struct parser {
    const char *text;
    const char *end;
    unsigned long line;
    struct vm_insn *insns;
    uint32_t n;
    uint32_t cap;
    /* Per instruction: where its id is in text, and the line that defined it. */
    uint32_t *id_off;
    uint16_t *id_len;
    unsigned long *def_line;
    /* id -> instruction index + 1 (0: empty). */
    uint32_t *table;
    uint32_t mask;
    struct vm_parse_error *err;
};

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
    p->err->line = p->line;
    return -1;
}

/* A token as an error message shows it: at most QUOTE_MAX characters, non-printables as '?'. */
static const char *quoted(const struct token *t, char buf[QUOTE_MAX + 4])
{
    size_t n = t->n < QUOTE_MAX ? t->n : QUOTE_MAX;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t->s[i];
        buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    strcpy(buf + n, t->n > n ? "..." : "");
    return buf;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_id_char(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static uint64_t hash_id(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h ^ (h >> 32);
}

/* Splits a line into blank-separated tokens; returns how many, or MAX_TOKENS + 1 for too many. */
static int split(const char *s, const char *end, struct token tok[MAX_TOKENS])
{
    int n = 0;
    for (;;) {
        while (s < end && is_blank(*s))
            s++;
        if (s == end)
            return n;
        if (n == MAX_TOKENS)
            return MAX_TOKENS + 1;
        const char *start = s;
        while (s < end && !is_blank(*s))
            s++;
        tok[n++] = (struct token){start, (size_t)(s - start)};
    }
}

static bool valid_id(const struct token *t)
{
    if (t->n < 2 || t->n > UINT16_MAX || t->s[0] != '_')
        return false;
    for (size_t i = 1; i < t->n; i++)
        if (!is_id_char(t->s[i]))
            return false;
    return true;
}

/* The instruction called t, or -1. */
static int64_t lookup(const struct parser *p, const struct token *t)
{
    for (uint32_t h = (uint32_t)hash_id(t->s, t->n) & p->mask;; h = (h + 1) & p->mask) {
        uint32_t e = p->table[h];
        if (e == 0)
            return -1;
        if (p->id_len[e - 1] == t->n && memcmp(p->text + p->id_off[e - 1], t->s, t->n) == 0)
            return e - 1;
    }
}

static void insert(struct parser *p, const struct token *t, uint32_t index)
{
    uint32_t h = (uint32_t)hash_id(t->s, t->n) & p->mask;
    while (p->table[h] != 0)
        h = (h + 1) & p->mask;
    p->table[h] = index + 1;
}

static int parse_op(const struct token *t)
{
    for (int op = 0; op < VM_OP_COUNT; op++) {
        const char *name = vm_op_name((enum vm_op)op);
        if (strlen(name) == t->n && memcmp(name, t->s, t->n) == 0)
            return op;
    }
    return -1;
}

static const double exact_powers_of_ten[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* A decimal number: [+-] digits [. digits] [e [+-] digits], at least one mantissa digit.
 * Returns 0, -1 for a malformed number, -2 for one outside float's range. Small numbers take
 * Clinger's fast path (the mantissa and the power of ten are both exact doubles, so one division
 * or multiplication rounds correctly); the rest go through strtod. Either way the double is then
 * rounded to float, as the VM format specifies. */
static int parse_number(const char *s, size_t n, float *out)
{
    size_t i = 0;
    bool negative = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        negative = s[i++] == '-';
    uint64_t mantissa = 0;
    int digits = 0;
    long exp10 = 0;
    bool any = false, truncated = false;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        any = true;
        if (mantissa == 0 && s[i] == '0')
            continue;
        if (digits < 19) {
            mantissa = mantissa * 10 + (uint64_t)(s[i] - '0');
            digits++;
        } else {
            exp10++;
            truncated = true;
        }
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            any = true;
            if (mantissa == 0 && s[i] == '0') {
                exp10--;
            } else if (digits < 19) {
                mantissa = mantissa * 10 + (uint64_t)(s[i] - '0');
                digits++;
                exp10--;
            } else {
                truncated = true;
            }
        }
    }
    if (!any)
        return -1;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool exp_negative = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            exp_negative = s[i++] == '-';
        if (i == n)
            return -1;
        long e = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        exp10 += exp_negative ? -e : e;
    }
    if (i != n)
        return -1;

    double value;
    if (mantissa == 0) {
        value = 0.0;
    } else if (!truncated && digits <= 15 && exp10 >= -22 && exp10 <= 22) {
        value = exp10 < 0 ? (double)mantissa / exact_powers_of_ten[-exp10]
                          : (double)mantissa * exact_powers_of_ten[exp10];
    } else {
        char buf[MAX_NUMBER_CHARS + 1];
        if (n > MAX_NUMBER_CHARS)
            return -1;
        memcpy(buf, s, n);
        buf[n] = '\0';
        value = fabs(strtod(buf, NULL));
    }
    float f = (float)(negative ? -value : value);
    if (!isfinite(f))
        return -2;
    *out = f;
    return 0;
}

/* Why an operand that is not defined yet is missing: later in the file, or nowhere. */
static int bad_reference(struct parser *p, const struct token *t, const char *line_end)
{
    char q[QUOTE_MAX + 4];
    unsigned long line = p->line;
    for (const char *s = line_end; s < p->end; line++) {
        const char *nl = memchr(s, '\n', (size_t)(p->end - s));
        const char *e = nl ? nl : p->end;
        struct token tok[MAX_TOKENS];
        int k = split(s, e, tok);
        if (k > 0 && tok[0].n == t->n && memcmp(tok[0].s, t->s, t->n) == 0)
            return fail(p, "forward reference to '%s' (defined on line %lu)", quoted(t, q),
                        line + 1);
        s = nl ? nl + 1 : p->end;
    }
    return fail(p, "undefined reference '%s'", quoted(t, q));
}

static int parse_line(struct parser *p, const char *s, const char *end)
{
    struct token tok[MAX_TOKENS];
    char q[QUOTE_MAX + 4];
    int k = split(s, end, tok);
    if (k == 0 || tok[0].s[0] == '#')
        return 0;
    if (!valid_id(&tok[0]))
        return fail(p, "bad id '%s' (ids are '_' then letters, digits or '_')", quoted(&tok[0], q));
    if (k == 1)
        return fail(p, "missing op after '%s'", quoted(&tok[0], q));
    int op = parse_op(&tok[1]);
    if (op < 0)
        return fail(p, "unknown op '%s'", quoted(&tok[1], q));
    int want = op == VM_CONST ? 1 : vm_op_arity((enum vm_op)op);
    if (k - 2 != want) {
        static const char *const counts[] = {"0", "1", "2", "more than 2"};
        return fail(p, "'%s' takes %d operand%s, not %s", vm_op_name((enum vm_op)op), want,
                    want == 1 ? "" : "s", counts[k - 2]);
    }
    if (p->n == VM_MAX_INSNS)
        return fail(p, "too many instructions (the limit is %u)", VM_MAX_INSNS);
    int64_t dup = lookup(p, &tok[0]);
    if (dup >= 0)
        return fail(p, "duplicate id '%s' (first defined on line %lu)", quoted(&tok[0], q),
                    p->def_line[dup]);

    struct vm_insn insn = {.op = (uint8_t)op};
    if (op == VM_CONST) {
        int rc = parse_number(tok[2].s, tok[2].n, &insn.imm);
        if (rc == -2)
            return fail(p, "number out of single-precision range '%s'", quoted(&tok[2], q));
        if (rc < 0)
            return fail(p, "bad number '%s'", quoted(&tok[2], q));
    } else {
        uint32_t *operand[2] = {&insn.a, &insn.b};
        for (int i = 0; i < want; i++) {
            int64_t ref = lookup(p, &tok[2 + i]);
            if (ref < 0)
                return valid_id(&tok[2 + i]) ? bad_reference(p, &tok[2 + i], end)
                                             : fail(p, "bad operand '%s'", quoted(&tok[2 + i], q));
            *operand[i] = (uint32_t)ref;
        }
    }
    p->id_off[p->n] = (uint32_t)(tok[0].s - p->text);
    p->id_len[p->n] = (uint16_t)tok[0].n;
    p->def_line[p->n] = p->line;
    insert(p, &tok[0], p->n);
    p->insns[p->n++] = insn;
    return 0;
}

static int parse_lines(struct parser *p)
{
    const char *s = p->text;
    p->line = 1;
    while (s < p->end) {
        const char *nl = memchr(s, '\n', (size_t)(p->end - s));
        const char *e = nl ? nl : p->end;
        if (parse_line(p, s, e) < 0)
            return -1;
        if (!nl)
            break;
        s = nl + 1;
        p->line++;
    }
    if (p->n == 0)
        return fail(p, "empty program: no instructions");
    return 0;
}

int vm_parse(const char *text, size_t len, struct vm_prog *out, struct vm_parse_error *err)
{
    struct parser p = {.text = text, .end = text + len, .err = err};
    memset(out, 0, sizeof *out);
    err->line = 0;
    err->msg[0] = '\0';
    if (len > UINT32_MAX) {
        err->line = 1;
        snprintf(err->msg, sizeof err->msg, "program too large (more than 4 GiB)");
        return -1;
    }
    /* Lines bound the instruction count, so every array is sized once. */
    size_t lines = 1;
    for (const char *s = text; (s = memchr(s, '\n', (size_t)(p.end - s))) != NULL; s++)
        lines++;
    p.cap = lines < VM_MAX_INSNS ? (uint32_t)lines : VM_MAX_INSNS;
    uint32_t slots = 16;
    while (slots < 2 * p.cap)
        slots *= 2;
    p.mask = slots - 1;
    p.insns = malloc(p.cap * sizeof *p.insns);
    p.id_off = malloc(p.cap * sizeof *p.id_off);
    p.id_len = malloc(p.cap * sizeof *p.id_len);
    p.def_line = malloc(p.cap * sizeof *p.def_line);
    p.table = calloc(slots, sizeof *p.table);
    int rc = -1;
    if (!p.insns || !p.id_off || !p.id_len || !p.def_line || !p.table) {
        err->line = 1;
        snprintf(err->msg, sizeof err->msg, "out of memory");
    } else {
        rc = parse_lines(&p);
    }
    free(p.id_off);
    free(p.id_len);
    free(p.def_line);
    free(p.table);
    if (rc < 0) {
        free(p.insns);
        return -1;
    }
    out->insns = p.insns;
    out->n = p.n;
    return 0;
}
