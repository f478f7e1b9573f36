/* The VM parser: one pass over the lines. Ids that are hex numbers (as generated programs write
 * them) resolve through a direct table, any others through an open-addressing hash table. Each
 * failure is reported once, with its line, and the partial program is discarded. */
#include "workloads/render/parse.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 4         /* id, op and at most two operands */
#define MAX_NUMBER_CHARS 400 /* longer constants are refused rather than copied */
#define QUOTE_MAX 40         /* how much of a bad token an error message repeats */

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
    /* Per instruction: the line that defined it, and where its id is in text (only for ids in
     * the hash table, which is made when the first such id comes). */
    uint32_t *def_line;
    uint32_t *id_off;
    uint16_t *id_len;
    /* id -> (its hash << 32) | (instruction index + 1); 0: empty. Keeping the hash in the entry
     * means ids are compared only when their hashes are equal. */
    uint64_t *table;
    uint32_t mask;
    /* Ids spelled as '_' and a lowercase hex number without leading zeros (generated programs'
     * "_1eb9") are looked up by that number instead: number -> index + 1, 0 unused. */
    uint32_t *by_number;
    uint32_t n_numbers;
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

static uint32_t hash_id(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, folded so that the low bits see every byte */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(h >> 32);
}

/* The end of the token at s: the first byte at or below ' ' (blanks and control characters),
 * found eight bytes at a time. The lowest flagged byte of the subtraction trick is exact. */
static const char *token_end(const char *s, const char *end)
{
    while (end - s >= 8) {
        uint64_t x;
        memcpy(&x, s, sizeof x);
        uint64_t low = (x - 0x2121212121212121ull) & ~x & 0x8080808080808080ull;
        if (low)
            return s + (__builtin_ctzll(low) >> 3);
        s += 8;
    }
    while (s < end && (unsigned char)*s > ' ')
        s++;
    return s;
}

/* Splits a line into blank-separated tokens; returns how many (0 for a comment), MAX_TOKENS + 1
 * for too many, or -1 with *bad pointing at a control character. */
