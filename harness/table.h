/* table: the run's summary for people: an aligned terminal table or a Markdown table. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "harness/bench.h"

void print_table(FILE *out, const struct run *run, bool color);
void print_markdown(FILE *out, const struct run *run);

/* A duration in the unit that suits it: "412.3 µs", "2.174 ms", "1.204 s". */
void format_duration(char *buf, size_t len, double seconds);

/* Columns s takes on a terminal: its characters, not its bytes. */
int display_width(const char *s);
/* s, filled with spaces to w columns, on the left when right-aligned. */
void print_padded(FILE *out, const char *s, int w, bool right);
