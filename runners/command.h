/* Helpers for the runners that wrap the action in another command (sh, bwrap, unshare, docker...). */
#pragma once

#include "runners/runner.h"

/* The job runs program, found in PATH, as program PREFIX... TAIL...; tail is usually the action's argv. */
int command_job(struct runner_job *job, const char *program, char *const prefix[],
                char *const tail[], struct errbuf *eb);

/* Available when the program exists and `program ARGS... true` exits 0; otherwise why says which
 * of the two failed, with the program's own first line of complaint. */
bool command_probe(const char *program, char *const args[], char *why, size_t whylen);

/* The resolved path of true(1), the probes' payload. */
const char *true_path(void);

/* Whether this kernel has time namespaces. */
bool have_time_namespace(void);
