/* The generator of the input tree, in the cache directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workloads/inputs/tree.h"

static int mkdir_p(const char *path, struct errbuf *eb)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return err_sys(eb, "inputs: creating the cache", path, ENAMETOOLONG);
    for (char *p = dir + 1;; p++) {
        bool end = *p == '\0';
        if (end || *p == '/') {
            *p = '\0';
            if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return err_sys(eb, "inputs: creating the cache", dir, errno);
            if (end)
                return 0;
            *p = '/';
        }
    }
}

static int write_file(int dirfd, const char *rel, const void *data, size_t len, const char *what,
                      struct errbuf *eb)
{
    int fd = openat(dirfd, rel, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return err_sys(eb, what, rel, errno);
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            return err_sys(eb, what, rel, e);
        }
        p += n;
        len -= (size_t)n;
    }
    if (close(fd) < 0)
        return err_sys(eb, what, rel, errno);
    return 0;
}

/* The parent directories of rel, each with its decoy; last remembers the directory of the previous
 * file so that a run of files in one directory costs nothing here. */
static int make_parents(int rootfd, const char *rel, char *last, struct errbuf *eb)
{
    char dir[INPUTS_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", rel);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    if (strcmp(dir, last) == 0)
        return 0;
    snprintf(last, INPUTS_PATH_MAX, "%s", dir);
    for (char *p = dir;; p++) {
        bool end = *p == '\0';
        if (end || *p == '/') {
            *p = '\0';
            if (mkdirat(rootfd, dir, 0755) < 0 && errno != EEXIST)
                return err_sys(eb, "inputs: generating the tree", dir, errno);
            char decoy[INPUTS_PATH_MAX + sizeof INPUTS_DECOY];
            snprintf(decoy, sizeof decoy, "%s/%s", dir, INPUTS_DECOY);
            if (faccessat(rootfd, decoy, F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
                write_file(rootfd, decoy, "decoy\n", 6, "inputs: generating the tree", eb) < 0)
                return -1;
            if (end)
                return 0;
            *p = '/';
        }
    }
}

static size_t read_count(int dirfd)
{
    char buf[32] = "";
    int fd = openat(dirfd, "count", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *end;
    unsigned long long v = strtoull(buf, &end, 10);
    return *end == '\n' ? (size_t)v : 0;
}

/* The count is replaced whole, after the files it counts are written. */
static int write_count(int dirfd, size_t n, struct errbuf *eb)
{
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%zu\n", n);
    if (write_file(dirfd, "count.tmp", buf, (size_t)len, "inputs: recording the tree", eb) < 0)
        return -1;
    if (renameat(dirfd, "count.tmp", dirfd, "count") < 0)
        return err_sys(eb, "inputs: recording the tree", "count", errno);
    return 0;
}

static int generate(int dirfd, size_t from, size_t n, struct errbuf *eb)
{
    if (mkdirat(dirfd, "tree", 0755) < 0 && errno != EEXIST)
        return err_sys(eb, "inputs: generating the tree", "tree", errno);
    int rootfd = openat(dirfd, "tree", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return err_sys(eb, "inputs: generating the tree", "tree", errno);
    unsigned char *buf = malloc(INPUTS_MAX_SIZE + 1);
    char last[INPUTS_PATH_MAX] = "", rel[INPUTS_PATH_MAX];
    int rc = buf ? write_file(rootfd, INPUTS_DECOY, "decoy\n", 6, "inputs: generating the tree", eb)
                 : err_sys(eb, "inputs: generating the tree", NULL, ENOMEM);
    for (size_t i = from; i < n && rc == 0; i++) {
        inputs_path(i, rel);
        uint64_t seed = inputs_seed(rel);
        inputs_fill(seed, buf);
        rc = make_parents(rootfd, rel, last, eb);
        if (rc == 0)
            rc = write_file(rootfd, rel, buf, inputs_size(seed), "inputs: generating the tree", eb);
    }
    free(buf);
    close(rootfd);
    return rc;
}

int inputs_tree_ensure(const char *cache_dir, size_t n, char *root, size_t rootlen,
                       struct errbuf *eb)
{
    char dir[4096];
    if (!cache_dir || !*cache_dir)
        return err_msg(eb, "inputs: no cache directory (--cache-dir)");
    if (snprintf(dir, sizeof dir, "%s/%s", cache_dir, INPUTS_TREE_DIR) >= (int)sizeof dir ||
        snprintf(root, rootlen, "%s/tree", dir) >= (int)rootlen)
        return err_sys(eb, "inputs: the cache", cache_dir, ENAMETOOLONG);
    if (mkdir_p(dir, eb) < 0)
        return -1;
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return err_sys(eb, "inputs: opening the cache", dir, errno);
    int lockfd = openat(dirfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lockfd < 0 || flock(lockfd, LOCK_EX) < 0) {
        int e = errno;
        if (lockfd >= 0)
            close(lockfd);
        close(dirfd);
        return err_sys(eb, "inputs: locking the cache", dir, e);
    }
    size_t have = read_count(dirfd);
    int rc = 0;
    if (have < n) {
        rc = generate(dirfd, have, n, eb);
        if (rc == 0)
            rc = write_count(dirfd, n, eb);
    }
    close(lockfd); /* releases the lock */
    close(dirfd);
    if (rc == 0 && realpath(root, dir) && strlen(dir) < rootlen)
        memcpy(root, dir, strlen(dir) + 1); /* the canonical path: mechanisms bind it as is */
    return rc;
}
