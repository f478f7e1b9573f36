/* The mount plans: every filesystem step of a sandbox, worked out once in the caller.
 *
 * The host is looked at here, not in the child: which system directories exist and which are
 * symlinks, where each bind source really is, whether it is a file or a directory, which mount
 * points must be created. The children then run flat lists of syscalls (mounts.c).
 *
 * Two lists. The template plan runs once, when the sandbox is prepared, in a mount namespace of its
 * own: a tmpfs root with every bind and mount point, pivoted to (the old root kept at /.oldroot
 * until every bind has been made from it, then detached) and made read-only. Each run then only
 * copies that namespace (with the new user namespace, which locks every mount of the copy: the
 * sandbox can neither unmount nor remount them) and runs the per-run plan: a fresh tmpfs for /tmp
 * and /dev/shm, a /proc for the new pid namespace, --tmpfs directories, the working directory. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define OLD_ROOT "/.oldroot"

static const char *const system_dirs[] = {"/usr",   "/bin",   "/sbin", "/lib",
                                          "/lib32", "/lib64", "/etc"};
static const char *const dev_nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
static const char *const dev_links[][2] = {
    {"/proc/self/fd", "/dev/fd"},
    {"/proc/self/fd/0", "/dev/stdin"},
    {"/proc/self/fd/1", "/dev/stdout"},
    {"/proc/self/fd/2", "/dev/stderr"},
};
/* Parts of /proc that reach beyond the sandbox's namespaces (global sysctls, the sysrq trigger,
 * interrupt and bus settings): read-only, as the host root the sandbox's root may be. */
static const char *const proc_read_only[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
                                             "/proc/bus"};
/* Where the new root is staged before pivot_root: the first of these that exists. */
static const char *const staging_dirs[] = {"/tmp", "/mnt", "/run", "/var/tmp"};

#define ATTR_SYSTEM (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

struct builder {
    struct mount_plan *p; /* the plan being added to: the template's or the run's */
    char **made;          /* directories the plan creates or binds, so each is made once */
    struct sbx_error *e;
    int rc;
};

static struct mount_op *add(struct builder *b, enum mount_op_kind kind, const char *path,
                            const char *data)
{
    if (b->rc < 0)
        return NULL;
    struct mount_plan *p = b->p;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        struct mount_op *grown = realloc(p->ops, cap * sizeof *grown);
        if (!grown)
            goto oom;
        p->ops = grown;
        p->cap = cap;
    }
    struct mount_op *op = &p->ops[p->n];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->mode = 0755;
    op->path = strdup(path);
    op->data = data ? strdup(data) : NULL;
    if (!op->path || (data && !op->data)) {
        free(op->path);
        free(op->data);
        goto oom;
    }
    p->n++;
    return op;
oom:
    b->rc = sbx_err(b->e, "plan", path, ENOMEM);
    return NULL;
}

static bool made(struct builder *b, const char *dir)
{
    for (size_t i = 0; b->made && b->made[i]; i++)
        if (strcmp(b->made[i], dir) == 0)
            return true;
    return false;
}

static void remember(struct builder *b, const char *dir)
{
    if (b->rc == 0 && vec_push(&b->made, dir) < 0)
        b->rc = sbx_err(b->e, "plan", dir, ENOMEM);
}

/* mkdir -p of path's parents (not path itself), each once. */
static void make_parents(struct builder *b, const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *slash = strchr(dir + 1, '/'); slash && b->rc == 0; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (!made(b, dir)) {
            add(b, OP_MKDIR, dir, NULL);
            remember(b, dir);
        }
        *slash = '/';
    }
}

static void make_dir(struct builder *b, const char *path)
{
    make_parents(b, path);
    if (!made(b, path)) {
        add(b, OP_MKDIR, path, NULL);
        remember(b, path);
    }
}

static void bind(struct builder *b, const char *host_path, const char *dst, bool is_dir,
                 uint64_t attrs)
{
    char src[PATH_MAX + sizeof OLD_ROOT];
    snprintf(src, sizeof src, "%s%s", OLD_ROOT, strcmp(host_path, "/") == 0 ? "" : host_path);
    if (is_dir)
        make_dir(b, dst);
    else {
        make_parents(b, dst);
        add(b, OP_MKFILE, dst, NULL);
    }
    struct mount_op *op = add(b, OP_BIND, dst, src);
    if (op)
        op->recursive = true;
    if (attrs) {
        op = add(b, OP_SETATTR, dst, NULL);
        if (op) {
            op->attrs = attrs;
            op->recursive = true;
        }
    }
}

