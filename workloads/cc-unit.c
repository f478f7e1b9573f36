/* cc-unit.c: the translation unit of the `cc` workload.
 *
 * Ordinary application C of the kind a build compiles by the thousand: a growable string, an
 * open-addressing hash table, a tokenizer and recursive-descent evaluator for arithmetic
 * expressions with variables, a small INI-style configuration reader, and a few statistics. It uses
 * only the C library, so every mechanism that shows the system headers can compile it. It is never
 * linked or run: the workload measures the compile. Keep it stable: changing it changes the
 * workload's numbers. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- growable strings ---- */

struct strbuf {
    char *data;
    size_t len, cap;
};

static int strbuf_reserve(struct strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return 0;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    char *grown = realloc(sb->data, cap);
    if (!grown)
        return -1;
    sb->data = grown;
    sb->cap = cap;
    return 0;
}

int strbuf_append(struct strbuf *sb, const char *s, size_t n)
{
    if (strbuf_reserve(sb, n) < 0)
        return -1;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
    return 0;
}

int strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || strbuf_reserve(sb, (size_t)n) < 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, sb->cap - sb->len, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
    return 0;
}

void strbuf_free(struct strbuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

/* ---- hash table: string keys, double values, linear probing ---- */

struct entry {
    char *key;
    double value;
    uint32_t hash;
};

struct table {
    struct entry *slots;
    size_t cap, count;
};

static uint32_t hash_string(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h ? h : 1;
}

static int table_grow(struct table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 16;
    struct entry *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        struct entry *e = &t->slots[i];
        if (!e->key)
            continue;
        size_t j = e->hash & (cap - 1);
        while (slots[j].key)
            j = (j + 1) & (cap - 1);
        slots[j] = *e;
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

static struct entry *table_slot(const struct table *t, const char *key, uint32_t h)
{
    size_t j = h & (t->cap - 1);
    for (;;) {
        struct entry *e = &t->slots[j];
        if (!e->key || (e->hash == h && strcmp(e->key, key) == 0))
            return e;
        j = (j + 1) & (t->cap - 1);
    }
}

int table_set(struct table *t, const char *key, double value)
{
    if ((t->count + 1) * 4 > t->cap * 3 && table_grow(t) < 0)
        return -1;
    uint32_t h = hash_string(key);
    struct entry *e = table_slot(t, key, h);
    if (!e->key) {
        e->key = strdup(key);
        if (!e->key)
            return -1;
        e->hash = h;
        t->count++;
    }
    e->value = value;
    return 0;
}

bool table_get(const struct table *t, const char *key, double *value)
{
    if (!t->cap)
        return false;
    struct entry *e = table_slot(t, key, hash_string(key));
    if (!e->key)
        return false;
    *value = e->value;
    return true;
}

void table_free(struct table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].key);
    free(t->slots);
    t->slots = NULL;
    t->cap = t->count = 0;
}

/* ---- expressions: numbers, variables, + - * / ^, unary minus, parentheses, functions ---- */

enum token_kind { TOK_END, TOK_NUMBER, TOK_NAME, TOK_OP, TOK_LPAREN, TOK_RPAREN, TOK_COMMA, TOK_BAD };

struct token {
    enum token_kind kind;
    double number;
    char name[32];
    char op;
};

struct lexer {
    const char *p;
    struct token tok;
};

static void next_token(struct lexer *lx)
{
    while (isspace((unsigned char)*lx->p))
        lx->p++;
    struct token *t = &lx->tok;
    memset(t, 0, sizeof *t);
    char c = *lx->p;
    if (!c) {
        t->kind = TOK_END;
    } else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)lx->p[1]))) {
        char *end;
        t->number = strtod(lx->p, &end);
        t->kind = TOK_NUMBER;
        lx->p = end;
    } else if (isalpha((unsigned char)c) || c == '_') {
        size_t n = 0;
        while ((isalnum((unsigned char)*lx->p) || *lx->p == '_') && n + 1 < sizeof t->name)
            t->name[n++] = *lx->p++;
        t->kind = TOK_NAME;
    } else if (strchr("+-*/^%", c)) {
        t->kind = TOK_OP;
        t->op = c;
        lx->p++;
    } else if (c == '(' || c == ')' || c == ',') {
        t->kind = c == '(' ? TOK_LPAREN : c == ')' ? TOK_RPAREN : TOK_COMMA;
        lx->p++;
    } else {
        t->kind = TOK_BAD;
        lx->p++;
    }
}

struct parser {
    struct lexer lx;
    const struct table *vars;
    char error[128];
};

static double parse_expr(struct parser *ps);

