#include "runners/errbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_sys(struct errbuf *eb, const char *what, const char *object, int errnum)
{
    if (!eb)
        return -1;
    int n = snprintf(eb->msg, sizeof eb->msg, "%s", what);
    if (object && n >= 0 && (size_t)n < sizeof eb->msg)
        n += snprintf(eb->msg + n, sizeof eb->msg - (size_t)n, ": %s", object);
    if (errnum && n >= 0 && (size_t)n < sizeof eb->msg)
        snprintf(eb->msg + n, sizeof eb->msg - (size_t)n, ": %s", strerror(errnum));
    return -1;
}

int err_msg(struct errbuf *eb, const char *fmt, ...)
{
    if (!eb)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(eb->msg, sizeof eb->msg, fmt, ap);
    va_end(ap);
    return -1;
}
