/* action: what a workload asks a mechanism to run, independent of the mechanism.
 *
 * A workload builds one action per case; a runner wraps it (bwrap's argv around it, a container around
 * it, a namespace set-up before it) without changing what it computes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* How a sandbox makes an action's input files visible (docs/scaling.md). Not every mechanism has
 * every method: runner->stagings says which it has. */
enum staging {
    STAGING_ROOT,      /* one bind of the inputs' root: the whole tree visible (every mechanism) */
    STAGING_PER_FILE,  /* each input on its own, nothing else of the tree; the fastest way */
    STAGING_BIND_EACH, /* a bind mount(2) per input, made at each spawn */
    STAGING_OPEN_TREE, /* per input at each spawn: open_tree(OPEN_TREE_CLONE), then move_mount */
    STAGING_SYMLINKS,  /* a symlink per input in a tmpfs, into one bind of the whole tree */
    STAGING_OVERLAY,   /* an overlayfs over a lower directory holding the inputs only, made once */
    N_STAGINGS
};

#define STAGING_BIT(s) (1u << (s))

const char *staging_name(enum staging s);
/* The method a name stands for, or -1. */
int staging_from_name(const char *name);
/* Every method's name, comma-separated, for messages. */
const char *staging_names(void);
/* Whether the method shows the inputs and nothing else of their tree. */
bool staging_isolates(enum staging s);

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

    /* Input files the action reads, for a mechanism to stage one by one: paths relative to
     * inputs_root, each read at inputs_root/PATH inside the sandbox too. With STAGING_ROOT the root
     * is also among ro_paths, so that a mechanism that knows nothing of staging shows it whole. */
    const char *inputs_root; /* NULL: the action declares no inputs */
    char *const *inputs;
    size_t n_inputs;
    enum staging staging;
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
