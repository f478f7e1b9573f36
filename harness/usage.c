#include "harness/usage.h"

#include <stdarg.h>
#include <stdio.h>

bool stderr_color;

static void vreport(const char *label, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* A message quotes what the user gave (an argument, a file's text), which may hold a line break or
 * a terminal's escape sequence: control bytes are shown as '?', so a message stays one line. */
static void vreport(const char *label, const char *fmt, va_list ap)
{
    char msg[4096];
    vsnprintf(msg, sizeof msg, fmt, ap);
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    fputs("sbxbench: ", stderr);
    if (label)
        fprintf(stderr, stderr_color ? "\033[33m%s\033[0m" : "%s", label);
    fputs(msg, stderr);
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
