/* sha256: SHA-256 as FIPS 180-4 defines it, for digests of workload outputs. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32
#define SHA256_HEX_BYTES (2 * SHA256_BYTES + 1)

struct sha256 {
    uint32_t h[8];
    uint64_t bytes; /* message length so far */
    uint8_t block[64];
    size_t used; /* bytes of block filled */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
void sha256_final(struct sha256 *s, uint8_t digest[SHA256_BYTES]);
/* Lowercase hex of digest, NUL-terminated. */
void sha256_hex(const uint8_t digest[SHA256_BYTES], char hex[SHA256_HEX_BYTES]);
