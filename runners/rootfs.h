/* rootfs: the root file system sbxbench's containers start from, built here, never pulled.
 *
 * It holds only mount points, a two-line /etc/passwd and /etc/group, and the host's top-level
 * symlinks (/bin -> usr/bin on a merged-/usr host). The host's system directories are bound
 * read-only over it (runners/binds.h), so the container sees the host's programs and libraries at
 * their usual paths and any workload binary runs unchanged, static or dynamic. */
#pragma once

#include "runners/errbuf.h"

/* The environment's PATH in a container when the action sets none. */
#define ROOTFS_DEFAULT_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* The top-level directories that hold programs and libraries, where the host has them. */
extern const char *const rootfs_system_dirs[];

/* Fills the existing empty directory dir with the layout above. */
int rootfs_populate(const char *dir, struct errbuf *eb);

/* The layout as a tarball for `docker import`/`podman import`: CACHE/containers/VERSION/rootfs.tar,
 * built once (in a temporary directory, then renamed into place) and reused. *path is malloc'd. */
int rootfs_tarball(const char *cache_dir, char **path, struct errbuf *eb);

/* The name images are imported under: localhost/sbxbench-rootfs:VERSION. */
const char *rootfs_image_tag(void);

/* CACHE/containers/VERSION, created if missing; malloc'd. */
char *rootfs_cache_subdir(const char *cache_dir, struct errbuf *eb);
