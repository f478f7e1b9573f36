/* Strict parsing of numbers and lists from the command line: the whole string or an error. */
#pragma once

#include <stdbool.h>

/* --format of run, compare and reproduce. */
enum output_format { FORMAT_TABLE, FORMAT_JSON, FORMAT_MARKDOWN };

bool parse_long(const char *s, long min, long max, long *out);
bool parse_double(const char *s, double min, double max, double *out);
/* Splits a comma-separated list into a NULL-terminated vector; empty items are an error (NULL). */
char **parse_list(const char *s);
/* "table", "json" or "markdown"; false for anything else (*out is then left alone). */
bool parse_format(const char *s, enum output_format *out);
