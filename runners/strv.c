#include "runners/action.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char **strv_new(void)
{
    return calloc(1, sizeof(char *));
}

size_t strv_len(char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

static int strv_push_owned(char ***v, char *copy)
{
    size_t n = strv_len(*v);
    char **grown = realloc(*v, (n + 2) * sizeof(char *));
    if (!grown) {
        free(copy);
        return -1;
    }
    grown[n] = copy;
    grown[n + 1] = NULL;
    *v = grown;
    return 0;
}

int strv_push(char ***v, const char *s)
{
    char *copy = strdup(s);
    if (!copy)
        return -1;
    return strv_push_owned(v, copy);
}

int strv_pushf(char ***v, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    return strv_push_owned(v, s);
}

int strv_extend(char ***v, char *const *more)
{
    for (size_t i = 0; more && more[i]; i++)
        if (strv_push(v, more[i]) < 0)
            return -1;
    return 0;
}

char **strv_dup(char *const *v)
{
    char **copy = strv_new();
    if (copy && strv_extend(&copy, v) < 0) {
        strv_free(copy);
        return NULL;
    }
    return copy;
}

void strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static bool needs_quotes(const char *s)
{
    if (!*s)
        return true;
    return strpbrk(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") != NULL;
}

char *strv_join_shell(char *const *v)
{
    size_t cap = 1;
    for (size_t i = 0; v && v[i]; i++)
        cap += 4 * strlen(v[i]) + 3;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    char *p = out;
    for (size_t i = 0; v && v[i]; i++) {
        if (i)
            *p++ = ' ';
        if (!needs_quotes(v[i])) {
            p = stpcpy(p, v[i]);
            continue;
        }
        *p++ = '\'';
        for (const char *s = v[i]; *s; s++) {
            if (*s == '\'')
                p = stpcpy(p, "'\\''");
            else
                *p++ = *s;
        }
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}
