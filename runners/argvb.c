#include "runners/argvb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static bool argvb_ready(struct argvb *b)
{
    if (!b->failed && !b->v && !(b->v = strv_new()))
        b->failed = true;
    return !b->failed;
}

void argvb_add(struct argvb *b, const char *s)
{
    if (argvb_ready(b) && strv_push(&b->v, s) < 0)
        b->failed = true;
}

void argvb_addf(struct argvb *b, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    argvb_add(b, s);
    free(s);
}

void argvb_extend(struct argvb *b, char *const *more)
{
    for (size_t i = 0; more && more[i]; i++)
        argvb_add(b, more[i]);
}

char **argvb_finish(struct argvb *b)
{
    argvb_ready(b);
    char **v = b->v;
    b->v = NULL;
    if (b->failed) {
        strv_free(v);
        return NULL;
    }
    return v;
}
