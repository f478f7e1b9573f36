/* sbx-pipe: the two ends of the pipe workload.
 *
 *   sbx-pipe write SIZE BYTES   writes BYTES bytes of a fixed stream to stdout, SIZE bytes per
 * write sbx-pipe read SIZE BYTES    reads stdin SIZE bytes per read and verifies it is exactly that
 * stream
 *
 * The reader compares every byte it receives with the stream the writer sends (regenerated from the
 * same seed), counts them, and exits 1 on a short, long or corrupted transfer: a broken transfer is
 * a failed sample, never a fast one. On success it prints "BYTES bytes verified". The stream
 * repeats with a prime period, so a lost, repeated or reordered buffer (always a power of two long)
 * shows as a mismatch; both ends index one precomputed table, so the per-call work is one system
 * call and, for the reader, one memcmp. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PERIOD 65521 /* the largest prime below 2^16 */
#define MAX_SIZE (16L << 20)

/* PERIOD bytes of xorshift64 output, then the first size bytes again, so that any window of up to
 * size bytes starting in the first period is contiguous. */
static unsigned char *make_stream(size_t size)
{
    unsigned char *s = malloc(PERIOD + size);
    if (!s)
        return NULL;
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < PERIOD; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t n = PERIOD - i < 8 ? PERIOD - i : 8;
        memcpy(s + i, &x, n);
    }
    for (size_t done = 0; done < size;) {
        size_t n = size - done < PERIOD ? size - done : PERIOD;
        memcpy(s + PERIOD + done, s, n);
        done += n;
    }
    return s;
}

static int parse_number(const char *s, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max)
        return -1;
    *out = v;
    return 0;
}

static int write_stream(const unsigned char *stream, size_t size, long long total)
{
    long long off = 0;
    while (off < total) {
        size_t want = total - off < (long long)size ? (size_t)(total - off) : size;
        const unsigned char *src = stream + off % PERIOD;
        ssize_t n = write(1, src, want);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "sbx-pipe write: after %lld bytes: %s\n", off, strerror(errno));
            return 1;
        }
        off += n;
    }
    return 0;
}

static long long first_difference(const unsigned char *a, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (long long)i;
    return -1;
}

static int read_stream(const unsigned char *stream, size_t size, long long total)
{
    unsigned char *buf = malloc(size);
    if (!buf) {
        fprintf(stderr, "sbx-pipe read: %s\n", strerror(ENOMEM));
        return 1;
    }
    long long off = 0;
    int rc = 0;
    for (;;) {
        ssize_t n = read(0, buf, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fprintf(stderr, "sbx-pipe read: after %lld bytes: %s\n", off, strerror(errno));
            rc = 1;
            break;
        }
        if (n == 0)
            break;
        if (off + n > total) {
            fprintf(stderr, "sbx-pipe read: more than the %lld bytes sent\n", total);
            rc = 1;
            break;
        }
        const unsigned char *expect = stream + off % PERIOD;
        if (memcmp(buf, expect, (size_t)n) != 0) {
            fprintf(stderr, "sbx-pipe read: corrupted: byte %lld differs from what was sent\n",
                    off + first_difference(buf, expect, (size_t)n));
            rc = 1;
            break;
        }
        off += n;
    }
    free(buf);
    if (rc == 0 && off != total) {
        fprintf(stderr, "sbx-pipe read: short transfer: %lld of %lld bytes\n", off, total);
        rc = 1;
    }
    if (rc == 0)
        printf("%lld bytes verified\n", total);
    return rc;
}

int main(int argc, char **argv)
{
    long long size, total;
    if (argc != 4 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "read") != 0) ||
        parse_number(argv[2], MAX_SIZE, &size) < 0 ||
        parse_number(argv[3], 1LL << 50, &total) < 0) {
        fprintf(stderr, "usage: sbx-pipe write|read SIZE BYTES   (SIZE 1..%ld, BYTES from 1)\n",
                MAX_SIZE);
        return 2;
    }
    unsigned char *stream = make_stream((size_t)size);
    if (!stream) {
        fprintf(stderr, "sbx-pipe: %s\n", strerror(ENOMEM));
        return 1;
    }
    int rc = argv[1][0] == 'w' ? write_stream(stream, (size_t)size, total)
                               : read_stream(stream, (size_t)size, total);
    free(stream);
    return rc;
}
