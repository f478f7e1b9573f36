/* compare_output: a comparison for people (a terminal table, Markdown for a CI comment) and for
 * programs (JSON: scripts/report.py reads it). */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "harness/compare.h"

/* What was compared with what, for the headings. */
struct compare_sources {
    const char *base_path;         /* the file or directory given */
    const char *const *base_files; /* the files used, oldest first */
    const struct results_file *const *base;
    size_t n_base;
    const char *new_path;
    const struct results_file *new_;
};

void print_compare_table(FILE *out, const struct comparison *c, const struct compare_sources *src,
                         bool color);
void print_compare_markdown(FILE *out, const struct comparison *c,
                            const struct compare_sources *src);
/* The whole comparison as a JSON document ("schema": "sbxbench-compare"); NULL when out of
 * memory. */
json_t *compare_json(const struct comparison *c, const struct compare_sources *src);
