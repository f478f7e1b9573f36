/* Strict parsing of numbers and lists from the command line: the whole string or an error. */
#pragma once

#include <stdbool.h>

bool parse_long(const char *s, long min, long max, long *out);
bool parse_double(const char *s, double min, double max, double *out);
/* Splits a comma-separated list into a NULL-terminated vector; empty items are an error (NULL). */
char **parse_list(const char *s);
