#include "workloads/wl_lex.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A word being built. */
struct word {
    char *s;
    size_t len, cap;
};

struct lexer {
    const char *p;
    wl_lookup_fn lookup;
    void *ctx;
    char *why;
    size_t whylen;
    struct wl_tokens *out;
};

static int lex_error(struct lexer *lx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int lex_error(struct lexer *lx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lx->why, lx->whylen, fmt, ap);
    va_end(ap);
    return -1;
}

static int word_add(struct lexer *lx, struct word *w, const char *s, size_t n)
{
    if (w->len + n + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : 32;
        while (cap < w->len + n + 1)
            cap *= 2;
        char *grown = realloc(w->s, cap);
        if (!grown)
            return lex_error(lx, "%s", strerror(ENOMEM));
        w->s = grown;
        w->cap = cap;
    }
    memcpy(w->s + w->len, s, n);
    w->len += n;
    w->s[w->len] = '\0';
    return 0;
}

static int push(struct lexer *lx, enum wl_token_kind kind, enum pl_redir_kind redir, char *text)
{
    struct wl_token *grown = realloc(lx->out->v, (lx->out->n + 1) * sizeof *grown);
    if (!grown) {
        free(text);
        return lex_error(lx, "%s", strerror(ENOMEM));
    }
    lx->out->v = grown;
    grown[lx->out->n++] = (struct wl_token){kind, redir, text};
    return 0;
}

static bool name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

/* ${name} at lx->p (which points at the '$'). */
static int expand(struct lexer *lx, struct word *w)
{
    if (lx->p[1] != '{')
        return lex_error(lx, "'$' must start ${name}; write \\$ or '$' for a dollar sign");
    const char *name = lx->p + 2, *end = name;
    while (name_char(*end))
        end++;
    if (*end != '}' || end == name || !name_start(*name))
        return lex_error(lx, "bad variable reference: expected ${name} with a name of letters, "
                             "digits and '_'");
    char var[64];
    if ((size_t)(end - name) >= sizeof var)
        return lex_error(lx, "variable name too long");
    memcpy(var, name, (size_t)(end - name));
    var[end - name] = '\0';
    const char *value = lx->lookup ? lx->lookup(lx->ctx, var) : NULL;
    if (!value)
        return lex_error(lx, "unknown variable ${%s}", var);
    lx->p = end + 1;
    return word_add(lx, w, value, strlen(value));
}

static int single_quoted(struct lexer *lx, struct word *w)
{
    const char *close = strchr(lx->p + 1, '\'');
    if (!close)
        return lex_error(lx, "unterminated '...' (a quote is missing its closing ')");
    int rc = word_add(lx, w, lx->p + 1, (size_t)(close - lx->p - 1));
    lx->p = close + 1;
    return rc;
}

static int double_quoted(struct lexer *lx, struct word *w)
{
    lx->p++;
    for (;;) {
        char c = *lx->p;
        if (c == '\0')
            return lex_error(lx, "unterminated \"...\" (a quote is missing its closing \")");
        if (c == '"') {
            lx->p++;
            return 0;
        }
        if (c == '$') {
            if (expand(lx, w) < 0)
                return -1;
            continue;
        }
        if (c == '\\' && (lx->p[1] == '"' || lx->p[1] == '\\' || lx->p[1] == '$'))
            lx->p++;
        if (word_add(lx, w, lx->p, 1) < 0)
            return -1;
        lx->p++;
    }
}

static bool ends_word(char c)
{
    return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '|' || c == '<' ||
           c == '>';
}

/* An operator at lx->p, if one starts there: 1 when one was pushed, 0 when none, -1 on error. */
static int operator(struct lexer *lx)
{
    const char *p = lx->p;
    if (*p == '|') {
        lx->p++;
        return push(lx, WL_PIPE, PL_IN, NULL) < 0 ? -1 : 1;
    }
    static const struct {
        const char *op;
        enum pl_redir_kind kind;
    } redirs[] = {
        /* longest first */
        {"2>&1", PL_ERR_TO_OUT}, {"2>>", PL_ERR_APPEND}, {"2>", PL_ERR},
        {">>", PL_APPEND},       {">", PL_OUT},          {"<", PL_IN},
    };
    for (size_t i = 0; i < sizeof redirs / sizeof redirs[0]; i++) {
        size_t n = strlen(redirs[i].op);
        if (strncmp(p, redirs[i].op, n) != 0)
            continue;
        if (p[n] == '&' || (redirs[i].kind != PL_ERR_TO_OUT && p[n - 1] == '>' && p[n] == '|'))
            return lex_error(lx, "'%.*s' is not supported: the operators are | < > >> 2> 2>> 2>&1",
                             (int)n + 1, p);
        lx->p += n;
        return push(lx, WL_REDIR, redirs[i].kind, NULL) < 0 ? -1 : 1;
    }
    return 0;
}

static int unquoted_special(struct lexer *lx, char c)
{
    if (c == '*' || c == '?')
        return lex_error(lx, "unquoted '%c': descriptions do no filename globbing; quote it", c);
    return lex_error(lx,
                     "unquoted '%c': descriptions have no shell syntax beyond | < > >> 2> 2>> "
                     "2>&1; quote it to pass it literally",
                     c);
}

/* One word starting at lx->p (not a blank, not an operator). */
static int word(struct lexer *lx)
{
    struct word w = {0};
    if (word_add(lx, &w, "", 0) < 0)
        return -1;
    while (!ends_word(*lx->p)) {
        char c = *lx->p;
        int rc = 0;
        if (c == '\'') {
            rc = single_quoted(lx, &w);
        } else if (c == '"') {
            rc = double_quoted(lx, &w);
        } else if (c == '$') {
            rc = expand(lx, &w);
        } else if (c == '\\') {
            if (lx->p[1] == '\0')
                rc = lex_error(lx, "a backslash ends the line with nothing to escape");
            else
                rc = word_add(lx, &w, lx->p + 1, 1);
            lx->p += 2 * (rc == 0);
        } else if (strchr(";&`()*?", c)) {
            rc = unquoted_special(lx, c);
        } else {
            rc = word_add(lx, &w, lx->p++, 1);
        }
        if (rc < 0) {
            free(w.s);
            return -1;
        }
    }
    return push(lx, WL_WORD, PL_IN, w.s);
}

int wl_lex(const char *line, wl_lookup_fn lookup, void *ctx, struct wl_tokens *out, char *why,
           size_t whylen)
{
    memset(out, 0, sizeof *out);
    struct lexer lx = {line, lookup, ctx, why, whylen, out};
    for (;;) {
        while (*lx.p == ' ' || *lx.p == '\t' || *lx.p == '\n' || *lx.p == '\r')
            lx.p++;
        if (*lx.p == '\0' || *lx.p == '#')
            return 0;
        int rc = operator(&lx);
        if (rc == 0)
            rc = word(&lx);
        if (rc < 0) {
            wl_tokens_free(out);
            return -1;
        }
    }
}

void wl_tokens_free(struct wl_tokens *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].text);
    free(t->v);
    memset(t, 0, sizeof *t);
}
