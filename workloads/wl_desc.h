/* wl_desc: a workload description file (docs/workloads.md), parsed, and instantiated into the
 * concrete commands of each case.
 *
 * Parsing checks what does not depend on the host: the directives, their count, the params' values
 * (which may come from the command line's options). Instantiating expands every variable and checks
 * each case: the words, the pipeline's shape, absolute paths. An error names the file and line. An
 * error that only says this host lacks something (a program not in PATH, a file that does not
 * exist) is marked as such: the workload is then unavailable here rather than malformed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "helpers/pipeline_args.h"
#include "runners/errbuf.h"

#define WL_MAX_PARAMS 4 /* the params a workload_case records */
#define WL_MAX_CASES 1024
#define WL_MAX_FILE_SIZE (1 << 20)

/* The rest of a directive's line, and where it was; lineno 0: the directive is absent. */
struct wl_line {
    unsigned lineno;
    char *text;
};

struct wl_lines {
    struct wl_line *v;
    size_t n;
};

struct wl_param {
    char *name;
    unsigned lineno;
    char **values; /* NULL-terminated */
    size_t n_values;
    bool numeric; /* every value is a whole number */
};

/* Variables: built-ins (dir, exe_dir, tmp), the workload options, and the case's params. */
struct wl_var {
    const char *name, *value;
};

struct wl_vars {
    struct wl_var v[32];
    size_t n;
};

struct wl_desc {
    char *path; /* as given, for messages */
    char *name; /* the file's name without .wl */
    char *summary;
    struct wl_param params[WL_MAX_PARAMS];
    size_t n_params;
    size_t n_cases; /* the product of the params' value counts */
    struct wl_line label, run, cwd, expect_stdout, throughput;
    struct wl_lines ro, rw, env;
    bool uses_tmp; /* some line mentions ${tmp} */
};

/* One case, every variable expanded. */
struct wl_instance {
    char *label;                       /* "" when the case has no label of its own */
    const char *values[WL_MAX_PARAMS]; /* this case's value of each param */
    struct pl_pipeline pipeline;       /* argv and paths point into strings */
    const char *typed_program;         /* the first program as written (for PATH lookup) */
    char **ro, **rw, **env;            /* NULL-terminated; env holds NAME=VALUE */
    char *cwd, *expect_stdout;         /* NULL: none */
    long long volume;                  /* bytes moved per sample (throughput); 0: none */
    char **strings;                    /* owns the words the pipeline points to */
};

/* Adds a variable (both strings must outlive vars). */
void wl_vars_set(struct wl_vars *vars, const char *name, const char *value);
const char *wl_vars_get(const struct wl_vars *vars, const char *name);

/* Parses text, the contents of the file at path. vars holds what a param line may use (the
 * options, dir, exe_dir). Returns 0, or -1 with eb filled ("PATH:LINE: what"). */
int wl_desc_parse(const char *path, const char *text, const struct wl_vars *vars,
                  struct wl_desc *out, struct errbuf *eb);
void wl_desc_free(struct wl_desc *d);

/* Case number index (0 .. d->n_cases) with vars (which must hold tmp if d->uses_tmp). Returns 0, or
 * -1 with eb filled and *host_missing telling whether only this host is to blame. */
int wl_instantiate(const struct wl_desc *d, size_t index, const struct wl_vars *vars,
                   struct wl_instance *out, bool *host_missing, struct errbuf *eb);
void wl_instance_free(struct wl_instance *inst);
