/* true: the resolved path of true(1). Pure launch cost: the action does nothing. */
#include "workloads/workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runners/runner.h"

static bool true_available(const struct workload_options *opts, char *why, size_t whylen)
{
    (void)opts;
    char *path = find_program("true");
    if (!path)
        snprintf(why, whylen, "true(1) not found in PATH");
    free(path);
    return path != NULL;
}

static int true_prepare(const struct workload_options *opts, struct workload_case **cases,
                        size_t *n, struct errbuf *eb)
{
    (void)opts;
    char *path = find_program("true");
    if (!path)
        return err_msg(eb, "workload true: true(1) not found in PATH");
    struct workload_case *c = workload_case_add(cases, n);
    if (!c || !(c->label = strdup("true")) || !(c->action.argv = strv_new()) ||
        strv_push(&c->action.argv, path) < 0) {
        free(path);
        return err_sys(eb, "prepare", "true", ENOMEM);
    }
    free(path);
    c->action.name = "true";
    return 0;
}

const struct workload workload_true = {
    .name = "true",
    .summary = "true(1): launch cost only",
    .available = true_available,
    .prepare = true_prepare,
};