/* A path of the new root made read-only where it is: bound onto itself, then marked. */
static void read_only_in_place(struct builder *b, const char *path)
{
    struct mount_op *op = add(b, OP_BIND, path, path);
    if (op) {
        op->recursive = true;
        op->optional = true;
    }
    op = add(b, OP_SETATTR, path, NULL);
    if (op) {
        op->attrs = ATTR_SYSTEM | MOUNT_ATTR_NOEXEC;
        op->recursive = true;
        op->optional = true;
    }
}

static void system_dir(struct builder *b, const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) < 0)
        return; /* absent on this host: nothing to show */
    if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        ssize_t n = readlink(dir, target, sizeof target - 1);
        if (n <= 0)
            return;
        target[n] = '\0';
        add(b, OP_SYMLINK, dir, target);
    } else if (S_ISDIR(st.st_mode)) {
        bind(b, dir, dir, true, ATTR_SYSTEM);
    }
}

static void minimal_dev(struct builder *b)
{
    make_dir(b, "/dev");
    for (size_t i = 0; i < sizeof dev_nodes / sizeof *dev_nodes; i++) {
        char host[32];
        snprintf(host, sizeof host, "/dev/%s", dev_nodes[i]);
        struct stat st;
        if (stat(host, &st) == 0 && S_ISCHR(st.st_mode))
            bind(b, host, host, false, 0);
    }
    for (size_t i = 0; i < sizeof dev_links / sizeof *dev_links; i++)
        add(b, OP_SYMLINK, dev_links[i][1], dev_links[i][0]);
    make_dir(b, "/dev/shm");
}

static void user_bind(struct builder *b, const struct sbx_bind *bd)
{
    const char *what = bd->rw ? "bind" : "ro-bind";
    char *real = realpath(bd->src, NULL);
    if (!real) {
        b->rc = sbx_err(b->e, what, bd->src, errno);
        return;
    }
    struct stat st;
    if (stat(real, &st) < 0) {
        b->rc = sbx_err(b->e, what, bd->src, errno);
        free(real);
        return;
    }
    uint64_t attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (bd->rw ? 0 : MOUNT_ATTR_RDONLY);
    bind(b, real, bd->dst, S_ISDIR(st.st_mode), attrs);
    free(real);
}

static const char *staging_dir(void)
{
    for (size_t i = 0; i < sizeof staging_dirs / sizeof *staging_dirs; i++) {
        struct stat st;
        if (lstat(staging_dirs[i], &st) == 0 && S_ISDIR(st.st_mode))
            return staging_dirs[i];
    }
    return NULL;
}

