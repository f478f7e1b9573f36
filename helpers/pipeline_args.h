/* pipeline_args: a pipeline of commands with redirections, written as one argv for sbx-action.
 *
 * A mechanism runs one program; a workload that is a pipeline, or that redirects a file, becomes
 * `sbx-action STAGE ['|' STAGE]...`, where each STAGE is `N ARG1 ... ARGN [OP [FILE]]...`: the
 * count makes any argument safe (an argument may itself be "|" or ">"), and the operators read as
 * they do in a shell: < > >> 2> 2>> and 2>&1 (which takes no file). The harness encodes; sbx-action
 * decodes. Depends on nothing but libc, so that sbx-action stays small. */
#pragma once

#include <stddef.h>

enum pl_redir_kind {
    PL_IN,         /* < FILE */
    PL_OUT,        /* > FILE */
    PL_APPEND,     /* >> FILE */
    PL_ERR,        /* 2> FILE */
    PL_ERR_APPEND, /* 2>> FILE */
    PL_ERR_TO_OUT, /* 2>&1 */
};

struct pl_redir {
    enum pl_redir_kind kind;
    const char *path; /* NULL for PL_ERR_TO_OUT */
};

struct pl_stage {
    char **argv; /* NULL-terminated */
    size_t argc;
    struct pl_redir *redirs; /* applied in order, after the pipe's ends */
    size_t n_redirs;
};

struct pl_pipeline {
    struct pl_stage *stages;
    size_t n_stages;
};

/* The operator's spelling ("2>>"), and the kind an argument spells, or -1 if it is no operator. */
const char *pl_redir_op(enum pl_redir_kind kind);
int pl_redir_kind_of(const char *word);
/* Which descriptor the redirection replaces (0, 1 or 2). */
int pl_redir_target_fd(enum pl_redir_kind kind);

/* Decodes args[0..n). The stages' argv and paths point into args. Returns 0, or -1 with why filled
 * (and nothing to free). */
int pl_decode(size_t n, char **args, struct pl_pipeline *out, char *why, size_t whylen);
void pl_free(struct pl_pipeline *p);

/* How many words the pipeline encodes to (without a terminating NULL). */
size_t pl_encoded_len(const struct pl_pipeline *p);
/* Writes those words into out[0..pl_encoded_len(p)). Counts are written into numbers, a buffer of
 * p->n_stages * 24 bytes; the words point into numbers and into p. */
void pl_encode(const struct pl_pipeline *p, const char **out, char *numbers);
