#include "workloads/render/pgm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int pgm_write_fd(int fd, const uint8_t *pixels, int size)
{
    char header[64];
    int n = snprintf(header, sizeof header, "P5\n%d %d\n255\n", size, size);
    if (write_all(fd, header, (size_t)n) < 0)
        return -1;
    return write_all(fd, pixels, (size_t)size * (size_t)size);
}

/* /dev/null or a FIFO: nothing to replace atomically, and renaming over a device would destroy it. */
static int pgm_write_in_place(const char *path, const uint8_t *pixels, int size)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    int rc = pgm_write_fd(fd, pixels, size);
    if (close(fd) < 0)
        rc = -1;
    return rc;
}

int pgm_write_file(const char *path, const uint8_t *pixels, int size)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return pgm_write_in_place(path, pixels, size);
    size_t len = strlen(path);
    char *tmp = malloc(len + 16);
    if (!tmp)
        return -1;
    snprintf(tmp, len + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    int rc = pgm_write_fd(fd, pixels, size);
    if (rc == 0) {
        mode_t mask = umask(0); /* mkstemp made it 0600: give it the mode open() would */
        umask(mask);
        rc = fchmod(fd, 0666 & ~mask);
    }
    if (close(fd) < 0)
        rc = -1;
    if (rc == 0)
        rc = rename(tmp, path);
    if (rc < 0) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
    }
    free(tmp);
    return rc;
}