static void new_root(struct builder *b)
{
    const char *staging = staging_dir();
    if (!staging) {
        b->rc = sbx_errf(b->e, "plan: none of /tmp, /mnt, /run, /var/tmp is a directory to "
                               "stage the new root on");
        return;
    }
    char old_root[PATH_MAX];
    snprintf(old_root, sizeof old_root, "%s%s", staging, OLD_ROOT);
    struct mount_op *op = add(b, OP_TMPFS, staging, "mode=0755");
    if (op)
        op->attrs = MS_NOSUID | MS_NODEV;
    add(b, OP_MKDIR, old_root, NULL);
    add(b, OP_PIVOT, staging, old_root);
    remember(b, "/");
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* A bind the fresh /tmp or /dev/shm would cover (a workload's scratch directory lives in the
 * host's /dev/shm): the template's bind is set aside under the run's /proc tmpfs before the cover
 * goes on, and bound back onto a mount point made in the fresh tmpfs after. The run's /proc later
 * hides what was set aside. */
static bool covered(const struct sbx_bind *bd)
{
    return under(bd->dst, "/tmp") || under(bd->dst, "/dev/shm");
}

static void set_aside(struct builder *b, const struct sbx_config *c)
{
    for (size_t i = 0; i < c->n_binds; i++) {
        if (!covered(&c->binds[i]))
            continue;
        char kept[32];
        snprintf(kept, sizeof kept, "/proc/kept-%zu", i);
        struct stat st;
        bool dir = stat(c->binds[i].src, &st) == 0 && S_ISDIR(st.st_mode);
        add(b, dir ? OP_MKDIR : OP_MKFILE, kept, NULL);
        struct mount_op *op = add(b, OP_BIND, kept, c->binds[i].dst);
        if (op)
            op->recursive = true;
    }
}

static void put_back(struct builder *b, const struct sbx_config *c)
{
    for (size_t i = 0; i < c->n_binds; i++) {
        const char *dst = c->binds[i].dst;
        if (!covered(&c->binds[i]))
            continue;
        char kept[32], dir[PATH_MAX];
        snprintf(kept, sizeof kept, "/proc/kept-%zu", i);
        snprintf(dir, sizeof dir, "%s", dst);
        size_t root = strlen(under(dst, "/tmp") ? "/tmp" : "/dev/shm");
        if (dir[root] == '/') { /* below /tmp or /dev/shm: its mount point, in the fresh tmpfs */
            for (char *slash = strchr(dir + root + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = '\0';
                add(b, OP_MKDIR, dir, NULL);
                *slash = '/';
            }
            struct stat st;
            bool is_dir = stat(c->binds[i].src, &st) == 0 && S_ISDIR(st.st_mode);
            add(b, is_dir ? OP_MKDIR : OP_MKFILE, dst, NULL);
        }
        struct mount_op *op = add(b, OP_BIND, dst, kept);
        if (op)
            op->recursive = true;
    }
}

/* Per run: /tmp and /dev/shm are directories of one fresh tmpfs (a tmpfs superblock costs some
 * 30 us to make and 70 to tear down, a bind 2 and 2), mounted on /proc, whose mount point the
 * template has anyway, and left there under the run's own /proc. */
static void per_run(struct builder *b, const struct sbx_config *c)
{
    struct mount_op *op = add(b, OP_TMPFS, "/proc", "mode=0755");
    if (op)
        op->attrs = MS_NOSUID | MS_NODEV;
    set_aside(b, c);
    static const char *const scratch[][2] = {{"/proc/tmp", "/tmp"}, {"/proc/shm", "/dev/shm"}};
    for (size_t i = 0; i < 2; i++) {
        op = add(b, OP_MKDIR, scratch[i][0], NULL);
        if (op)
            op->mode = 01777;
        add(b, OP_BIND, scratch[i][1], scratch[i][0]);
    }
    put_back(b, c);
    if (b->p->n)
        b->p->ops[b->p->n - 1].mark_after = MARK_SCRATCH;
    op = add(b, OP_PROC, "/proc", NULL);
    if (op)
        op->attrs = MS_NOSUID | MS_NODEV | MS_NOEXEC;
    for (size_t i = 0; i < sizeof proc_read_only / sizeof *proc_read_only; i++)
        read_only_in_place(b, proc_read_only[i]);
    if (b->p->n)
        b->p->ops[b->p->n - 1].mark_after = MARK_PROC;
    for (size_t i = 0; c->tmpfs && c->tmpfs[i]; i++) {
        op = add(b, OP_TMPFS, c->tmpfs[i], "mode=0755");
        if (op)
            op->attrs = MS_NOSUID | MS_NODEV;
    }
    add(b, OP_CHDIR, c->chdir ? c->chdir : "/", NULL);
}

int plan_build(struct mount_plan *template, struct mount_plan *run, const struct sbx_config *c,
               struct sbx_error *e)
{
    memset(template, 0, sizeof *template);
    memset(run, 0, sizeof *run);
    struct builder b = {template, NULL, e, 0};
    new_root(&b);
    for (size_t i = 0; i < sizeof system_dirs / sizeof *system_dirs; i++)
        system_dir(&b, system_dirs[i]);
    minimal_dev(&b);
    make_dir(&b, "/tmp");
    make_dir(&b, "/proc");
    for (size_t i = 0; i < c->n_binds; i++)
        user_bind(&b, &c->binds[i]);
    for (size_t i = 0; c->tmpfs && c->tmpfs[i]; i++)
        make_dir(&b, c->tmpfs[i]);
    /* The template's own /proc, of its own pid namespace: the kernel lets a user namespace mount a
     * proc only where one is already fully visible, and the runs' mounts copy this one (covered by
     * theirs, and locked). */
    struct mount_op *op = add(&b, OP_PROC, "/proc", NULL);
    if (op)
        op->attrs = MS_NOSUID | MS_NODEV | MS_NOEXEC;
    add(&b, OP_DETACH, OLD_ROOT, NULL);
    op = add(&b, OP_SETATTR, "/", NULL);
    if (op)
        op->attrs = MOUNT_ATTR_RDONLY;
    b.p = run;
    per_run(&b, c);
    vec_free(b.made);
    if (b.rc < 0) {
        plan_free(template);
        plan_free(run);
    }
    return b.rc;
}

void plan_free(struct mount_plan *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->ops[i].path);
        free(p->ops[i].data);
    }
    free(p->ops);
    memset(p, 0, sizeof *p);
}
