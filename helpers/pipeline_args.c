#include "helpers/pipeline_args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUMBER_LEN 24

static const char *const ops[] = {
    [PL_IN] = "<",   [PL_OUT] = ">",          [PL_APPEND] = ">>",
    [PL_ERR] = "2>", [PL_ERR_APPEND] = "2>>", [PL_ERR_TO_OUT] = "2>&1",
};

const char *pl_redir_op(enum pl_redir_kind kind)
{
    return (size_t)kind < sizeof ops / sizeof ops[0] ? ops[kind] : "?";
}

int pl_redir_kind_of(const char *word)
{
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (strcmp(word, ops[k]) == 0)
            return (int)k;
    return -1;
}

int pl_redir_target_fd(enum pl_redir_kind kind)
{
    switch (kind) {
    case PL_IN:
        return 0;
    case PL_OUT:
    case PL_APPEND:
        return 1;
    case PL_ERR:
    case PL_ERR_APPEND:
    case PL_ERR_TO_OUT:
    default:
        return 2;
    }
}

/* A stage's count: a plain decimal from 1 to the words left. */
static int parse_count(const char *s, size_t left, size_t *out)
{
    if (!*s || strlen(s) > 9 || s[0] == '0')
        return -1;
    size_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (size_t)(*p - '0');
    }
    if (v > left)
        return -1;
    *out = v;
    return 0;
}

static int fail(struct pl_pipeline *p, char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct pl_pipeline *p, char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    /* The message quotes an argument, which may hold a line break: it stays one line. */
    for (char *c = why; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    pl_free(p);
    return -1;
}

/* The redirections after a stage's arguments, up to the next '|' or the end. */
static int decode_redirs(size_t n, char **args, size_t *i, struct pl_stage *st,
                         struct pl_pipeline *p, char *why, size_t whylen)
{
    size_t first = *i, count = 0;
    while (*i < n && strcmp(args[*i], "|") != 0) {
        int kind = pl_redir_kind_of(args[*i]);
        if (kind < 0)
            return fail(p, why, whylen, "expected a redirection or '|', got '%s'", args[*i]);
        (*i)++;
        if (kind != PL_ERR_TO_OUT && (*i)++ >= n)
            return fail(p, why, whylen, "'%s' needs a file name", pl_redir_op(kind));
        count++;
    }
    st->redirs = count ? calloc(count, sizeof *st->redirs) : NULL;
    if (count && !st->redirs)
        return fail(p, why, whylen, "%s", strerror(ENOMEM));
    for (size_t j = first; j < *i; j++) {
        struct pl_redir *r = &st->redirs[st->n_redirs++];
        r->kind = (enum pl_redir_kind)pl_redir_kind_of(args[j]);
        r->path = r->kind == PL_ERR_TO_OUT ? NULL : args[++j];
    }
    return 0;
}

int pl_decode(size_t n, char **args, struct pl_pipeline *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return fail(out, why, whylen, "%s", "no command");
    size_t i = 0;
    for (;;) {
        size_t argc;
        if (i >= n)
            return fail(out, why, whylen, "%s", "a command is missing after '|'");
        if (parse_count(args[i], n - i - 1, &argc) < 0)
            return fail(out, why, whylen,
                        "expected the number of words of a command (1 or more, no more than "
                        "follow), got '%s'",
                        args[i]);
        struct pl_stage *grown = realloc(out->stages, (out->n_stages + 1) * sizeof *grown);
        if (!grown)
            return fail(out, why, whylen, "%s", strerror(ENOMEM));
        out->stages = grown;
        struct pl_stage *st = &grown[out->n_stages++];
        memset(st, 0, sizeof *st);
        st->argv = calloc(argc + 1, sizeof *st->argv);
        if (!st->argv)
            return fail(out, why, whylen, "%s", strerror(ENOMEM));
        memcpy(st->argv, args + i + 1, argc * sizeof *st->argv);
        st->argc = argc;
        i += argc + 1;
        if (decode_redirs(n, args, &i, st, out, why, whylen) < 0)
            return -1;
        if (i == n)
            return 0;
        i++; /* the '|' */
    }
}

void pl_free(struct pl_pipeline *p)
{
    for (size_t s = 0; s < p->n_stages; s++) {
        free(p->stages[s].argv);
        free(p->stages[s].redirs);
    }
    free(p->stages);
    memset(p, 0, sizeof *p);
}

size_t pl_encoded_len(const struct pl_pipeline *p)
{
    size_t n = p->n_stages ? p->n_stages - 1 : 0; /* the '|' between stages */
    for (size_t s = 0; s < p->n_stages; s++) {
        const struct pl_stage *st = &p->stages[s];
        n += 1 + st->argc;
        for (size_t r = 0; r < st->n_redirs; r++)
            n += st->redirs[r].kind == PL_ERR_TO_OUT ? 1 : 2;
    }
    return n;
}

void pl_encode(const struct pl_pipeline *p, const char **out, char *numbers)
{
    size_t w = 0;
    for (size_t s = 0; s < p->n_stages; s++) {
        const struct pl_stage *st = &p->stages[s];
        if (s)
            out[w++] = "|";
        char *count = numbers + s * NUMBER_LEN;
        snprintf(count, NUMBER_LEN, "%zu", st->argc);
        out[w++] = count;
        for (size_t a = 0; a < st->argc; a++)
            out[w++] = st->argv[a];
        for (size_t r = 0; r < st->n_redirs; r++) {
            out[w++] = pl_redir_op(st->redirs[r].kind);
            if (st->redirs[r].kind != PL_ERR_TO_OUT)
                out[w++] = st->redirs[r].path;
        }
    }
}
