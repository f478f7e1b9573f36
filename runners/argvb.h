/* argvb: builds a string vector with one error check at the end instead of one per push. */
#pragma once

#include <stdbool.h>

#include "runners/action.h"

struct argvb {
    char **v;
    bool failed; /* out of memory at some push: v is incomplete */
};

void argvb_add(struct argvb *b, const char *s);
void argvb_addf(struct argvb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void argvb_extend(struct argvb *b, char *const *more);
/* The finished vector (the caller owns it), or NULL if any push failed (everything is freed). */
char **argvb_finish(struct argvb *b);
