#include "harness/stats.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "harness/rng.h"

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 1 || q <= 0)
        return sorted[0];
    if (q >= 1)
        return sorted[n - 1];
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    double frac = pos - (double)i;
    if (i + 1 >= n)
        return sorted[n - 1];
    return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

static void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* Rearranges x so that x[k] is the k-th smallest (Hoare's selection, middle pivot). */
static void select_kth(double *x, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, want = (ptrdiff_t)k;
    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        ptrdiff_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i <= j)
                swap(&x[i++], &x[j--]);
        }
        if (want <= j)
            hi = j;
        else if (want >= i)
            lo = i;
        else
            return;
    }
}

/* Median of x in place (x is reordered). */
static double median_inplace(double *x, size_t n)
{
    size_t mid = n / 2;
    select_kth(x, n, mid);
    if (n % 2)
        return x[mid];
    double below = x[0];
    for (size_t i = 1; i < mid; i++)
        if (x[i] > below)
            below = x[i];
    return (below + x[mid]) / 2;
}

double stats_median(const double *x, size_t n)
{
    double *copy = malloc(n * sizeof *copy);
    if (!copy) {
        /* Out of memory: fall back to sorting nothing and scanning; correctness over speed. */
        return NAN;
    }
    memcpy(copy, x, n * sizeof *copy);
    double m = median_inplace(copy, n);
    free(copy);
    return m;
}

static double resampled_median(const double *x, size_t n, double *scratch, struct rng *r)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = x[rng_below(r, n)];
    return median_inplace(scratch, n);
}

static void percentile_interval(double *replicates, size_t b, double level, double *lo,
                                double *hi)
{
    qsort(replicates, b, sizeof *replicates, cmp_double);
    double tail = (1 - level) / 2;
    *lo = stats_quantile_sorted(replicates, b, tail);
    *hi = stats_quantile_sorted(replicates, b, 1 - tail);
}

int stats_median_ci(const double *x, size_t n, double level, size_t resamples, uint64_t seed,
                    double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (n == 0 || resamples == 0)
        return 0;
    double *scratch = malloc(n * sizeof *scratch);
    double *reps = malloc(resamples * sizeof *reps);
    if (!scratch || !reps) {
        free(scratch);
        free(reps);
        return -1;
    }
    struct rng r;
    rng_seed(&r, seed);
    for (size_t b = 0; b < resamples; b++)
        reps[b] = resampled_median(x, n, scratch, &r);
    percentile_interval(reps, resamples, level, lo, hi);
    free(scratch);
    free(reps);
    return 0;
}

int stats_ratio_ci(const double *num, size_t nn, const double *den, size_t nd, double level,
                   size_t resamples, uint64_t seed, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (nn == 0 || nd == 0 || resamples == 0)
        return 0;
    double *scratch = malloc((nn > nd ? nn : nd) * sizeof *scratch);
    double *reps = malloc(resamples * sizeof *reps);
    if (!scratch || !reps) {
        free(scratch);
        free(reps);
        return -1;
    }
    struct rng r;
    rng_seed(&r, seed);
    for (size_t b = 0; b < resamples; b++) {
        double top = resampled_median(num, nn, scratch, &r);
        double bottom = resampled_median(den, nd, scratch, &r);
        reps[b] = top / bottom;
    }
    percentile_interval(reps, resamples, level, lo, hi);
    free(scratch);
    free(reps);
    return 0;
}

static size_t count_outliers(const double *x, size_t n, double median, double mad)
{
    size_t count = 0;
    double limit = STATS_OUTLIER_SCALED_MADS * 1.4826 * mad;
    for (size_t i = 0; i < n; i++)
        if (fabs(x[i] - median) > limit)
            count++;
    return count;
}

int stats_summarize(const double *x, size_t n, uint64_t seed, struct summary *s)
{
    memset(s, 0, sizeof *s);
    if (n == 0)
        return 0;
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return -1;
    memcpy(sorted, x, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);

    s->n = n;
    s->min = sorted[0];
    s->max = sorted[n - 1];
    s->median = stats_quantile_sorted(sorted, n, 0.5);
    s->p5 = stats_quantile_sorted(sorted, n, 0.05);
    s->p95 = stats_quantile_sorted(sorted, n, 0.95);
    s->p99 = stats_quantile_sorted(sorted, n, 0.99);

    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    s->mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - s->mean) * (x[i] - s->mean);
    s->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
    s->cv = s->mean > 0 ? s->stddev / s->mean : 0;

    /* Absolute deviations, reusing the sorted buffer. */
    for (size_t i = 0; i < n; i++)
        sorted[i] = fabs(x[i] - s->median);
    s->mad = median_inplace(sorted, n);
    free(sorted);
    s->outliers = count_outliers(x, n, s->median, s->mad);

    return stats_median_ci(x, n, STATS_LEVEL, STATS_RESAMPLES, seed, &s->median_lo,
                           &s->median_hi);
}

struct ranked {
    double value;
    int side;
};

static int cmp_ranked(const void *pa, const void *pb)
{
    return cmp_double(&((const struct ranked *)pa)->value, &((const struct ranked *)pb)->value);
}

double stats_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
    if (na == 0 || nb == 0)
        return 1.0;
    size_t n = na + nb;
    struct ranked *all = malloc(n * sizeof *all);
    if (!all)
        return NAN;
    for (size_t i = 0; i < na; i++)
        all[i] = (struct ranked){a[i], 0};
    for (size_t i = 0; i < nb; i++)
        all[na + i] = (struct ranked){b[i], 1};
    qsort(all, n, sizeof *all, cmp_ranked);

    double rank_sum_a = 0, tie_term = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && all[j + 1].value == all[i].value)
            j++;
        double avg_rank = (double)(i + j) / 2 + 1; /* ranks are 1-based */
        double t = (double)(j - i + 1);
        tie_term += t * t * t - t;
        for (size_t k = i; k <= j; k++)
            if (all[k].side == 0)
                rank_sum_a += avg_rank;
        i = j + 1;
    }
    free(all);

    double n1 = (double)na, n2 = (double)nb, nt = (double)n;
    double u = rank_sum_a - n1 * (n1 + 1) / 2;
    double mean_u = n1 * n2 / 2;
    double var_u = n1 * n2 / 12 * ((nt + 1) - tie_term / (nt * (nt - 1)));
    if (var_u <= 0)
        return 1.0;
    double z = (fabs(u - mean_u) - 0.5) / sqrt(var_u);
    if (z < 0)
        z = 0;
    return erfc(z / sqrt(2.0));
}
