/* wl_lex: the words of one line of a workload description (docs/workloads.md).
 *
 * Shell-like and deliberately small: blanks separate words; '...' is literal; "..." expands ${name}
 * and takes the escapes \" \\ \$; outside quotes a backslash escapes the next character and #
 * starts a comment. ${name} expands to exactly one word's worth of text, never split, never
 * globbed. The operators | < > >> 2> 2>> 2>&1 are tokens of their own. Anything else a shell would
 * treat specially (; & ` ( ) * ?) is an error unless quoted, so that nothing silently means
 * something other than what a shell user expects. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "helpers/pipeline_args.h"

enum wl_token_kind {
    WL_WORD,
    WL_PIPE,
    WL_REDIR, /* redir says which */
};

struct wl_token {
    enum wl_token_kind kind;
    enum pl_redir_kind redir;
    char *text; /* WL_WORD: the word after quotes and expansion */
};

struct wl_tokens {
    struct wl_token *v;
    size_t n;
};

/* The value of ${name}, or NULL when there is no such variable (an error naming it). */
typedef const char *(*wl_lookup_fn)(void *ctx, const char *name);

/* Splits line into tokens. Returns 0, or -1 with why filled ("unterminated '...'") and out empty.
 */
int wl_lex(const char *line, wl_lookup_fn lookup, void *ctx, struct wl_tokens *out, char *why,
           size_t whylen);
void wl_tokens_free(struct wl_tokens *t);
