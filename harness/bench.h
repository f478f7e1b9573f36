/* bench: the state of one (mechanism, workload case) pair through a run, and the run as a whole. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "harness/config.h"
#include "harness/sample.h"
#include "harness/stats.h"

struct failure {
    size_t index;  /* which sample */
    char *reason;
};

struct bench {
    const struct runner *runner;
    const struct workload *workload;
    struct workload_case *wcase;
    struct runner_job job;
    bool prepared;

    bool skipped;
    char reason[512]; /* why it was skipped */

    struct sample *samples;
    size_t n_samples, cap_samples;
    struct failure *failures;
    size_t n_failures;
    char digest[80]; /* the first run's output digest; later runs must match it */

    double time_spent; /* seconds of recorded samples, for --min-time */

    /* Filled after the run. */
    struct summary summary;        /* over the successful samples */
    double ratio, ratio_lo, ratio_hi; /* median / the process baseline's median; NAN if none */
    /* The mechanism's cost in this case: median - the baseline's median, and that as a fraction
     * of this median (docs/workloads.md); NAN without a baseline. */
    double overhead_s, overhead_fraction, overhead_fraction_lo, overhead_fraction_hi;
    const struct bench *baseline;
};

struct run {
    struct run_config *cfg;
    struct bench *benches;
    size_t n_benches;
    struct workload_case *cases;
    const struct workload **case_owner; /* the workload each case came from */
    size_t n_cases;
    bool interrupted;
    char started_utc[32];
    double started, finished; /* monotonic seconds */
};

/* Builds the plan: cases from each workload, a bench per case and mechanism; prepares what can run. */
int run_plan(struct run *run, struct run_config *cfg);
/* --cache-dir's default: $XDG_CACHE_HOME/sbxbench, ~/.cache/sbxbench or /tmp/sbxbench-cache-UID. */
const char *default_cache_dir(void);
/* Takes every sample (warm-up first), honouring order, runs or min-time, and interrupts. */
void run_execute(struct run *run);
/* Statistics and baseline ratios. */
int run_summarize(struct run *run);
void run_free(struct run *run);

/* The successful samples' wall times of b, in a new array (caller frees); *n gets the count. */
double *bench_ok_times(const struct bench *b, size_t *n);
