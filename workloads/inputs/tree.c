/* The input tree: names, sizes and contents as functions of an index. */
#include "workloads/inputs/tree.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#define GOLDEN 0x9e3779b97f4a7c15ULL

/* splitmix64's output function: a bijection that mixes every bit into every other. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Eight files to a directory group; groups spread over 13 top directories, some one or two levels
 * deeper, like a source tree with headers in many places. */
size_t inputs_path(size_t i, char buf[INPUTS_PATH_MAX])
{
    size_t g = i / 8;
    int len;
    switch (mix64(g) % 3) {
    case 0:
        len = snprintf(buf, INPUTS_PATH_MAX, "s%zu/f%zu.in", g % 13, i);
        break;
    case 1:
        len = snprintf(buf, INPUTS_PATH_MAX, "s%zu/m%zu/f%zu.in", g % 13, g / 13 % 11, i);
        break;
    default:
        len = snprintf(buf, INPUTS_PATH_MAX, "s%zu/m%zu/x%zu/f%zu.in", g % 13, g / 13 % 11, g / 143,
                       i);
        break;
    }
    return (size_t)len;
}

uint64_t inputs_seed(const char *rel)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)rel; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return mix64(h);
}

/* Mostly small files, a few large ones: 60% under 1 KiB, 30% 1-4 KiB, 9% 4-16 KiB, 1% 16-64 KiB
 * (about 2.3 KiB on average). */
size_t inputs_size(uint64_t seed)
{
    uint64_t r = mix64(seed ^ GOLDEN);
    unsigned class = (unsigned)(r % 100);
    uint64_t x = r >> 16;
    if (class < 60)
        return x % 1024;
    if (class < 90)
        return 1024 + x % 3072;
    if (class < 99)
        return 4096 + x % 12288;
    return 16384 + x % (INPUTS_MAX_SIZE + 1 - 16384);
}

static inline uint64_t content_word(uint64_t seed, uint64_t k)
{
    return htole64(mix64(seed + (k + 1) * GOLDEN));
}

void inputs_fill(uint64_t seed, unsigned char *buf)
{
    size_t size = inputs_size(seed), k = 0;
    for (; (k + 1) * 8 <= size; k++) {
        uint64_t w = content_word(seed, k);
        memcpy(buf + k * 8, &w, 8);
    }
    if (k * 8 < size) {
        uint64_t w = content_word(seed, k);
        memcpy(buf + k * 8, &w, size - k * 8);
    }
}

static inline uint64_t hash_step(uint64_t h, uint64_t w)
{
    h = (h ^ w) * GOLDEN;
    return h ^ (h >> 32);
}

uint64_t inputs_hash(const unsigned char *data, size_t len)
{
    uint64_t h = len, w;
    size_t k = 0;
    for (; (k + 1) * 8 <= len; k++) {
        memcpy(&w, data + k * 8, 8);
        h = hash_step(h, w);
    }
    if (k * 8 < len) {
        w = 0;
        memcpy(&w, data + k * 8, len - k * 8);
        h = hash_step(h, w);
    }
    return mix64(h);
}

bool inputs_verify(uint64_t seed, const unsigned char *data, size_t len, uint64_t *hash)
{
    uint64_t h = len, w, differ = 0;
    size_t k = 0;
    for (; (k + 1) * 8 <= len; k++) {
        memcpy(&w, data + k * 8, 8);
        differ |= w ^ content_word(seed, k);
        h = hash_step(h, w);
    }
    if (k * 8 < len) {
        uint64_t want = content_word(seed, k);
        w = 0;
        memcpy(&w, data + k * 8, len - k * 8);
        differ |= memcmp(&w, &want, len - k * 8) != 0;
        h = hash_step(h, w);
    }
    *hash = mix64(h);
    return differ == 0 && len == inputs_size(seed);
}

uint64_t inputs_digest_add(uint64_t digest, uint64_t file_hash)
{
    return mix64(digest ^ file_hash) + GOLDEN;
}
