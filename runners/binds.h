/* binds: the host paths a container needs for one action, as bind mounts.
 *
 * The host's system directories (those of rootfs_system_dirs that are real directories, not
 * symlinks), /etc/ld.so.cache and /etc/alternatives read-only, so dynamic programs find their
 * libraries; the action's program when it lives elsewhere; its ro_paths read-only and its rw_paths
 * read-write. Nothing else of the host: not /etc, not /home, not the caller's working directory. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "runners/action.h"
#include "runners/errbuf.h"

struct bind {
    char *source; /* host path */
    char *target; /* path inside the container */
    bool writable;
};

struct bind_list {
    struct bind *v;
    size_t n;
};

/* Fills out in mount order: parents before the paths inside them, so a writable output directory
 * inside a read-only tree is mounted after that tree. Every source must exist and be absolute;
 * otherwise -1 with eb naming the path. */
int binds_for_action(const struct action *a, struct bind_list *out, struct errbuf *eb);

void binds_free(struct bind_list *l);

/* Read-only files of /etc outside the system directories that programs expect, NULL-terminated:
 * bound wherever a sandbox gives the command an /etc of its own. */
extern const char *const binds_etc_extras[];
