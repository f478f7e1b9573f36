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
