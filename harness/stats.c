#include "harness/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "harness/rng.h"

/* A total order even with NaN (last), which a bootstrap of 0/0 can produce: qsort needs one. */
static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
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

/* The percentile-bootstrap interval of median(num), or of median(num) / median(den) when den is
 * given; each round resamples num, then den. */
static int bootstrap_ci(const double *num, size_t nn, const double *den, size_t nd, double level,
                        size_t resamples, uint64_t seed, double *lo, double *hi)
{
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
        reps[b] = resampled_median(num, nn, scratch, &r);
        if (den)
            reps[b] /= resampled_median(den, nd, scratch, &r);
    }
    percentile_interval(reps, resamples, level, lo, hi);
    free(scratch);
    free(reps);
    return 0;
}

int stats_median_ci(const double *x, size_t n, double level, size_t resamples, uint64_t seed,
                    double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (n == 0 || resamples == 0)
        return 0;
    return bootstrap_ci(x, n, NULL, 0, level, resamples, seed, lo, hi);
}

int stats_ratio_ci(const double *num, size_t nn, const double *den, size_t nd, double level,
                   size_t resamples, uint64_t seed, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (nn == 0 || nd == 0 || resamples == 0)
        return 0;
    return bootstrap_ci(num, nn, den, nd, level, resamples, seed, lo, hi);
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

/* ---- Comparing two runs ----
 *
 * The bootstrap here resamples ranks rather than values: each sample set is sorted once, and a
 * replicate only counts how often each rank was drawn, then walks the counts to the middle. That is
 * linear without a selection per replicate, and identical in result. */

/* One sample set made ready for resampling. */
struct prepared {
    size_t n, block;
    double *sorted;  /* the values, ascending */
    uint32_t *rank;  /* rank[i]: where the i-th sample taken sits in sorted */
};

static const double *rank_sort_values; /* qsort has no context argument; single-threaded use */

static int cmp_index_by_value(const void *pa, const void *pb)
{
    return cmp_double(&rank_sort_values[*(const uint32_t *)pa],
                      &rank_sort_values[*(const uint32_t *)pb]);
}

/* Lag-1 autocorrelation of the ranks in the order taken: robust to the slow outliers of timings. */
static double rank_autocorrelation(const uint32_t *rank, size_t n)
{
    if (n < 3)
        return 0;
    double mean = (double)(n - 1) / 2, num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)rank[i] - mean;
        den += d * d;
        if (i + 1 < n)
            num += d * ((double)rank[i + 1] - mean);
    }
    return den > 0 ? num / den : 0;
}

size_t stats_block_length(size_t n, double autocorrelation)
{
    if (n < 8)
        return 1;
    double block = cbrt((double)n);
    /* Blocks must span several correlation times, (1 + rho) / (1 - rho) for an AR(1) process, or the
     * resamples are more independent than the run was. */
    double rho = autocorrelation > 0.9 ? 0.9 : autocorrelation;
    if (rho > 0) {
        double span = 3 * (1 + rho) / (1 - rho);
        if (span > block)
            block = span;
    }
    if (block > (double)n / 4)
        block = (double)n / 4;
    return block < 1 ? 1 : (size_t)llround(block);
}

