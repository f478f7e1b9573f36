/* The input list and the overlay's lower directory, in the cache. */
#include "runners/staging_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t fnv(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s;; p++) {
        h = (h ^ *p) * 0x100000001b3ULL;
        if (!*p)
            return h;
    }
}

/* In out, cache_dir/staging/NAME followed by suffix, NAME being the one the action's inputs share
 * there; cache_dir/staging is made if need be. */
static int staging_path(const char *cache_dir, const struct action *a, const char *suffix,
                        char *out, size_t outlen, struct errbuf *eb)
{
    if (!cache_dir || !*cache_dir)
        return err_msg(eb, "staging: no cache directory (--cache-dir)");
    uint64_t h = fnv(0xcbf29ce484222325ULL, a->inputs_root);
    for (size_t i = 0; i < a->n_inputs; i++)
        h = fnv(h, a->inputs[i]);
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/staging", cache_dir) >= (int)sizeof dir)
        return err_sys(eb, "staging", cache_dir, ENAMETOOLONG);
    if (mkdir(cache_dir, 0755) < 0 && errno != EEXIST)
        return err_sys(eb, "staging: creating the cache", cache_dir, errno);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return err_sys(eb, "staging: creating the cache", dir, errno);
    snprintf(out, outlen, "%s/%016llx-%zu%s", dir, (unsigned long long)h, a->n_inputs, suffix);
    return 0;
}

int staging_list_file(const char *cache_dir, const struct action *a, char *out, size_t outlen,
                      struct errbuf *eb)
{
    char tmp[PATH_MAX + 16];
    if (staging_path(cache_dir, a, ".list", out, outlen, eb) < 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", out, (int)getpid());
    FILE *f = fopen(tmp, "we");
    if (!f)
        return err_sys(eb, "staging: writing the input list", tmp, errno);
    for (size_t i = 0; i < a->n_inputs; i++)
        fprintf(f, "%s\n", a->inputs[i]);
    bool failed = ferror(f) != 0;
    if (fclose(f) != 0 || failed || rename(tmp, out) < 0) {
        int err = errno ? errno : EIO;
        unlink(tmp);
        return err_sys(eb, "staging: writing the input list", out, err);
    }
    return 0;
}

/* mkdir -p of path's parents below base (base exists). */
static int make_parents(const char *base, const char *rel, struct errbuf *eb)
{
    char path[PATH_MAX];
    size_t len = strlen(base);
    snprintf(path, sizeof path, "%s/%s", base, rel);
    for (char *slash = strchr(path + len + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return err_sys(eb, "staging: overlay's lower directory", path, errno);
        *slash = '/';
    }
    return 0;
}

static int link_one(const char *root, const char *lower, const char *rel, struct errbuf *eb)
{
    char from[PATH_MAX], to[PATH_MAX];
    if (snprintf(from, sizeof from, "%s/%s", root, rel) >= (int)sizeof from ||
        snprintf(to, sizeof to, "%s/%s", lower, rel) >= (int)sizeof to)
        return err_sys(eb, "staging: overlay's lower directory", rel, ENAMETOOLONG);
    struct stat src, have;
    if (stat(from, &src) < 0)
        return err_sys(eb, "staging: input", from, errno);
    if (lstat(to, &have) == 0) {
        if (have.st_ino == src.st_ino && have.st_dev == src.st_dev)
            return 0;
        if (unlink(to) < 0)
            return err_sys(eb, "staging: overlay's lower directory", to, errno);
    } else if (make_parents(lower, rel, eb) < 0) {
        return -1;
    }
    if (link(from, to) < 0) {
        if (errno == EXDEV)
            return err_msg(eb,
                           "staging: overlay: %s and the cache are on different filesystems: "
                           "the lower directory is made of hard links",
                           from);
        return err_sys(eb, "staging: overlay's lower directory: link", to, errno);
    }
    return 0;
}

int staging_overlay_lower(const char *cache_dir, const struct action *a, char *out, size_t outlen,
                          struct errbuf *eb)
{
    char lockname[PATH_MAX + 8];
    if (staging_path(cache_dir, a, ".lower", out, outlen, eb) < 0)
        return -1;
    snprintf(lockname, sizeof lockname, "%s.lock", out);
    int lock = open(lockname, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0 || flock(lock, LOCK_EX) < 0) {
        int err = errno;
        if (lock >= 0)
            close(lock);
        return err_sys(eb, "staging: locking", lockname, err);
    }
    int rc = 0;
    if (mkdir(out, 0755) < 0 && errno != EEXIST)
        rc = err_sys(eb, "staging: overlay's lower directory", out, errno);
    for (size_t i = 0; i < a->n_inputs && rc == 0; i++)
        rc = link_one(a->inputs_root, out, a->inputs[i], eb);
    close(lock);
    return rc;
}
