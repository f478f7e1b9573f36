/* Input files shown one by one (docs/scaling.md): the configuration's side, and the detached
 * source tree of the methods that stage the inputs at each run.
 *
 * The per-file method binds each input once, in the template (plan.c), and each run copies those
 * mounts with the rest of the template's namespace: the kernel copies them without a path lookup or
 * a syscall per input. The other methods stage the inputs again in every run, the way a launcher
 * that keeps nothing between sandboxes must. They need the inputs' root where a run can reach it
 * and the command cannot: a detached mount tree, held by a descriptor that the command never gets
 * (the sandbox closes every descriptor above 2 before it executes the command). A helper process in
 * user and mount namespaces of its own builds it, so that no privilege is needed; Linux 6.15 and
 * later let another namespace bind from and clone such a tree (older kernels refuse, and a run's
 * error says where). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/internal.h"

static const char *const staging_names[] = {
    [SBX_STAGE_PER_FILE] = "per-file",   [SBX_STAGE_BIND_EACH] = "bind-each",
    [SBX_STAGE_OPEN_TREE] = "open-tree", [SBX_STAGE_SYMLINKS] = "symlinks",
    [SBX_STAGE_OVERLAY] = "overlay",
};

const char *sbx_staging_name(enum sbx_staging how)
{
    return (unsigned)how <= SBX_STAGE_OVERLAY ? staging_names[how] : "?";
}

int sbx_staging_from_name(const char *name)
{
    for (int s = SBX_STAGE_PER_FILE; s <= SBX_STAGE_OVERLAY; s++)
        if (strcmp(staging_names[s], name) == 0)
            return s;
    return -1;
}

/* A relative path with no "." or ".." components, no empty ones and no leading or trailing slash.
 */
static bool plain_relative(const char *rel)
{
    if (!rel[0] || rel[0] == '/')
        return false;
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        p += n;
        if (*p == '/' && !*++p)
            return false;
    }
    return true;
}

int sbx_config_input(struct sbx_config *c, const char *rel, struct sbx_error *e)
{
    if (!plain_relative(rel))
        return sbx_errf(e, "--input: '%s': must be a relative path without '.' or '..'", rel);
    struct sbx_inputs *in = &c->inputs;
    if (in->n == in->cap) {
        size_t cap = in->cap ? 2 * in->cap : 64;
        char **grown = realloc(in->files, (cap + 1) * sizeof *grown);
        if (!grown)
            return sbx_err(e, "--input", rel, ENOMEM);
        in->files = grown;
        in->cap = cap;
    }
    if (!(in->files[in->n] = strdup(rel)))
        return sbx_err(e, "--input", rel, ENOMEM);
    in->files[++in->n] = NULL;
    return 0;
}

/* One relative path a line; blank lines are skipped. */
int sbx_config_inputs_from(struct sbx_config *c, const char *list, struct sbx_error *e)
{
    FILE *f = fopen(list, "re");
    if (!f)
        return sbx_err(e, "--inputs-from", list, errno);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len > 0)
            rc = sbx_config_input(c, line, e);
    }
    if (rc == 0 && ferror(f))
        rc = sbx_err(e, "--inputs-from", list, EIO);
    free(line);
    fclose(f);
    if (rc == 0)
        rc = sbx_config_string(&c->inputs.from, list, e);
    return rc;
}

/* ---- the inputs' directories ---- */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every directory above an input, relative, once each, each after its parent (sorted: a parent is a
 * prefix of its children, so it sorts first); NULL-terminated, caller frees with vec_free. */
char **inputs_dirs(char *const *files, struct sbx_error *e)
{
    size_t n = 0, cap = 0;
    char **all = NULL;
    for (size_t i = 0; files && files[i]; i++) {
        for (const char *slash = strchr(files[i], '/'); slash; slash = strchr(slash + 1, '/')) {
            if (n + 1 >= cap) {
                cap = cap ? 2 * cap : 256;
                char **grown = realloc(all, cap * sizeof *grown);
                if (!grown)
                    goto oom;
                all = grown;
            }
            if (!(all[n] = strndup(files[i], (size_t)(slash - files[i]))))
                goto oom;
            n++;
        }
    }
    if (!all && !(all = calloc(1, sizeof *all)))
        goto oom;
    qsort(all, n, sizeof *all, compare_strings);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (kept > 0 && strcmp(all[kept - 1], all[i]) == 0)
            free(all[i]);
        else
            all[kept++] = all[i];
    }
    all[kept] = NULL;
    return all;
