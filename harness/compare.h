/* compare: a new run judged against a baseline (one earlier run, or the last nights of a history),
 * pair by pair. Pure: loaded files in, verdicts out; cmd_compare does the reading and printing.
 *
 * Each (mechanism, case) gets two comparisons: its absolute median against the baseline's, and its
 * overhead over the same file's `process` against the baseline's overhead, which holds across
 * machines. Which of the two gives the verdict is the basis: absolute on the same host and CPU,
 * overhead otherwise (auto), or as asked. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/results_load.h"
#include "harness/stats.h"

#define COMPARE_DEFAULT_THRESHOLD 0.05

enum pair_status {
    PAIR_UNCHANGED,
    PAIR_REGRESSED,
    PAIR_IMPROVED,
    PAIR_ONLY_BASE,
    PAIR_ONLY_NEW,
    PAIR_NO_DATA, /* on both sides, but skipped or all samples failed on one */
    PAIR_STATUSES
};

enum compare_basis { BASIS_AUTO, BASIS_ABSOLUTE, BASIS_OVERHEAD };

struct change {
    bool valid;
    struct stats_shift shift;
    enum stats_verdict verdict;
};

#define PAIR_NOTES 4

struct pair {
    const char *mechanism, *family, *workload, *label; /* borrowed from the loaded files */
    enum pair_status status;
    struct change absolute; /* new median / base median */
    struct change overhead; /* (new / new's process) / (base / base's process) */
    double p;               /* Mann-Whitney, new against the base nights pooled; NAN if none */
    double drift_new, drift_base;      /* last third / first third of the run (latest base night) */
    size_t base_nights, n_base, n_new; /* successful samples: base over all its nights */
    char why[160];                     /* PAIR_NO_DATA: which side, and why */
    char notes[PAIR_NOTES][160];       /* drift, wide intervals: things a reader should know */
    size_t n_notes;
};

struct compare_options {
    double threshold; /* fraction: 0.05 is 5% */
    enum compare_basis basis;
    uint64_t seed;
    size_t resamples;
};

struct comparison {
    struct pair *pairs;
    size_t n_pairs;
    double threshold, level;
    enum compare_basis basis; /* resolved: absolute or overhead */
    size_t counts[PAIR_STATUSES];
    char warnings[8][256]; /* host, kernel or CPU differ; a run was interrupted */
    size_t n_warnings;
};

/* base[0..n_base) are the baseline nights, oldest first; new_ the run judged. -1 when out of
 * memory. */
int compare_runs(const struct results_file *const *base, size_t n_base,
                 const struct results_file *new_, const struct compare_options *opt,
                 struct comparison *out);
void comparison_free(struct comparison *c);

/* "regressed", "improved", "unchanged", "only-in-base", "only-in-new", "no-data". */
const char *pair_status_name(enum pair_status s);
const char *compare_basis_name(enum compare_basis b);