static int split(const char *s, const char *end, struct token tok[MAX_TOKENS], const char **bad)
{
    int n = 0;
    for (;;) {
        while (s < end && is_blank(*s))
            s++;
        if (s == end)
            return n;
        if ((unsigned char)*s < ' ') {
            *bad = s;
            return -1;
        }
        if (n == 0 && *s == '#')
            return 0;
        if (n == MAX_TOKENS)
            return MAX_TOKENS + 1;
        const char *start = s;
        s = token_end(s, end);
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

/* Lowercase hex digits' values plus one; 0 for any other byte. */
static const uint8_t hex_digit[256] = {
    ['0'] = 1, ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

/* The id's number when it is a canonical hex id within the direct map. */
static bool id_number(const struct parser *p, const struct token *t, uint32_t *number)
{
    if (t->n < 2 || t->n > 8 || (t->s[1] == '0' && t->n > 2))
        return false;
    uint32_t v = 0;
    bool bad = false;
    for (size_t i = 1; i < t->n; i++) {
        unsigned d = hex_digit[(unsigned char)t->s[i]];
        bad |= d == 0;
        v = v << 4 | ((d - 1) & 15);
    }
    *number = v;
    return !bad && v < p->n_numbers;
}

/* The instruction called t (whose hash_id is hash) in the hash table, or -1. */
static int64_t lookup(const struct parser *p, const struct token *t, uint32_t hash)
{
    for (uint32_t h = hash & p->mask;; h = (h + 1) & p->mask) {
        uint64_t e = p->table ? p->table[h] : 0;
        if (e == 0)
            return -1;
        uint32_t i = (uint32_t)e - 1;
        if ((uint32_t)(e >> 32) == hash && p->id_len[i] == t->n &&
            memcmp(p->text + p->id_off[i], t->s, t->n) == 0)
            return i;
    }
}

static int insert(struct parser *p, uint32_t hash, uint32_t index)
{
    if (!p->table) {
        p->table = calloc((size_t)p->mask + 1, sizeof *p->table);
        p->id_off = malloc(p->cap * sizeof *p->id_off);
        p->id_len = malloc(p->cap * sizeof *p->id_len);
        if (!p->table || !p->id_off || !p->id_len)
            return fail(p, "out of memory");
    }
    uint32_t h = hash & p->mask;
    while (p->table[h] != 0)
        h = (h + 1) & p->mask;
    p->table[h] = (uint64_t)hash << 32 | (index + 1);
    return 0;
}

static int parse_op(const struct token *t)
{
    const char *s = t->s;
    switch (t->n) {
    case 3:
        return memcmp(s, "add", 3) == 0   ? VM_ADD
               : memcmp(s, "sub", 3) == 0 ? VM_SUB
               : memcmp(s, "mul", 3) == 0 ? VM_MUL
               : memcmp(s, "max", 3) == 0 ? VM_MAX
               : memcmp(s, "min", 3) == 0 ? VM_MIN
               : memcmp(s, "neg", 3) == 0 ? VM_NEG
                                          : -1;
    case 4:
        return memcmp(s, "sqrt", 4) == 0 ? VM_SQRT : -1;
    case 5:
        return memcmp(s, "const", 5) == 0   ? VM_CONST
               : memcmp(s, "var-x", 5) == 0 ? VM_VAR_X
               : memcmp(s, "var-y", 5) == 0 ? VM_VAR_Y
                                            : -1;
    case 6:
        return memcmp(s, "square", 6) == 0 ? VM_SQUARE : -1;
    default:
        return -1;
    }
}

static const double exact_powers_of_ten[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* A decimal number: [+-] digits [. digits] [e [+-] digits], at least one mantissa digit.
 * Returns 0, -1 for a malformed number, -2 for one outside float's range, -3 for one of more
 * than MAX_NUMBER_CHARS characters that needs strtod. Small numbers take
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
            return -3;
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
    unsigned long line = p->line + 1;
    for (const char *s = line_end < p->end ? line_end + 1 : p->end; s < p->end; line++) {
        const char *nl = memchr(s, '\n', (size_t)(p->end - s));
        const char *e = nl ? nl : p->end;
        struct token tok[MAX_TOKENS];
        const char *bad;
        int k = split(s, e, tok, &bad);
        if (k > 0 && tok[0].n == t->n && memcmp(tok[0].s, t->s, t->n) == 0)
            return fail(p, "forward reference to '%s' (defined on line %lu)", quoted(t, q), line);
        s = nl ? nl + 1 : p->end;
    }
    return fail(p, "undefined reference '%s'", quoted(t, q));
}

static int parse_line(struct parser *p, const char *s, const char *end)
{
    struct token tok[MAX_TOKENS];
    char q[QUOTE_MAX + 4];
    const char *bad;
    int k = split(s, end, tok, &bad);
    if (k < 0)
        return fail(p, "bad character 0x%02x in column %zu", (unsigned char)*bad,
                    (size_t)(bad - s) + 1);
    if (k == 0)
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
    uint32_t number, hash = 0;
    bool numbered = id_number(p, &tok[0], &number);
    if (!numbered)
        hash = hash_id(tok[0].s, tok[0].n);
    int64_t dup = numbered ? (int64_t)p->by_number[number] - 1 : lookup(p, &tok[0], hash);
    if (dup >= 0)
        return fail(p, "duplicate id '%s' (first defined on line %lu)", quoted(&tok[0], q),
                    (unsigned long)p->def_line[dup]);

    /* Filled in place: a local copy written field by field and then copied whole would stall on
     * store forwarding. It only counts once p->n moves past it. */
    struct vm_insn *insn = &p->insns[p->n];
    insn->op = (uint8_t)op;
    insn->a = insn->b = 0;
    insn->imm = 0.0f;
    if (op == VM_CONST) {
        int rc = parse_number(tok[2].s, tok[2].n, &insn->imm);
        if (rc == -2)
            return fail(p, "number out of single-precision range '%s'", quoted(&tok[2], q));
        if (rc == -3)
            return fail(p, "number too long '%s' (more than %d characters)", quoted(&tok[2], q),
                        MAX_NUMBER_CHARS);
        if (rc < 0)
            return fail(p, "bad number '%s'", quoted(&tok[2], q));
    } else {
        uint32_t *operand[2] = {&insn->a, &insn->b};
        for (int i = 0; i < want; i++) {
            uint32_t ref_number;
            int64_t ref = id_number(p, &tok[2 + i], &ref_number)
                              ? (int64_t)p->by_number[ref_number] - 1
                              : lookup(p, &tok[2 + i], hash_id(tok[2 + i].s, tok[2 + i].n));
            if (ref < 0 && !valid_id(&tok[2 + i]))
                return fail(p, "bad operand '%s'", quoted(&tok[2 + i], q));
            if (ref < 0 && tok[2 + i].n == tok[0].n &&
                memcmp(tok[2 + i].s, tok[0].s, tok[0].n) == 0)
                return fail(p, "'%s' refers to itself", quoted(&tok[0], q));
            if (ref < 0)
                return bad_reference(p, &tok[2 + i], end);
            *operand[i] = (uint32_t)ref;
        }
    }
    p->def_line[p->n] = (uint32_t)p->line;
    if (numbered) {
        p->by_number[number] = p->n + 1;
    } else {
        if (insert(p, hash, p->n) < 0)
            return -1;
        p->id_off[p->n] = (uint32_t)(tok[0].s - p->text);
        p->id_len[p->n] = (uint16_t)tok[0].n;
    }
    p->n++;
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
    if (p->n == 0) {
        if (p->line > 1 && p->end[-1] == '\n')
            p->line--; /* the last line, not the empty one after the final newline */
        return fail(p, "empty program: no instructions");
    }
    return 0;
}

int vm_parse(const char *text, size_t len, struct vm_prog *out, struct vm_parse_error *err)
{
    struct parser p = {.text = text, .end = text + len, .err = err};
    memset(out, 0, sizeof *out);
    err->line = 0;
    err->msg[0] = '\0';
    if (len >= UINT32_MAX) {
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
    p.def_line = malloc(p.cap * sizeof *p.def_line);
    p.n_numbers = 2 * p.cap + 64;
    p.by_number = calloc(p.n_numbers, sizeof *p.by_number);
    int rc = -1;
    if (!p.insns || !p.def_line || !p.by_number) {
        err->line = 1;
        snprintf(err->msg, sizeof err->msg, "out of memory");
    } else {
        rc = parse_lines(&p);
    }
    free(p.id_off);
    free(p.id_len);
    free(p.def_line);
    free(p.table);
    free(p.by_number);
    if (rc < 0) {
        free(p.insns);
        return -1;
    }
    out->insns = p.insns;
    out->n = p.n;
    return 0;
}
