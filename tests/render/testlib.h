/* Helpers for sbx-render's tests: random programs, a reference simulator of allocated code, and
 * value comparison. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "workloads/render/mcode.h"
#include "workloads/render/vm.h"

/* xorshift64*: deterministic, so a failing seed can be replayed. */
uint64_t rng_next(uint64_t *state);
/* Uniform in [0, n). */
uint32_t rng_below(uint64_t *state, uint32_t n);

/* A random valid program of n instructions (n >= 3) using every op, as VM text; caller frees.
 * Constants include zeros of both signs, tiny, huge and denormal values, so NaNs and infinities
 * occur too. */
char *random_program(uint64_t *state, uint32_t n);

/* Parses text that must be valid (the test fails otherwise). */
void parse_ok(const char *text, struct vm_prog *out);

/* The value of allocated code at (x, y), each mop computed the way the VM defines it. */
float simulate_mcode(const struct mcode *m, float x, float y);

/* Equal bits, or both NaN (which NaN an operation returns is the hardware's choice). */
bool same_value(float a, float b);

/* An interesting coordinate: mostly in [-1, 1], sometimes 0, -0 or large. */
float random_coord(uint64_t *state);

/* The text of a file under ../shared/data (relative to the source tree), or NULL when absent
 * (saying so: the caller then skips). *len receives its size. */
char *read_shared(const char *name, size_t *len);
/* read_shared for a test that needs the file: when it is absent, the test is skipped from here. */
char *read_shared_or_skip(const char *name, size_t *len);
