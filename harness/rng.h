/* A small, seedable PRNG (xoshiro256**, seeded by splitmix64) so that bootstrap intervals are
 * reproducible: the same samples and seed give the same interval on every machine. */
#pragma once

#include <stdint.h>

struct rng {
    uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n), without modulo bias. */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Uniform in [0, 1). */
double rng_uniform(struct rng *r);
/* Standard normal (Box-Muller), for the tests' synthetic samples. */
double rng_normal(struct rng *r);