static double fail(struct parser *ps, const char *what)
{
    if (!ps->error[0])
        snprintf(ps->error, sizeof ps->error, "%s", what);
    return NAN;
}

static double call_function(struct parser *ps, const char *name, const double *args, int n)
{
    static const struct {
        const char *name;
        int arity;
    } known[] = {{"sqrt", 1}, {"abs", 1}, {"min", 2}, {"max", 2}, {"log", 1}, {"exp", 1}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(known[i].name, name) != 0)
            continue;
        if (known[i].arity != n)
            return fail(ps, "wrong number of arguments");
        switch (i) {
        case 0:
            return args[0] < 0 ? fail(ps, "sqrt of a negative number") : sqrt(args[0]);
        case 1:
            return fabs(args[0]);
        case 2:
            return args[0] < args[1] ? args[0] : args[1];
        case 3:
            return args[0] > args[1] ? args[0] : args[1];
        case 4:
            return args[0] <= 0 ? fail(ps, "log of a non-positive number") : log(args[0]);
        default:
            return exp(args[0]);
        }
    }
    return fail(ps, "unknown function");
}

static double parse_primary(struct parser *ps)
{
    struct token t = ps->lx.tok;
    next_token(&ps->lx);
    switch (t.kind) {
    case TOK_NUMBER:
        return t.number;
    case TOK_NAME: {
        if (ps->lx.tok.kind == TOK_LPAREN) {
            double args[4];
            int n = 0;
            next_token(&ps->lx);
            while (ps->lx.tok.kind != TOK_RPAREN) {
                if (n == 4)
                    return fail(ps, "too many arguments");
                args[n++] = parse_expr(ps);
                if (ps->lx.tok.kind == TOK_COMMA)
                    next_token(&ps->lx);
                else if (ps->lx.tok.kind != TOK_RPAREN)
                    return fail(ps, "expected ',' or ')'");
            }
            next_token(&ps->lx);
            return call_function(ps, t.name, args, n);
        }
        double v;
        if (!ps->vars || !table_get(ps->vars, t.name, &v))
            return fail(ps, "unknown variable");
        return v;
    }
    case TOK_LPAREN: {
        double v = parse_expr(ps);
        if (ps->lx.tok.kind != TOK_RPAREN)
            return fail(ps, "expected ')'");
        next_token(&ps->lx);
        return v;
    }
    case TOK_OP:
        if (t.op == '-')
            return -parse_primary(ps);
        return fail(ps, "unexpected operator");
    case TOK_END:
    case TOK_RPAREN:
    case TOK_COMMA:
    case TOK_BAD:
    default:
        return fail(ps, "expected a number, a name or '('");
    }
}

static double parse_power(struct parser *ps)
{
    double base = parse_primary(ps);
    if (ps->lx.tok.kind == TOK_OP && ps->lx.tok.op == '^') {
        next_token(&ps->lx);
        return pow(base, parse_power(ps)); /* right-associative */
    }
    return base;
}

static double parse_term(struct parser *ps)
{
    double v = parse_power(ps);
    while (ps->lx.tok.kind == TOK_OP && strchr("*/%", ps->lx.tok.op)) {
        char op = ps->lx.tok.op;
        next_token(&ps->lx);
        double rhs = parse_power(ps);
        if (op == '*')
            v *= rhs;
        else if (rhs == 0)
            return fail(ps, "division by zero");
        else
            v = op == '/' ? v / rhs : fmod(v, rhs);
    }
    return v;
}

static double parse_expr(struct parser *ps)
{
    double v = parse_term(ps);
    while (ps->lx.tok.kind == TOK_OP && (ps->lx.tok.op == '+' || ps->lx.tok.op == '-')) {
        char op = ps->lx.tok.op;
        next_token(&ps->lx);
        double rhs = parse_term(ps);
        v = op == '+' ? v + rhs : v - rhs;
    }
    return v;
}

int evaluate(const char *text, const struct table *vars, double *out, char *err, size_t errlen)
{
    struct parser ps = {.lx = {.p = text}, .vars = vars};
    next_token(&ps.lx);
    double v = parse_expr(&ps);
    if (!ps.error[0] && ps.lx.tok.kind != TOK_END)
        fail(&ps, "unexpected text after the expression");
    if (ps.error[0]) {
        snprintf(err, errlen, "%s", ps.error);
        return -1;
    }
    *out = v;
    return 0;
}

/* ---- configuration: [section] headers, key = expression lines, # comments ---- */

struct config_error {
    int line;
    char message[160];
};

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static bool valid_key(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
            return false;
    return true;
}

