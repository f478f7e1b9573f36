#include "workloads/workload.h"

#include <stdlib.h>
#include <string.h>

extern const struct workload workload_render;

/* true, cc and pipe are description files (workloads/NAME.wl), found by workload_resolve; render is
 * C because its output check (the image's SHA-256) and its options are its own. */
const struct workload *const workload_table[] = {
    &workload_render,
    NULL,
};

struct workload_case *workload_case_add(struct workload_case **cases, size_t *n)
{
    struct workload_case *grown = realloc(*cases, (*n + 1) * sizeof **cases);
    if (!grown)
        return NULL;
    *cases = grown;
    memset(&grown[*n], 0, sizeof grown[*n]);
    return &grown[(*n)++];
}

void workload_case_free(const struct workload *w, struct workload_case *c)
{
    if (w && w->cleanup)
        w->cleanup(c);
    free(c->label);
    strv_free(c->action.argv);
    memset(c, 0, sizeof *c);
}
