/* errbuf: one error message, formatted once where the failure happens and printed once at the top.
 *
 * Messages follow "<what>: <object>: <strerror>" so that the CLI only has to prefix "sbxbench: ". */
#pragma once

#include <stddef.h>

struct errbuf {
    char msg[1024];
};

/* "what: object: strerror(errnum)"; object or errnum 0 may be omitted. Always returns -1. */
int err_sys(struct errbuf *eb, const char *what, const char *object, int errnum);

/* A free-form message, printf style. Always returns -1. */
int err_msg(struct errbuf *eb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