/* Reads every line of text into vars as "section.key"; later keys may use earlier ones. */
int config_load(const char *text, struct table *vars, struct config_error *err)
{
    char section[64] = "";
    char *copy = strdup(text);
    if (!copy)
        return -1;
    int line_no = 0, rc = 0;
    for (char *line = strtok(copy, "\n"); line && rc == 0; line = strtok(NULL, "\n")) {
        line_no++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (!close || close[1] || close - s - 1 >= (ptrdiff_t)sizeof section) {
                err->line = line_no;
                snprintf(err->message, sizeof err->message, "bad section header");
                rc = -1;
                break;
            }
            *close = '\0';
            snprintf(section, sizeof section, "%s", trim(s + 1));
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            err->line = line_no;
            snprintf(err->message, sizeof err->message, "expected key = value");
            rc = -1;
            break;
        }
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        if (!valid_key(key)) {
            err->line = line_no;
            snprintf(err->message, sizeof err->message, "bad key '%.60s'", key);
            rc = -1;
            break;
        }
        char full[160], why[128];
        snprintf(full, sizeof full, "%s%s%s", section, section[0] ? "." : "", key);
        double v;
        if (evaluate(value, vars, &v, why, sizeof why) < 0) {
            err->line = line_no;
            snprintf(err->message, sizeof err->message, "%.60s: %.80s", full, why);
            rc = -1;
        } else if (table_set(vars, full, v) < 0) {
            rc = -1;
        }
    }
    free(copy);
    return rc;
}

/* ---- statistics over a table's values ---- */

struct summary {
    size_t n;
    double min, max, mean, median, stddev;
};

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int summarize(const struct table *t, struct summary *s)
{
    memset(s, 0, sizeof *s);
    if (!t->count)
        return 0;
    double *v = malloc(t->count * sizeof *v);
    if (!v)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].key)
            v[n++] = t->slots[i].value;
    qsort(v, n, sizeof *v, compare_doubles);
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    s->n = n;
    s->min = v[0];
    s->max = v[n - 1];
    s->mean = sum / (double)n;
    s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    for (size_t i = 0; i < n; i++)
        sq += (v[i] - s->mean) * (v[i] - s->mean);
    s->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
    free(v);
    return 0;
}

/* ---- a report: the keys in order, then the summary ---- */

static int compare_keys(const void *a, const void *b)
{
    const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;
    return strcmp(x->key, y->key);
}

char *report(const struct table *t)
{
    struct strbuf sb = {0};
    const struct entry **sorted = malloc((t->count ? t->count : 1) * sizeof *sorted);
    if (!sorted)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].key)
            sorted[n++] = &t->slots[i];
    qsort(sorted, n, sizeof *sorted, compare_keys);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = strbuf_printf(&sb, "%-32s %14.6g\n", sorted[i]->key, sorted[i]->value);
    free(sorted);
    struct summary s;
    if (rc == 0 && summarize(t, &s) == 0 && s.n)
        rc = strbuf_printf(&sb, "\n%zu values: min %g, median %g, mean %g, max %g, sd %g\n", s.n,
                           s.min, s.median, s.mean, s.max, s.stddev);
    if (rc < 0) {
        strbuf_free(&sb);
        return NULL;
    }
    return sb.data ? sb.data : strdup("");
}

/* ---- reading a whole file ---- */

char *read_file(const char *path, size_t limit, int *error)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        *error = errno;
        return NULL;
    }
    struct strbuf sb = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (sb.len + n > limit) {
            *error = EFBIG;
            strbuf_free(&sb);
            fclose(f);
            return NULL;
        }
        if (strbuf_append(&sb, chunk, n) < 0) {
            *error = ENOMEM;
            strbuf_free(&sb);
            fclose(f);
            return NULL;
        }
    }
    *error = ferror(f) ? EIO : 0;
    fclose(f);
    if (*error) {
        strbuf_free(&sb);
        return NULL;
    }
    return sb.data ? sb.data : strdup("");
}

int config_main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    int error;
    char *text = read_file(argv[1], 1 << 20, &error);
    if (!text) {
        fprintf(stderr, "%s: %s\n", argv[1], strerror(error));
        return 1;
    }
    struct table vars = {0};
    struct config_error err = {0};
    int rc = config_load(text, &vars, &err);
    if (rc < 0 && err.line)
        fprintf(stderr, "%s:%d: %s\n", argv[1], err.line, err.message);
    else if (rc < 0)
        fprintf(stderr, "%s: out of memory\n", argv[1]);
    char *out = rc == 0 ? report(&vars) : NULL;
    if (out)
        fputs(out, stdout);
    free(out);
    free(text);
    table_free(&vars);
    return rc == 0 && out ? 0 : 1;
}
