/* What an inproc sandbox's staging needs on disk (docs/scaling.md), kept in the cache directory
 * under staging/, named by a hash of the inputs' root and list. */
#pragma once

#include <stddef.h>

#include "runners/action.h"
#include "runners/errbuf.h"

/* The action's input list, one relative path a line: what `sbxbench exec --inputs-from` reads, so
 * that the command recorded in the results can be pasted. Its path in out. */
int staging_list_file(const char *cache_dir, const struct action *a, char *out, size_t outlen,
                      struct errbuf *eb);

/* The overlay's lower directory: the inputs, and nothing else, as hard links laid out as under the
 * root. Made once and checked at each call: a link whose file was replaced since is made again, and
 * a missing input is an error naming it. Hard links need the cache and the inputs on one
 * filesystem. Its path in out. */
int staging_overlay_lower(const char *cache_dir, const struct action *a, char *out, size_t outlen,
                          struct errbuf *eb);
