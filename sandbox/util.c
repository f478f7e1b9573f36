/* Errors, string vectors and the clock, shared by the rest of libsbx. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sandbox/internal.h"

int sbx_err(struct sbx_error *e, const char *step, const char *object, int errnum)
{
    if (!e)
        return -1;
    int n = snprintf(e->msg, sizeof e->msg, "sandbox: %s", step);
    if (object && n >= 0 && (size_t)n < sizeof e->msg)
        n += snprintf(e->msg + n, sizeof e->msg - (size_t)n, ": %s", object);
    if (errnum && n >= 0 && (size_t)n < sizeof e->msg)
        snprintf(e->msg + n, sizeof e->msg - (size_t)n, ": %s", strerror(errnum));
    return -1;
}

int sbx_errf(struct sbx_error *e, const char *fmt, ...)
{
    if (!e)
        return -1;
    int n = snprintf(e->msg, sizeof e->msg, "sandbox: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg + n, sizeof e->msg - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

void sbx_explain_clone(struct sbx_error *e, const char *step, int err)
{
    const char *hint = NULL;
    if (err == ENOSPC || err == EUSERS)
        hint = "user namespaces are unavailable or used up (sysctl user.max_user_namespaces)";
    else if (err == EPERM)
        hint =
            "creating user namespaces is not permitted here (a sysctl, AppArmor or a container's "
            "seccomp profile forbids it)";
    else if (err == EINVAL)
        hint = "this kernel lacks one of the namespaces";
    sbx_err(e, step, "new namespaces", err);
    if (hint) {
        size_t n = strlen(e->msg);
        snprintf(e->msg + n, sizeof e->msg - n, "; %s", hint);
    }
}

size_t vec_len(char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

int vec_push(char ***v, const char *s)
{
    char *copy = strdup(s);
    size_t n = vec_len(*v);
    char **grown = copy ? realloc(*v, (n + 2) * sizeof *grown) : NULL;
    if (!grown) {
        free(copy);
        return -1;
    }
    grown[n] = copy;
    grown[n + 1] = NULL;
    *v = grown;
    return 0;
}

void vec_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

char **vec_dup(char *const *v)
{
    char **copy = calloc(1, sizeof *copy);
    for (size_t i = 0; copy && v && v[i]; i++) {
        if (vec_push(&copy, v[i]) < 0) {
            vec_free(copy);
            return NULL;
        }
    }
    return copy;
}

double sbx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
