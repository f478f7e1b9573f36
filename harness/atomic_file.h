/* atomic_file: a file that appears whole or not at all.
 *
 * Opening creates a temp file beside the target, so an unwritable directory is found before an hour
 * of measuring, not after. Committing writes, fsyncs and renames it over the target; aborting removes
 * it. A crash at any point leaves the target as it was. A target that exists and is not a regular file
 * (/dev/null, a FIFO) is written in place instead. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "runners/errbuf.h"

struct atomic_file {
    char *target;
    char *temp;
    int fd;
    bool in_place; /* a device or FIFO, written directly */
};

int atomic_open(struct atomic_file *f, const char *target, struct errbuf *eb);
int atomic_commit(struct atomic_file *f, const char *data, size_t len, struct errbuf *eb);
void atomic_abort(struct atomic_file *f);

/* The temp file's path, for a signal handler that must remove it; "" when none is open. */
const char *atomic_pending_temp(void);
