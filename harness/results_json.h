/* results_json: a run as JSON, a superset of hyperfine's --export-json (docs/results-format.md). */
#pragma once

#include <jansson.h>

#include "harness/bench.h"

#define RESULTS_SCHEMA "sbxbench-results"
#define RESULTS_SCHEMA_VERSION 1

/* The whole document; NULL when out of memory. */
json_t *results_json(const struct run *run);

/* A finite number, or null: JSON has no NaN. */
json_t *json_number_or_null(double v);

/* Serialises with sbxbench's settings (two-space indent, ten significant digits). Caller frees. */
char *results_dump(const json_t *doc);
