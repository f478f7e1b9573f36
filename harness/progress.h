/* progress: one line on stderr, redrawn at most ten times a second, only on a terminal. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct progress {
    bool enabled;
    size_t done, total; /* total 0: unknown (--min-time) */
    double started, last_drawn;
};

void progress_init(struct progress *p, bool enabled, size_t total);
/* phase NULL: measuring. */
void progress_update(struct progress *p, const char *phase, const char *mechanism,
                     const char *workload);
void progress_clear(struct progress *p);
