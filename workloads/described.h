/* described: workloads read from description files, as the harness sees them (struct workload).
 * Internal to workloads/: the harness uses workload.h. */
#pragma once

#include "workloads/wl_desc.h"
#include "workloads/workload.h"

struct described {
    struct workload w; /* w.described points back here */
    char *spec;        /* as the user named it: "pipe", "./my.wl" */
    char *dir;         /* the real directory of the file: ${dir} */
    struct wl_desc desc;
    bool needs_helper;      /* some case is a pipeline or redirects: it runs under sbx-action */
    char unavailable[1024]; /* why it cannot run here; "" when it can */
};

/* The variables every line may use, from the options (numbers are written into bufs). */
struct option_strings {
    char pipe_bytes[24], render_size[24], render_threads[24];
};
void described_vars(const struct described *dw, const struct workload_options *opts,
                    struct option_strings *bufs, struct wl_vars *vars);

/* The directory of sbxbench's own executables (opts->exe_dir, or found from /proc/self/exe). */
const char *described_exe_dir(const struct workload_options *opts);

/* Whether an instance needs sbx-action: a pipeline, or a redirection. */
bool described_needs_helper(const struct wl_instance *inst);

int described_prepare(const struct described *dw, const struct workload_options *opts,
                      struct workload_case **cases, size_t *n, struct errbuf *eb);
void described_cleanup(struct workload_case *c);
