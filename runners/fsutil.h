/* Small file-system helpers for the runners that build images and bundles. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* mkdir -p: creates path and its missing parents; 0, or -1 with errno. */
int mkdir_parents(const char *path, mode_t mode);

/* rm -rf that never follows a symlink or crosses into another mount; 0, or -1 with errno of the
 * first failure (it still removes what it can). A missing path is not an error. */
int remove_tree(const char *path);

/* Creates (or truncates) path with content; 0, or -1 with errno. */
int write_file(const char *path, const char *content, mode_t mode);

/* Whether path is inside dir (or is dir), comparing whole components: /usr/bin is in /usr,
 * /usrx is not. Both must be normalised absolute paths. */
bool path_within(const char *path, const char *dir);
