#include "harness/parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runners/action.h"

bool parse_long(const char *s, long min, long max, long *out)
{
    if (!s || !*s)
        return false;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool parse_double(const char *s, double min, double max, double *out)
{
    if (!s || !*s)
        return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || end == s || !isfinite(v) || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool parse_format(const char *s, enum output_format *out)
{
    if (strcmp(s, "table") == 0)
        *out = FORMAT_TABLE;
    else if (strcmp(s, "json") == 0)
        *out = FORMAT_JSON;
    else if (strcmp(s, "markdown") == 0)
        *out = FORMAT_MARKDOWN;
    else
        return false;
    return true;
}

char **parse_list(const char *s)
{
    if (!s || !*s)
        return NULL;
    char **v = strv_new();
    char *copy = strdup(s);
    if (!v || !copy)
        goto fail;
    for (char *item = copy, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        if (!*item || strv_push(&v, item) < 0)
            goto fail;
    }
    free(copy);
    return v;
fail:
    free(copy);
    strv_free(v);
    return NULL;
}
