/* Statistics against values computed independently with numpy 1.24 and scipy 1.10
 * (np.quantile's default linear method, scipy.stats.mannwhitneyu asymptotic with continuity). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "harness/rng.h"
#include "harness/stats.h"

static const double sample[] = {0.51, 0.49, 0.50, 0.62, 0.48, 0.55, 0.47, 0.53, 1.90, 0.52};
#define N_SAMPLE (sizeof sample / sizeof sample[0])

static void test_summary_matches_numpy(void **state)
{
    (void)state;
    struct summary s;
    assert_int_equal(stats_summarize(sample, N_SAMPLE, 1, &s), 0);
    assert_int_equal(s.n, 10);
    assert_float_equal(s.median, 0.515, 1e-12);
    assert_float_equal(s.mean, 0.657, 1e-12);
    assert_float_equal(s.stddev, 0.43883811239327064, 1e-12);
    assert_float_equal(s.p5, 0.4745, 1e-12);
    assert_float_equal(s.p95, 1.3239999999999985, 1e-12);
    assert_float_equal(s.p99, 1.7848000000000002, 1e-12);
    assert_float_equal(s.min, 0.47, 0);
    assert_float_equal(s.max, 1.90, 0);
    assert_float_equal(s.mad, 0.03, 1e-12);
    assert_int_equal(s.outliers, 1); /* 1.90 is 46 scaled MADs out; 0.62 is 2.4 */
    assert_float_equal(s.cv, 0.43883811239327064 / 0.657, 1e-12);
}

static void test_median_odd_even_and_single(void **state)
{
    (void)state;
    const double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2}, one[] = {7};
    assert_float_equal(stats_median(odd, 3), 2, 0);
    assert_float_equal(stats_median(even, 4), 2.5, 0);
    assert_float_equal(stats_median(one, 1), 7, 0);
    /* Many ties, the case where a careless selection loops or picks the wrong side. */
    double ties[101];
    for (int i = 0; i < 101; i++)
        ties[i] = i < 60 ? 1.0 : 2.0;
    assert_float_equal(stats_median(ties, 101), 1.0, 0);
}

static void test_quantile_edges(void **state)
{
    (void)state;
    const double sorted[] = {1, 2, 3, 4};
    assert_float_equal(stats_quantile_sorted(sorted, 4, 0), 1, 0);
    assert_float_equal(stats_quantile_sorted(sorted, 4, 1), 4, 0);
    assert_float_equal(stats_quantile_sorted(sorted, 4, 0.5), 2.5, 0);
    assert_float_equal(stats_quantile_sorted(sorted, 4, 1.0 / 3), 2, 1e-12);
}

static void test_empty_summary_is_zero(void **state)
{
    (void)state;
    struct summary s;
    assert_int_equal(stats_summarize(NULL, 0, 1, &s), 0);
    assert_int_equal(s.n, 0);
    assert_float_equal(s.median, 0, 0);
}

static void test_bootstrap_is_reproducible_and_covers_median(void **state)
{
    (void)state;
    double lo1, hi1, lo2, hi2;
    assert_int_equal(stats_median_ci(sample, N_SAMPLE, 0.95, 2000, 42, &lo1, &hi1), 0);
    assert_int_equal(stats_median_ci(sample, N_SAMPLE, 0.95, 2000, 42, &lo2, &hi2), 0);
    assert_float_equal(lo1, lo2, 0);
    assert_float_equal(hi1, hi2, 0);
    assert_true(lo1 <= 0.515 && 0.515 <= hi1);
    assert_true(lo1 >= 0.47 && hi1 <= 1.90);
}

static double *normal_samples(struct rng *r, size_t n, double mean, double sd)
{
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = mean + sd * rng_normal(r);
    return x;
}

static void test_bootstrap_narrows_with_more_samples(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 7);
    double *small = normal_samples(&r, 20, 1.0, 0.1), *large = normal_samples(&r, 2000, 1.0, 0.1);
    double slo, shi, llo, lhi;
    stats_median_ci(small, 20, 0.95, 2000, 1, &slo, &shi);
    stats_median_ci(large, 2000, 0.95, 2000, 1, &llo, &lhi);
    assert_true(lhi - llo < (shi - slo) / 3);
    assert_true(llo < 1.0 && 1.0 < lhi);
    free(small);
    free(large);
}

static void test_ratio_interval(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 11);
    double *base = normal_samples(&r, 400, 1.0, 0.05), *same = normal_samples(&r, 400, 1.0, 0.05);
    double *slower = normal_samples(&r, 400, 2.0, 0.1);
    double lo, hi;
    stats_ratio_ci(same, 400, base, 400, 0.95, 2000, 3, &lo, &hi);
    assert_true(lo < 1.0 && 1.0 < hi);
    stats_ratio_ci(slower, 400, base, 400, 0.95, 2000, 3, &lo, &hi);
    assert_true(lo > 1.9 && hi < 2.1);
    free(base);
    free(same);
    free(slower);
}

static void test_mann_whitney_matches_scipy(void **state)
{
    (void)state;
    const double b[] = {0.60, 0.58, 0.61, 0.66, 0.59, 0.57, 0.63, 0.62, 0.64, 0.60, 0.65};
    assert_float_equal(stats_mann_whitney_p(sample, N_SAMPLE, b, 11), 0.009129801344081423, 1e-9);
    const double c[] = {1, 2, 2, 3, 3, 3, 4}, d[] = {2, 3, 3, 4, 5, 5};
    assert_float_equal(stats_mann_whitney_p(c, 7, d, 6), 0.13820766697402573, 1e-9);
    assert_float_equal(stats_mann_whitney_p(c, 7, NULL, 0), 1.0, 0);
}

static void test_rng_below_is_in_range_and_uniformish(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 5);
    int counts[10] = {0};
    for (int i = 0; i < 100000; i++) {
        uint64_t v = rng_below(&r, 10);
        assert_true(v < 10);
        counts[v]++;
    }
    for (int i = 0; i < 10; i++)
        assert_true(counts[i] > 9500 && counts[i] < 10500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_matches_numpy),
        cmocka_unit_test(test_median_odd_even_and_single),
        cmocka_unit_test(test_quantile_edges),
        cmocka_unit_test(test_empty_summary_is_zero),
        cmocka_unit_test(test_bootstrap_is_reproducible_and_covers_median),
        cmocka_unit_test(test_bootstrap_narrows_with_more_samples),
        cmocka_unit_test(test_ratio_interval),
        cmocka_unit_test(test_mann_whitney_matches_scipy),
        cmocka_unit_test(test_rng_below_is_in_range_and_uniformish),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
