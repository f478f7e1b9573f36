#include "harness/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A signal handler may need the path without calling malloc: keep a static copy. */
static char pending[4096];

const char *atomic_pending_temp(void)
{
    return pending;
}

/* /dev/null, /dev/stdout, a FIFO: there is nothing to replace atomically, and renaming a temp file over
 * a device node would destroy it. Such targets are written in place. */
static int open_in_place(struct atomic_file *f, const char *target, struct errbuf *eb)
{
    f->fd = open(target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (f->fd < 0)
        return err_sys(eb, "output", target, errno);
    f->target = strdup(target);
    f->in_place = true;
    return 0;
}

int atomic_open(struct atomic_file *f, const char *target, struct errbuf *eb)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    struct stat st;
    if (stat(target, &st) == 0 && S_ISDIR(st.st_mode))
        return err_sys(eb, "output", target, EISDIR);
    if (stat(target, &st) == 0 && !S_ISREG(st.st_mode))
        return open_in_place(f, target, eb);
    if (asprintf(&f->temp, "%s.tmp.XXXXXX", target) < 0 || !(f->target = strdup(target))) {
        free(f->temp);
        return err_sys(eb, "output", target, ENOMEM);
    }
    f->fd = mkostemp(f->temp, O_CLOEXEC);
    if (f->fd < 0) {
        int e = errno;
        free(f->temp);
        free(f->target);
        f->temp = f->target = NULL;
        return err_sys(eb, "output", target, e);
    }
    /* Results are for reading by others, like any file the user would create. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(f->fd, 0666 & ~mask);
    snprintf(pending, sizeof pending, "%s", f->temp);
    return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

static void fsync_parent(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return;
    int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(copy);
}

int atomic_commit(struct atomic_file *f, const char *data, size_t len, struct errbuf *eb)
{
    if (f->fd < 0)
        return err_msg(eb, "output: no file open");
    if (f->in_place) {
        int rc = write_all(f->fd, data, len);
        int e = errno;
        close(f->fd);
        f->fd = -1;
        free(f->target);
        f->target = NULL;
        return rc < 0 ? err_sys(eb, "writing results", "output", e) : 0;
    }
    if (write_all(f->fd, data, len) < 0 || fsync(f->fd) < 0) {
        int e = errno;
        atomic_abort(f);
        return err_sys(eb, "writing results", f->target ? f->target : "?", e);
    }
    if (close(f->fd) < 0) {
        int e = errno;
        f->fd = -1;
        atomic_abort(f);
        return err_sys(eb, "writing results", "close", e);
    }
    f->fd = -1;
    if (rename(f->temp, f->target) < 0) {
        int e = errno;
        atomic_abort(f);
        return err_sys(eb, "renaming results into place", f->target, e);
    }
    fsync_parent(f->target);
    pending[0] = '\0';
    free(f->temp);
    free(f->target);
    f->temp = f->target = NULL;
    return 0;
}

void atomic_abort(struct atomic_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->temp)
        unlink(f->temp);
    pending[0] = '\0';
    free(f->temp);
    free(f->target);
    f->temp = f->target = NULL;
    f->fd = -1;
}