static int prepare(struct prepared *p, const double *x, size_t n)
{
    p->n = n;
    p->sorted = malloc(n * sizeof *p->sorted);
    p->rank = malloc(n * sizeof *p->rank);
    uint32_t *order = malloc(n * sizeof *order);
    if (!p->sorted || !p->rank || !order || n > UINT32_MAX) {
        free(order);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    rank_sort_values = x;
    qsort(order, n, sizeof *order, cmp_index_by_value);
    for (size_t r = 0; r < n; r++) {
        p->sorted[r] = x[order[r]];
        p->rank[order[r]] = (uint32_t)r;
    }
    free(order);
    p->block = stats_block_length(n, rank_autocorrelation(p->rank, n));
    return 0;
}

static void prepared_free(struct prepared *p)
{
    free(p->sorted);
    free(p->rank);
}

static double prepared_median(const struct prepared *p)
{
    return stats_quantile_sorted(p->sorted, p->n, 0.5);
}

/* Median of a circular-block resample: blocks of consecutive samples (wrapping at the end of the
 * run) drawn until there are n. counts has n entries. */
static double resampled_median_of(const struct prepared *p, uint32_t *counts, struct rng *r)
{
    size_t n = p->n;
    memset(counts, 0, n * sizeof *counts);
    for (size_t filled = 0; filled < n;) {
        size_t at = rng_below(r, n);
        for (size_t k = 0; k < p->block && filled < n; k++, filled++) {
            counts[p->rank[at]]++;
            if (++at == n)
                at = 0;
        }
    }
    size_t want_lo = (n - 1) / 2, want_hi = n / 2, seen = 0;
    double lo = NAN;
    for (size_t i = 0; i < n; i++) {
        seen += counts[i];
        if (isnan(lo) && seen > want_lo)
            lo = p->sorted[i];
        if (seen > want_hi)
            return (lo + p->sorted[i]) / 2;
    }
    return lo; /* unreachable: the counts add up to n */
}

/* A night ready for resampling: its numerator and, when set, its denominator. */
struct prepared_night {
    struct prepared num, den;
    bool has_den;
};

static double night_value(const struct prepared_night *pn)
{
    double v = prepared_median(&pn->num);
    return pn->has_den ? v / prepared_median(&pn->den) : v;
}

static double night_replicate(const struct prepared_night *pn, uint32_t *counts, struct rng *r)
{
    double v = resampled_median_of(&pn->num, counts, r);
    return pn->has_den ? v / resampled_median_of(&pn->den, counts, r) : v;
}

struct prepared_side {
    struct prepared_night *nights;
    size_t n;
};

static bool side_usable(const struct stats_side *side)
{
    if (side->n_nights == 0 || !side->nights)
        return false;
    for (size_t i = 0; i < side->n_nights; i++) {
        const struct stats_night *nt = &side->nights[i];
        if (nt->n_num == 0 || (nt->den && nt->n_den == 0))
            return false;
    }
    return true;
}

static void side_free(struct prepared_side *ps)
{
    for (size_t i = 0; ps->nights && i < ps->n; i++) {
        prepared_free(&ps->nights[i].num);
        prepared_free(&ps->nights[i].den);
    }
    free(ps->nights);
}

static int side_prepare(struct prepared_side *ps, const struct stats_side *side, size_t *most)
{
    ps->n = side->n_nights;
    ps->nights = calloc(side->n_nights, sizeof *ps->nights);
    if (!ps->nights)
        return -1;
    for (size_t i = 0; i < side->n_nights; i++) {
        const struct stats_night *nt = &side->nights[i];
        struct prepared_night *pn = &ps->nights[i];
        if (prepare(&pn->num, nt->num, nt->n_num) < 0)
            return -1;
        pn->has_den = nt->den != NULL;
        if (pn->has_den && prepare(&pn->den, nt->den, nt->n_den) < 0)
            return -1;
        if (nt->n_num > *most)
            *most = nt->n_num;
        if (pn->has_den && nt->n_den > *most)
            *most = nt->n_den;
    }
    if (side->n_nights > *most)
        *most = side->n_nights;
    return 0;
}

/* The side's location: the median of its nightly values (the value itself for one night), so one
 * odd night among several moves the reference little. */
static double side_location(const struct prepared_side *ps, double *values)
{
    for (size_t i = 0; i < ps->n; i++)
        values[i] = night_value(&ps->nights[i]);
    return median_inplace(values, ps->n);
}

static double side_replicate(const struct prepared_side *ps, double *values, uint32_t *counts,
                             struct rng *r)
{
    if (ps->n == 1)
        return night_replicate(&ps->nights[0], counts, r);
    for (size_t i = 0; i < ps->n; i++)
        values[i] = night_replicate(&ps->nights[rng_below(r, ps->n)], counts, r);
    return median_inplace(values, ps->n);
}

/* The night-to-night SD of the log nightly values, and in *kept how many nights it rests on: the
 * plain SD (seven nights are too few to waste efficiency on a purely robust scale), over the nights
 * within 3.5 robust SDs (1.4826 × MAD) of the median, so that one wild night is left out rather
 * than taken for the noise level. 0 below three nights. */
static double night_spread(const struct prepared_side *ps, double *values, size_t *kept)
{
    size_t n = ps->n;
    *kept = 0;
    if (n < 3)
        return 0;
    double *logs = values, *dev = values + n;
    for (size_t i = 0; i < n; i++)
        logs[i] = log(night_value(&ps->nights[i]));
    memcpy(dev, logs, n * sizeof *dev);
    double centre = median_inplace(dev, n);
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(logs[i] - centre);
    double limit = 3.5 * 1.4826 * median_inplace(dev, n);
    double sum = 0, ss = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(logs[i] - centre) <= limit) {
            sum += logs[i];
            m++;
        }
    if (m < 3)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(logs[i] - centre) <= limit)
            ss += (logs[i] - sum / (double)m) * (logs[i] - sum / (double)m);
    double spread = sqrt(ss / (double)(m - 1));
    if (!isfinite(spread))
        return 0;
    *kept = m;
    return spread;
}

