#include "harness/usage.h"

#include <stdarg.h>
#include <stdio.h>

bool stderr_color;

static void vreport(const char *label, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void vreport(const char *label, const char *fmt, va_list ap)
{
    fputs("sbxbench: ", stderr);
    if (label)
        fprintf(stderr, stderr_color ? "\033[33m%s\033[0m" : "%s", label);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(NULL, fmt, ap);
    va_end(ap);
}

void warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("warning: ", fmt, ap);
    va_end(ap);
}
