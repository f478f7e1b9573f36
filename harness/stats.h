/* stats: the statistics of one set of samples, and of two sets against each other.
 *
 * Shared by `run` (each mechanism against the process baseline) and `compare` (a night against its
 * baseline). Everything is distribution-free: timings are skewed and heavy-tailed, so medians,
 * bootstrap intervals and rank tests rather than means and t-tests. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define STATS_RESAMPLES 2000
#define STATS_LEVEL 0.95
/* hyperfine's rule: an outlier lies more than 10 scaled MADs (1.4826 * MAD) from the median. */
#define STATS_OUTLIER_SCALED_MADS 10.0
/* Above this coefficient of variation the median is still usable but the run was noisy. */
#define STATS_HIGH_CV 0.15

struct summary {
    size_t n;
    double mean, stddev, median, min, max;
    double p5, p95, p99;
    double mad; /* median absolute deviation, unscaled */
    size_t outliers;
    double cv;                   /* stddev / mean */
    double median_lo, median_hi; /* 95% bootstrap confidence interval of the median */
};

/* Quantile q in [0,1] of sorted data by linear interpolation between order statistics
 * (Hyndman-Fan type 7, numpy's and R's default). n must be > 0. */
double stats_quantile_sorted(const double *sorted, size_t n, double q);

/* Median of x (not modified). n must be > 0. */
double stats_median(const double *x, size_t n);

/* Every field of s from x[0..n); n == 0 gives a zeroed summary. Returns -1 when out of memory. */
int stats_summarize(const double *x, size_t n, uint64_t seed, struct summary *s);

/* Percentile-bootstrap interval of the median at the given level. */
int stats_median_ci(const double *x, size_t n, double level, size_t resamples, uint64_t seed,
                    double *lo, double *hi);

/* Percentile-bootstrap interval of median(num) / median(den), resampling both sides. */
int stats_ratio_ci(const double *num, size_t nn, const double *den, size_t nd, double level,
                   size_t resamples, uint64_t seed, double *lo, double *hi);

/* Two-sided p-value of the Mann-Whitney U test (normal approximation with tie correction and
 * continuity correction; exact enough for the tens-to-thousands of samples a run records).
 * Returns 1.0 when either side is empty. */
double stats_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);

/* ---- Comparing two runs (`sbxbench compare`) ---- */

/* One night's measurement of a (mechanism, case): the median of num, or, when den is given, the
 * median of num over the median of den (a mechanism's overhead over the same night's process).
 * Samples are in the order they were taken: the resampling keeps neighbours together. */
struct stats_night {
    const double *num;
    size_t n_num;
    const double *den; /* NULL: no denominator */
    size_t n_den;
};

/* One side of a comparison: a single run, or the last nights of a history. */
struct stats_side {
    const struct stats_night *nights;
    size_t n_nights;
};

struct stats_shift {
    double base, new_;    /* each side's location: the median of its nightly values */
    double ratio, lo, hi; /* new_ / base and its interval */
    double night_spread;  /* SD of the base's log nightly values, wild nights left out; 0 below 3 */
};

/* How many consecutive samples are resampled together: the cube root of n (Hall, Horowitz and
 * Jing's order for variance estimation), or three correlation times when the samples' lag-1
 * autocorrelation says they are longer, at most n / 4; 1 for tiny runs. Drift and bursts of noise
 * within a run then widen the interval instead of passing for signal. */
size_t stats_block_length(size_t n, double autocorrelation);

/* The ratio of the two sides' locations with a percentile interval from a two-level circular-block
 * bootstrap: nights are resampled, then blocks of samples within each night. With three or more
 * base nights the new run is also given the base's night-to-night spread, since it is a single
 * night: the interval then answers "is this night unlike the others?". Every night must have
 * n_num > 0 (and n_den > 0 when den is set). Returns -1 when out of memory, 0 otherwise; the
 * fields are NAN when a side is empty. */
int stats_compare_sides(const struct stats_side *base, const struct stats_side *new_, double level,
                        size_t resamples, uint64_t seed, struct stats_shift *out);

/* Drift within a run: the median of its last third over the median of its first third, samples in
 * the order taken. NAN below 6 samples. */
double stats_drift(const double *x, size_t n);

enum stats_verdict { VERDICT_UNCHANGED, VERDICT_REGRESSED, VERDICT_IMPROVED };

/* The rule `compare` applies: a regression is a change both significant (the interval lies above
 * 1) and material (the estimate exceeds 1 + threshold); an improvement mirrors it below 1 and
 * 1 - threshold. A CI wholly beyond the threshold would also be defensible but misses most real
 * 10% regressions on noisy runs (docs/ci.md has the figures). */
enum stats_verdict stats_judge(const struct stats_shift *s, double threshold);
