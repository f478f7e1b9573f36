#include "workloads/workload.h"

#include <stdlib.h>
#include <string.h>

extern const struct workload workload_true;
extern const struct workload workload_render;

const struct workload *const workload_table[] = {
    &workload_true,
    &workload_render,
    NULL,
};

const struct workload *workload_find(const char *name)
{
    for (size_t i = 0; workload_table[i]; i++)
        if (strcmp(workload_table[i]->name, name) == 0)
            return workload_table[i];
    return NULL;
}

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
