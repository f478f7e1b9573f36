#include "harness/progress.h"

#include <stdio.h>

#include "harness/sample.h"

void progress_init(struct progress *p, bool enabled, size_t total)
{
    p->enabled = enabled;
    p->done = 0;
    p->total = total;
    p->started = monotonic_seconds();
    p->last_drawn = 0;
}

void progress_update(struct progress *p, const char *phase, const char *mechanism,
                     const char *workload)
{
    if (!p->enabled)
        return;
    double now = monotonic_seconds();
    if (now - p->last_drawn < 0.1)
        return;
    p->last_drawn = now;
    if (phase)
        fprintf(stderr, "\r\033[K%s: %s × %s  %.1f s", phase, mechanism, workload,
                now - p->started);
    else if (p->total)
        fprintf(stderr, "\r\033[K%zu/%zu  %s × %s  %.1f s", p->done, p->total, mechanism,
                workload, now - p->started);
    else
        fprintf(stderr, "\r\033[K%zu samples  %s × %s  %.1f s", p->done, mechanism, workload,
                now - p->started);
    fflush(stderr);
}

void progress_clear(struct progress *p)
{
    if (p->enabled && p->last_drawn > 0) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}
