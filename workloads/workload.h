/* workload: what runs inside each mechanism. A workload expands into cases (one per buffer size, input
 * count, ...); each case is one action plus an optional check of each sample's output. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "runners/action.h"
#include "runners/errbuf.h"

/* Workload settings from the command line. */
struct workload_options {
    int render_size;          /* render: image side in pixels */
    const char *render_vm;    /* render: VM program; NULL: the built-in scene */
    int render_threads;       /* render: 0 = the renderer's default */
    const char *pipe_sizes;   /* pipe: buffer sizes, "4,16,...,65536" */
    long long pipe_bytes;     /* pipe: volume moved per sample */
    const char *inputs;       /* inputs: counts, "1,10,100" */
    const char *cache_dir;    /* generated inputs, compiled objects */
    const char *exe_dir;      /* where sbxbench's own binaries are (sbx-render, helpers) */
};

/* A named value describing a case, recorded in the results ("size": 1024, "buffer": 4096). */
struct param {
    const char *key;
    long long num;
    const char *str; /* NULL: the value is num */
};

struct workload_case {
    char *label; /* unique among all cases: "true", "pipe/4096" */
    struct action action;
    struct param params[4];
    size_t n_params;
    /* Whether the sample's stdout is kept (in a temp file the harness rewinds) for check. */
    bool capture_stdout;
    /* Verifies one sample's output; digest (hex) lets the harness see that every run did identical
     * work. Returns 0 when the output is right, -1 with why filled otherwise. NULL: nothing to check. */
    int (*check)(const struct workload_case *c, int stdout_fd, char *digest, size_t digestlen,
                 char *why, size_t whylen);
    void *priv;
    /* Bytes one sample moves (a pipe's volume); > 0: the results report throughput. */
    long long volume_bytes;
};

struct described;

struct workload {
    const char *name;
    const char *summary;
    bool (*available)(const struct workload_options *opts, char *why, size_t whylen);
    /* Appends this workload's cases to *cases; -1 with eb filled on failure. */
    int (*prepare)(const struct workload_options *opts, struct workload_case **cases, size_t *n,
                   struct errbuf *eb);
    /* Optional: frees what prepare put in c->priv. */
    void (*cleanup)(struct workload_case *c);
    /* Set for a workload read from a description file (available and prepare are then NULL:
     * call workload_available and workload_prepare, which work for both kinds). */
    const struct described *described;
};

/* The workloads written in C. Most are description files instead (workloads/NAME.wl). */
extern const struct workload *const workload_table[];
/* A workload in the C table, or one workload_resolve loaded (by the name it was resolved with). */
const struct workload *workload_find(const char *name);

/* Resolves a --workload item: a workload in the C table, a description in the workloads directory
 * ("pipe" is pipe.wl there), or a description file (a path with a '/' or ending in ".wl").
 * Descriptions are read and checked now, every case expanded with opts: a malformed one gives NULL
 * with eb naming the file and line. One that is well formed but cannot run on this host (a program
 * missing) loads, and workload_available says why. */
const struct workload *workload_resolve(const char *spec, const struct workload_options *opts,
                                        struct errbuf *eb);
/* Every built-in workload's name: the C table, then the workloads directory's descriptions. */
char **workload_builtin_names(void);
/* The directories searched for descriptions, in order (for messages and `list`); caller frees. */
char **workload_search_dirs(void);
/* Frees every description workload_resolve loaded. */
void workloads_unload(void);

/* w->available and w->prepare, for workloads in C and descriptions alike. */
bool workload_available(const struct workload *w, const struct workload_options *opts, char *why,
                        size_t whylen);
int workload_prepare(const struct workload *w, const struct workload_options *opts,
                     struct workload_case **cases, size_t *n, struct errbuf *eb);

/* Grows *cases by one zeroed case and returns it, or NULL when out of memory. */
struct workload_case *workload_case_add(struct workload_case **cases, size_t *n);
/* Frees the case's label, argv, path lists and, via w->cleanup, its private state. */
void workload_case_free(const struct workload *w, struct workload_case *c);
