/* results_load: a results file (docs/results-format.md) read back for `compare`, checked.
 *
 * results_parse is a pure function from bytes to a struct: no I/O, no exit, no global state, so it
 * can be fuzzed. Whatever the bytes, it either fills the struct or says, in one line, the first
 * thing wrong with them (with its place: "results[2].times[7]: a number >= 0 expected, got a
 * string"). It checks every field `compare` reads and the types of every field the schema
 * requires, and that a result agrees with itself (runs, n, failed, failures, times). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct loaded_result {
    char *mechanism, *family, *workload, *label; /* label: the case */
    bool skipped;
    char *reason;        /* why it was skipped, or NULL */
    size_t runs, failed; /* samples recorded; failed ones */
    double *ok_times;    /* the successful samples, seconds, in the order taken */
    size_t n_ok;
};

struct results_file {
    long version;
    bool complete;
    char *date_utc, *sbxbench_version, *git_commit;
    char *host, *kernel, *cpu_model; /* cpu_model may be NULL (the schema allows null) */
    struct loaded_result *results;
    size_t n_results;
};

/* Parses and checks data[0..len). 0 on success; -1 with a one-line message in err (no file name:
 * the caller adds it). On failure *out holds nothing to free. */
int results_parse(const char *data, size_t len, struct results_file *out, char *err, size_t errlen);

/* Reads path and parses it; an unreadable file is a one-line message like any other problem. */
int results_load(const char *path, struct results_file *out, char *err, size_t errlen);

void results_file_free(struct results_file *f);

/* The result for (mechanism, label), or NULL. */
const struct loaded_result *results_find(const struct results_file *f, const char *mechanism,
                                         const char *label);
