/* action: what a workload asks a mechanism to run, independent of the mechanism.
 *
 * A workload builds one action per case; a runner wraps it (bwrap's argv around it, a container around
 * it, a namespace set-up before it) without changing what it computes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct action {
    char **argv;      /* argv[0] is an absolute path */
    const char *name; /* the command as a user would type it ("true"), for PATH lookup */
    char **envp;      /* the action's environment; NULL: the harness's own */
    const char *cwd;  /* NULL: inherit */

    /* Host paths the action needs to see, beyond the system directories, and whether it writes them.
     * A sandbox makes exactly these visible; a plain process sees everything anyway. */
    const char **ro_paths;
    size_t n_ro_paths;
    const char **rw_paths;
    size_t n_rw_paths;
};

/* The descriptors one sample runs with; the harness owns them. */
struct stdio_fds {
    int in, out, err;
};

/* NULL-terminated string vectors, the currency of argv and envp. */
char **strv_new(void);
/* Appends a copy of s; returns 0, or -1 when out of memory (the vector is unchanged). */
int strv_push(char ***v, const char *s);
int strv_pushf(char ***v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int strv_extend(char ***v, char *const *more);
size_t strv_len(char *const *v);
char **strv_dup(char *const *v);
void strv_free(char **v);
/* Joins with single spaces, quoting words a shell would split; caller frees. */
char *strv_join_shell(char *const *v);
