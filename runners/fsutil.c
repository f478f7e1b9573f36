#include "runners/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mkdir_parents(const char *path, mode_t mode)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    int rc = 0;
    for (char *p = copy + 1; rc == 0; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(copy, mode) < 0 && errno != EEXIST)
            rc = -1;
        *p = saved;
        if (saved == '\0')
            break;
    }
    free(copy);
    return rc;
}

static int first_errno;

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    int rc = type == FTW_DP ? rmdir(path) : unlink(path);
    if (rc < 0 && errno != ENOENT && !first_errno)
        first_errno = errno;
    return 0;
}

int remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : -1;
    first_errno = 0;
    if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0)
        return -1;
    if (first_errno) {
        errno = first_errno;
        return -1;
    }
    return 0;
}

int write_file(const char *path, const char *content, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    size_t len = strlen(content), done = 0;
    while (done < len) {
        ssize_t n = write(fd, content + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int saved = n < 0 ? errno : EIO;
            close(fd);
            errno = saved;
            return -1;
        }
        done += (size_t)n;
    }
    return close(fd);
}

bool path_within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return path[0] == '/';
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}