oom:
    for (size_t i = 0; i < n; i++)
        free(all[i]);
    free(all);
    sbx_err(e, "inputs", NULL, ENOMEM);
    return NULL;
}

/* ---- the source tree ---- */

bool inputs_need_source(const struct sbx_inputs *in)
{
    return in->root && (in->how == SBX_STAGE_BIND_EACH || in->how == SBX_STAGE_OPEN_TREE);
}

/* What the helper sends back when it fails. */
struct tree_failure {
    int errnum;
    char step[64];
    char object[PATH_MAX + 8];
};

static int write_proc_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n < 0 ? -1 : 0;
}

static _Noreturn void helper_fail(int sock, const char *step, const char *object)
{
    struct tree_failure f = {.errnum = errno};
    snprintf(f.step, sizeof f.step, "%s", step);
    snprintf(f.object, sizeof f.object, "%s", object ? object : "");
    if (send(sock, &f, sizeof f, MSG_NOSIGNAL) < 0) {
        /* The caller sees the helper end without an answer. */
    }
    _exit(1);
}

static int send_fd(int sock, int fd)
{
    char byte = 0;
    struct iovec iov = {&byte, 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(h), &fd, sizeof fd);
    return sendmsg(sock, &m, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* Binds host directory dir at name in the detached tree. */
static void attach(int sock, int tree, const char *name, const char *dir)
{
    if (mkdirat(tree, name, 0755) < 0)
        helper_fail(sock, "mkdir", name);
    int one = open_tree(AT_FDCWD, dir, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (one < 0)
        helper_fail(sock, "open_tree", dir);
    if (move_mount(one, "", tree, name, MOVE_MOUNT_F_EMPTY_PATH) < 0)
        helper_fail(sock, "move_mount onto a detached tree (Linux 6.15 or later)", dir);
    close(one);
}

/* In the helper: namespaces of its own, a detached tmpfs, the directories bound into it, all
 * read-only; the tree goes back to the caller as a descriptor. */
static _Noreturn void build_source(int sock, const struct sbx_inputs *in)
{
    char map[64];
    unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
        helper_fail(sock, "unshare", "user and mount namespaces");
    snprintf(map, sizeof map, "%u %u 1", uid, uid);
    if (write_proc_file("/proc/self/setgroups", "deny") < 0 ||
        write_proc_file("/proc/self/uid_map", map) < 0)
        helper_fail(sock, "write", "/proc/self/uid_map");
    snprintf(map, sizeof map, "%u %u 1", gid, gid);
    if (write_proc_file("/proc/self/gid_map", map) < 0)
        helper_fail(sock, "write", "/proc/self/gid_map");
    int fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
    if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0 ||
        fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
        helper_fail(sock, "fsopen", "tmpfs");
    int tree = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
    if (tree < 0)
        helper_fail(sock, "fsmount", "tmpfs");
    attach(sock, tree, "src", in->root);
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
    if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0)
        helper_fail(sock, "mount_setattr", "the inputs' source tree");
    if (send_fd(sock, tree) < 0)
        helper_fail(sock, "send", "the inputs' source tree");
    _exit(0);
}

static int receive(int sock, int *fd, struct tree_failure *f)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {f, sizeof *f};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    ssize_t n;
    do
        n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    struct cmsghdr *h = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
    if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
        memcpy(fd, CMSG_DATA(h), sizeof *fd);
        return 0;
    }
    return n == (ssize_t)sizeof *f ? 1 : -1;
}

int inputs_source_tree(const struct sbx_inputs *in, int *out, struct sbx_error *e)
{
    int sv[2];
    *out = -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return sbx_err(e, "inputs: source tree", "socketpair", errno);
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(sv[0]);
        close(sv[1]);
        return sbx_err(e, "inputs: source tree", "fork", err);
    }
    if (pid == 0) {
        close(sv[0]);
        build_source(sv[1], in);
    }
    close(sv[1]);
    struct tree_failure f = {0};
    int rc = receive(sv[0], out, &f);
    close(sv[0]);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (rc == 0)
        return 0;
    if (rc > 0) {
        char step[96];
        snprintf(step, sizeof step, "inputs: source tree: %s", f.step);
        return sbx_err(e, step, f.object[0] ? f.object : NULL, f.errnum);
    }
    return sbx_errf(e, "inputs: source tree: the helper building it ended without an answer");
}
