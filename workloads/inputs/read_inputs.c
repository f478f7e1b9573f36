/* sbx-read-inputs: the action of the inputs workload (docs/scaling.md).
 *
 *   sbx-read-inputs [--hidden] ROOT N
 *
 * Opens, reads and closes inputs 0..N-1 of the generated tree at ROOT, checking each file's content
 * against what its path says it must be, and prints one line: the count, the bytes and a digest of
 * everything read. With --hidden it also makes sure that nothing of the tree but the inputs can be
 * seen: the decoy file of the root and of the first and last inputs' directories, and input N (in
 * the tree when a larger count generated it), must not exist, and the inputs must be read-only.
 * Any missing, unreadable, wrong or visible file fails it (exit 1, the reason on stderr). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workloads/inputs/tree.h"

static const char *root;

static void fail(const char *rel, const char *what)
{
    fprintf(stderr, "sbx-read-inputs: %s/%s: %s\n", root, rel, what);
    exit(1);
}

/* Reads the file into buf in one read(2) of one byte more than any input holds: a regular file
 * gives all it has up to that. Were a read ever short of the end, the length check that follows
 * would fail the sample: it can cost a false failure, never a false pass. */
static size_t read_all(int fd, unsigned char *buf, size_t cap, const char *rel)
{
    ssize_t n;
    do
        n = read(fd, buf, cap);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        fail(rel, strerror(errno));
    return (size_t)n;
}

static void must_not_see(int rootfd, const char *rel)
{
    struct stat st;
    if (fstatat(rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0)
        fail(rel, "visible, but not an input: the staging shows more than the inputs");
    if (errno != ENOENT)
        fail(rel, strerror(errno));
}

/* The decoy in the directory of rel. */
static void must_not_see_decoy(int rootfd, const char *rel)
{
    char decoy[INPUTS_PATH_MAX + sizeof INPUTS_DECOY];
    const char *slash = strrchr(rel, '/');
    snprintf(decoy, sizeof decoy, "%.*s%s", slash ? (int)(slash - rel + 1) : 0, rel, INPUTS_DECOY);
    must_not_see(rootfd, decoy);
}

int main(int argc, char **argv)
{
    bool hidden = argc > 1 && strcmp(argv[1], "--hidden") == 0;
    char *end;
    if (argc != 3 + hidden) {
        fprintf(stderr, "usage: sbx-read-inputs [--hidden] ROOT N\n");
        return 2;
    }
    root = argv[1 + hidden];
    errno = 0;
    unsigned long n = strtoul(argv[2 + hidden], &end, 10);
    if (errno || *end || end == argv[2 + hidden] || n > INPUTS_MAX) {
        fprintf(stderr, "sbx-read-inputs: N: a count from 0 to %d expected, got '%s'\n", INPUTS_MAX,
                argv[2 + hidden]);
        return 2;
    }
    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0) {
        fprintf(stderr, "sbx-read-inputs: %s: %s\n", root, strerror(errno));
        return 1;
    }
    static unsigned char buf[INPUTS_MAX_SIZE + 1];
    char rel[INPUTS_PATH_MAX];
    unsigned long long bytes = 0;
    uint64_t digest = 0;
    for (size_t i = 0; i < n; i++) {
        inputs_path(i, rel);
        int fd = openat(rootfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            fail(rel, strerror(errno));
        size_t len = read_all(fd, buf, sizeof buf, rel);
        close(fd);
        uint64_t hash;
        if (!inputs_verify(inputs_seed(rel), buf, len, &hash))
            fail(rel, "wrong content: not what the generator wrote");
        bytes += len;
        digest = inputs_digest_add(digest, hash);
    }
    if (hidden) {
        must_not_see_decoy(rootfd, "");
        if (n > 0) {
            inputs_path(0, rel);
            must_not_see_decoy(rootfd, rel);
            inputs_path(n - 1, rel);
            must_not_see_decoy(rootfd, rel);
        }
        inputs_path(n, rel);
        must_not_see(rootfd, rel);
        if (n > 0) {
            inputs_path(0, rel);
            if (faccessat(rootfd, rel, W_OK, AT_EACCESS) == 0)
                fail(rel, "writable: the staging must show the inputs read-only");
        }
    }
    printf("%lu inputs, %llu bytes, digest %016llx\n", n, bytes, (unsigned long long)digest);
    return fflush(stdout) == 0 ? 0 : 1;
}
