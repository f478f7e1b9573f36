/* Messages to the user, one line each, prefixed "sbxbench: ". */
#pragma once

#include <stdbool.h>

void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether stderr is a terminal that takes colour; set once at start-up. */
extern bool stderr_color;
