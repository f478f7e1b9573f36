/* oci_bundle: an OCI bundle (config.json and a root file system) for one action, the input of
 * `runc run` and `crun run`. The configuration follows `runc spec`'s defaults (new pid, net, ipc,
 * uts and mount namespaces, three capabilities, no_new_privs, masked /proc paths, no device
 * access), with a read-only root, a tmpfs /tmp and the action's bind mounts (runners/binds.h). */
#pragma once

#include <jansson.h>

#include "runners/action.h"
#include "runners/binds.h"
#include "runners/errbuf.h"

struct oci_bundle {
    char *dir; /* holds config.json and rootfs/ */
    char *rootfs;
};

/* The configuration for action a with binds, rooted at rootfs; NULL when out of memory. */
json_t *oci_config(const struct action *a, const struct bind_list *binds, const char *rootfs);

/* Makes CACHE/containers/VERSION/bundles/PREFIX-XXXXXX with its own rootfs and config.json. */
int oci_bundle_create(const char *cache_dir, const char *prefix, const struct action *a,
                      struct oci_bundle *out, struct errbuf *eb);

/* Removes the bundle directory and everything in it; frees the paths. */
void oci_bundle_remove(struct oci_bundle *b);
