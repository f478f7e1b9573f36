/* The table of mechanisms. Order is the order of reports: cheapest isolation first. */
#include "runners/runner.h"

#include <string.h>

extern const struct runner runner_process;
extern const struct runner runner_process_path;
extern const struct runner runner_sh;
extern const struct runner runner_bwrap;
extern const struct runner runner_bwrap_unshare;
extern const struct runner runner_unshare;
extern const struct runner runner_inproc_ns;
extern const struct runner runner_inproc_fs;
extern const struct runner runner_inproc;
extern const struct runner runner_firejail;
extern const struct runner runner_nspawn;
extern const struct runner runner_runc;
extern const struct runner runner_crun;
extern const struct runner runner_podman;
extern const struct runner runner_docker;

const struct runner *const runner_table[] = {
    &runner_process,
    &runner_process_path,
    &runner_sh,
    &runner_bwrap,
    &runner_bwrap_unshare,
    &runner_unshare,
    &runner_inproc_ns,
    &runner_inproc_fs,
    &runner_inproc,
    &runner_firejail,
    &runner_nspawn,
    &runner_runc,
    &runner_crun,
    &runner_podman,
    &runner_docker,
    NULL,
};

size_t runner_count(void)
{
    size_t n = 0;
    while (runner_table[n])
        n++;
    return n;
}

const struct runner *runner_find(const char *name)
{
    for (size_t i = 0; runner_table[i]; i++)
        if (strcmp(runner_table[i]->name, name) == 0)
            return runner_table[i];
    return NULL;
}