/* A Student t variate with k degrees of freedom: a normal over the root of a chi-square / k. */
static double student_t(struct rng *r, size_t k)
{
    double chi2 = 0;
    for (size_t i = 0; i < k; i++) {
        double z = rng_normal(r);
        chi2 += z * z;
    }
    return chi2 > 0 ? rng_normal(r) / sqrt(chi2 / (double)k) : 0;
}

int stats_compare_sides(const struct stats_side *base, const struct stats_side *new_, double level,
                        size_t resamples, uint64_t seed, struct stats_shift *out)
{
    out->base = out->new_ = out->ratio = out->lo = out->hi = NAN;
    out->night_spread = 0;
    if (!side_usable(base) || !side_usable(new_) || resamples == 0)
        return 0;
    struct prepared_side pb = {0}, pn = {0};
    size_t most = 0;
    double *values = NULL, *reps = NULL;
    uint32_t *counts = NULL;
    int rc = -1;
    if (side_prepare(&pb, base, &most) < 0 || side_prepare(&pn, new_, &most) < 0)
        goto done;
    values = malloc(2 * most * sizeof *values);
    counts = malloc(most * sizeof *counts);
    reps = malloc(resamples * sizeof *reps);
    if (!values || !counts || !reps)
        goto done;

    out->base = side_location(&pb, values);
    out->new_ = side_location(&pn, values);
    out->ratio = out->new_ / out->base;
    size_t kept;
    out->night_spread = night_spread(&pb, values, &kept);

    struct rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < resamples; i++) {
        double top = side_replicate(&pn, values, counts, &r);
        /* The new run is one night: it varies from the reference as much as nights do. The spread
         * is itself estimated from few nights, hence t rather than normal. */
        if (out->night_spread > 0)
            top *= exp(out->night_spread * student_t(&r, kept - 1));
        reps[i] = top / side_replicate(&pb, values, counts, &r);
    }
    percentile_interval(reps, resamples, level, &out->lo, &out->hi);
    rc = 0;
done:
    side_free(&pb);
    side_free(&pn);
    free(values);
    free(counts);
    free(reps);
    return rc;
}

double stats_drift(const double *x, size_t n)
{
    if (n < 6)
        return NAN;
    size_t third = n / 3;
    return stats_median(x + n - third, third) / stats_median(x, third);
}

enum stats_verdict stats_judge(const struct stats_shift *s, double threshold)
{
    if (s->lo > 1 && s->ratio > 1 + threshold)
        return VERDICT_REGRESSED;
    if (s->hi < 1 && s->ratio < 1 - threshold)
        return VERDICT_IMPROVED;
    return VERDICT_UNCHANGED;
}
