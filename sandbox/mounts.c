/* The children's half of the mount plans: one or two syscalls per operation, nothing looked up. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/internal.h"

/* For messages, a bind source as the host names it. */
static const char *host_name(const char *src)
{
    static const char old_root[] = "/.oldroot";
    if (strncmp(src, old_root, sizeof old_root - 1) == 0)
        return src[sizeof old_root - 1] ? src + sizeof old_root - 1 : "/";
    return src;
}

static void bind_failed(struct sbx *s, const struct mount_op *op, int err)
{
    char object[2 * PATH_MAX + 8];
    snprintf(object, sizeof object, "%s -> %s", host_name(op->data), op->path);
    child_fail(s, "bind", object, err);
}

static void run_op(struct sbx *s, const struct mount_op *op)
{
    int rc = 0;
    switch (op->kind) {
    case OP_TMPFS:
        if (mount("tmpfs", op->path, "tmpfs", op->attrs, op->data) < 0)
            child_fail(s, "mount tmpfs", op->path, errno);
        return;
    case OP_MKDIR:
        if (mkdir(op->path, op->mode) < 0 && errno != EEXIST)
            child_fail(s, "mkdir", op->path, errno);
        return;
    case OP_MKFILE:
        if (mknod(op->path, S_IFREG | 0444, 0) < 0 && errno != EEXIST)
            child_fail(s, "create mount point", op->path, errno);
        return;
    case OP_SYMLINK:
        if (symlink(op->data, op->path) < 0)
            child_fail(s, "symlink", op->path, errno);
        return;
    case OP_PIVOT:
        if (syscall(SYS_pivot_root, op->path, op->data) < 0)
            child_fail(s, "pivot_root", op->path, errno);
        if (chdir("/") < 0)
            child_fail(s, "chdir", "/", errno);
        return;
    case OP_BIND:
        rc = mount(op->data, op->path, NULL, MS_BIND | (op->recursive ? MS_REC : 0), NULL);
        if (rc < 0 && !(op->optional && errno == ENOENT))
            bind_failed(s, op, errno);
        return;
    case OP_SETATTR: {
        struct mount_attr attr = {.attr_set = op->attrs};
        rc =
            mount_setattr(AT_FDCWD, op->path, op->recursive ? AT_RECURSIVE : 0, &attr, sizeof attr);
        if (rc < 0 && !(op->optional && errno == ENOENT))
            child_fail(s, "mount_setattr", op->path, errno);
        return;
    }
    case OP_PROC:
        if (mount("proc", op->path, "proc", op->attrs, NULL) < 0)
            child_fail(s, "mount proc", op->path, errno);
        return;
    case OP_DETACH:
        if (umount2(op->path, MNT_DETACH) < 0)
            child_fail(s, "umount old root", op->path, errno);
        if (rmdir(op->path) < 0)
            child_fail(s, "rmdir", op->path, errno);
        return;
    case OP_CHDIR:
        if (chdir(op->path) < 0)
            child_fail(s, "chdir", op->path, errno);
        return;
    default:
        child_fail(s, "plan", "unknown operation", EINVAL);
    }
}

void child_run_plan(struct sbx *s, const struct mount_plan *p)
{
    mode_t umask_before = umask(0); /* the plan's modes are meant as written */
    for (size_t i = 0; i < p->n; i++) {
        run_op(s, &p->ops[i]);
        if (p->ops[i].mark_after)
            s->run.mark[p->ops[i].mark_after] = sbx_now();
    }
    umask(umask_before);
}
