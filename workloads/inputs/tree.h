/* The input tree of the inputs workload (docs/scaling.md).
 *
 * Input i's path, size and content are functions of i alone: the content of a path is derived from
 * a hash of the path, so the generator, the reader inside a sandbox and the workload's check agree
 * without a manifest, and the first N inputs are the same files whatever the largest N asked for.
 * Every directory of the tree also holds a file that is never an input (INPUTS_DECOY), so that a
 * staging method that shows more than the inputs is caught. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runners/errbuf.h"

/* The most inputs an action may have. A mount per input must fit under fs.mount-max (100,000 mounts
 * per namespace by default) with the sandbox's own. */
#define INPUTS_MAX 50000
#define INPUTS_MAX_SIZE 65535
#define INPUTS_PATH_MAX 64
#define INPUTS_DECOY "not-an-input"
/* The tree's directory under the cache; a new format gets a new name. */
#define INPUTS_TREE_DIR "inputs-v1"

/* Input i's path relative to the tree's root, e.g. "s3/m1/f25.in"; returns its length. */
size_t inputs_path(size_t i, char buf[INPUTS_PATH_MAX]);

/* The seed a path's size and content derive from. */
uint64_t inputs_seed(const char *rel);
size_t inputs_size(uint64_t seed);
/* Writes the content (inputs_size(seed) bytes) into buf. */
void inputs_fill(uint64_t seed, unsigned char *buf);
/* Whether data[0..len) is exactly the content of the input with this seed; *hash gets a checksum of
 * the data either way. */
bool inputs_verify(uint64_t seed, const unsigned char *data, size_t len, uint64_t *hash);
/* The checksum inputs_verify gives for data. */
uint64_t inputs_hash(const unsigned char *data, size_t len);
/* Folds one file's checksum into the digest of a whole read (start from 0). */
uint64_t inputs_digest_add(uint64_t digest, uint64_t file_hash);

/* Makes sure cache_dir holds a tree of at least n inputs, generating what is missing (under a lock,
 * so that concurrent runs do not interfere; a generation cut short is redone). Fills root with the
 * tree's root directory. Returns 0, or -1 with eb filled. */
int inputs_tree_ensure(const char *cache_dir, size_t n, char *root, size_t rootlen,
                       struct errbuf *eb);
