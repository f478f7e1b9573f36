/* Preparing a sandbox once: everything a spawn needs, worked out before the first one. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

/* The environment a command gets unless told otherwise: small and the same everywhere. */
static const char *const default_env[] = {
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME=/tmp",
    "LANG=C.UTF-8",
    NULL,
};

static int build_env(struct sbx *s, const struct sbx_config *c, struct sbx_error *e)
{
    s->envp = c->clearenv ? calloc(1, sizeof *s->envp) : vec_dup((char *const *)default_env);
    if (!s->envp)
        return sbx_err(e, "environment", NULL, ENOMEM);
    for (size_t i = 0; c->setenv && c->setenv[i]; i++) {
        const char *kv = c->setenv[i];
        size_t key_len = strcspn(kv, "=") + 1;
        size_t j = 0;
        while (s->envp[j] && strncmp(s->envp[j], kv, key_len) != 0)
            j++;
        if (s->envp[j]) {
            char *copy = strdup(kv);
            if (!copy)
                return sbx_err(e, "environment", kv, ENOMEM);
            free(s->envp[j]);
            s->envp[j] = copy;
        } else if (vec_push(&s->envp, kv) < 0) {
            return sbx_err(e, "environment", kv, ENOMEM);
        }
    }
    return 0;
}

/* Where argv[0] may be inside the sandbox: itself if it has a slash, else each directory of the
 * sandbox's PATH (execvp's default when it has none). */
static int build_candidates(struct sbx *s, struct sbx_error *e)
{
    const char *name = s->argv[0];
    s->candidates = calloc(1, sizeof *s->candidates);
    if (!s->candidates)
        return sbx_err(e, "command", name, ENOMEM);
    if (strchr(name, '/'))
        return vec_push(&s->candidates, name) < 0 ? sbx_err(e, "command", name, ENOMEM) : 0;
    const char *path = "/bin:/usr/bin";
    for (size_t i = 0; s->envp[i]; i++)
        if (strncmp(s->envp[i], "PATH=", 5) == 0)
            path = s->envp[i] + 5;
    for (const char *dir = path;; dir += strcspn(dir, ":") + 1) {
        size_t len = strcspn(dir, ":");
        char *candidate = NULL;
        if (asprintf(&candidate, "%.*s/%s", (int)(len ? len : 1), len ? dir : ".", name) < 0 ||
            vec_push(&s->candidates, candidate) < 0) {
            free(candidate);
            return sbx_err(e, "command", name, ENOMEM);
        }
        free(candidate);
        if (!dir[len])
            break;
    }
    return 0;
}

static char *read_policy_file(const char *path, struct sbx_error *e)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        sbx_err(e, "seccomp", path, errno);
        return NULL;
    }
    enum { MAX_POLICY = 1 << 20 };
    char *text = malloc(MAX_POLICY + 1);
    size_t n = text ? fread(text, 1, MAX_POLICY + 1, f) : 0;
    int failed = !text ? ENOMEM : ferror(f) ? EIO : n > MAX_POLICY ? EFBIG : 0;
    fclose(f);
    if (failed || memchr(text, '\0', n)) {
        sbx_err(e, "seccomp", path, failed ? failed : EINVAL);
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

static int prepare_filter(struct sbx *s, const char *seccomp, struct sbx_error *e)
{
    if (seccomp && strcmp(seccomp, "none") == 0)
        return 0;
    bool builtin = !seccomp || strcmp(seccomp, "default") == 0;
    char *text = builtin ? NULL : read_policy_file(seccomp, e);
    if (!builtin && !text)
        return -1;
    struct policy policy;
    int rc = policy_parse(&policy, builtin ? sbx_default_policy : text,
                          builtin ? "default" : seccomp, e);
    free(text);
    if (rc < 0)
        return -1;
    rc = filter_build(&policy, &s->filter, e);
    policy_free(&policy);
    s->has_filter = rc == 0;
    return rc;
}

static int sealed_memfd(const char *name, const void *data, size_t size, bool exec,
                        struct sbx_error *e)
{
    unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
    int fd = memfd_create(name, flags | (exec ? MFD_EXEC : 0));
    if (fd < 0 && errno == EINVAL && exec) /* kernels before 6.3 know no MFD_EXEC */
        fd = memfd_create(name, flags);
    if (fd < 0)
        return sbx_err(e, "memfd_create", name, errno);
    const char *p = data;
    for (size_t left = size; left > 0;) {
        ssize_t n = write(fd, p, left);
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            close(fd);
            return sbx_err(e, "memfd write", name, err);
        }
        p += n;
        left -= (size_t)n;
    }
    return fd;
}

/* The init as an executable memfd nobody can change, and the page it reports through. */
static int prepare_init(struct sbx *s, struct sbx_error *e)
{
    s->init_fd = sealed_memfd("sbx-init", sbx_init_image, sbx_init_image_size, true, e);
    if (s->init_fd < 0)
        return -1;
    if (fcntl(s->init_fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) <
        0)
        return sbx_err(e, "memfd seal", "sbx-init", errno);
    /* Executable but not readable: a process that cannot read its own binary is not dumpable. */
    if (fchmod(s->init_fd, 0111) < 0)
        return sbx_err(e, "fchmod", "sbx-init", errno);
    s->report_fd = memfd_create("sbx-report", MFD_CLOEXEC);
    if (s->report_fd < 0)
        return sbx_err(e, "memfd_create", "sbx-report", errno);
    if (ftruncate(s->report_fd, (off_t)sizeof *s->report) < 0)
        return sbx_err(e, "ftruncate", "sbx-report", errno);
    void *map = mmap(NULL, sizeof *s->report, PROT_READ | PROT_WRITE, MAP_SHARED, s->report_fd, 0);
    if (map == MAP_FAILED)
        return sbx_err(e, "mmap", "sbx-report", errno);
    s->report = map;
    return 0;
}

static int prepare_stacks(struct sbx *s, struct sbx_error *e)
{
    s->stack_size = SBX_STACK_SIZE;
    size_t total = SBX_STACKS * (SBX_GUARD_SIZE + s->stack_size);
    void *map = mmap(NULL, total, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED)
        return sbx_err(e, "mmap", "stacks", errno);
    s->stacks = map;
    for (int i = 0; i < SBX_STACKS; i++)
        if (mprotect(s->stacks + (size_t)i * (SBX_GUARD_SIZE + s->stack_size), SBX_GUARD_SIZE,
                     PROT_NONE) < 0)
            return sbx_err(e, "mprotect", "stack guard", errno);
    return 0;
}

static unsigned long clone_flags(const struct sbx_config *c)
{
    unsigned long flags = CLONE_VM | CLONE_VFORK | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS |
                          CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
    return c->share_net ? flags : flags | CLONE_NEWNET;
}

int sbx_prepare(const struct sbx_config *c, struct sbx **out, struct sbx_error *e)
{
    *out = NULL;
    if (!c->argv || !c->argv[0] || !c->argv[0][0])
        return sbx_errf(e, "no command given");
    struct sbx *s = calloc(1, sizeof *s);
    if (!s)
        return sbx_err(e, "prepare", NULL, ENOMEM);
    s->init_fd = s->report_fd = s->template_user_fd = s->template_mnt_fd = -1;
    s->proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (s->proc_fd < 0) {
        sbx_err(e, "open", "/proc", errno);
        sbx_free(s);
        return -1;
    }
    s->layer = c->layer;
    s->program = c->program ? c->program : "sbxbench";
    s->new_process_group = c->new_process_group;
    s->share_net = c->share_net;
    s->clone_flags = clone_flags(c);
    s->unshare_time = access("/proc/self/ns/time", F_OK) == 0;
    snprintf(s->uid_map, sizeof s->uid_map, "%u %u 1", (unsigned)geteuid(), (unsigned)geteuid());
    snprintf(s->gid_map, sizeof s->gid_map, "%u %u 1", (unsigned)getegid(), (unsigned)getegid());
    int rc = 0;
    if (!(s->hostname = strdup(c->hostname ? c->hostname : "sbx")) ||
        !(s->argv = vec_dup(c->argv)) || (c->chdir && !(s->chdir = strdup(c->chdir))))
        rc = sbx_err(e, "prepare", NULL, ENOMEM);
    if (rc == 0)
        rc = build_env(s, c, e);
    if (rc == 0)
        rc = build_candidates(s, e);
    if (rc == 0 && s->layer >= SBX_FILESYSTEM)
        rc = plan_build(&s->template_plan, &s->run_plan, c, e);
    if (rc == 0 && s->layer == SBX_FULL)
        rc = prepare_filter(s, c->seccomp, e);
    if (rc == 0 && s->layer == SBX_FULL)
        rc = privs_prepare(s, c->cap_add, e);
    if (rc == 0 && s->layer == SBX_FULL)
        rc = prepare_init(s, e);
    if (rc == 0)
        rc = prepare_stacks(s, e);
    if (rc == 0 && s->layer >= SBX_FILESYSTEM)
        rc = template_create(s, e);
    if (rc < 0) {
        sbx_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void sbx_free(struct sbx *s)
{
    if (!s)
        return;
    free(s->hostname);
    free(s->chdir);
    vec_free(s->argv);
    vec_free(s->envp);
    vec_free(s->candidates);
    plan_free(&s->template_plan);
    plan_free(&s->run_plan);
    if (s->proc_fd >= 0)
        close(s->proc_fd);
    if (s->template_user_fd >= 0)
        close(s->template_user_fd);
    if (s->template_mnt_fd >= 0)
        close(s->template_mnt_fd);
    filter_free(&s->filter);
    if (s->caps)
        cap_free(s->caps);
    if (s->report)
        munmap(s->report, sizeof *s->report);
    if (s->init_fd >= 0)
        close(s->init_fd);
    if (s->report_fd >= 0)
        close(s->report_fd);
    if (s->stacks)
        munmap(s->stacks, SBX_STACKS * (SBX_GUARD_SIZE + s->stack_size));
    free(s);
}

int sbx_exit_status(const struct sbx *s, int reaped_status)
{
    if (s->report && s->report->magic == INIT_REPORT_MAGIC)
        return s->report->status;
    return reaped_status;
}

size_t sbx_timings(const struct sbx *s, const char **names, double *seconds, size_t max)
{
    static const char *const step_names[N_MARKS] = {
        [MARK_TEMPLATE] = "join template",
        [MARK_CHILD] = "clone",
        [MARK_UNSHARE] = "time ns",
        [MARK_MAPS] = "maps",
        [MARK_UTS] = "hostname+lo",
        [MARK_SCRATCH] = "tmp+shm",
        [MARK_PROC] = "proc",
        [MARK_MOUNTS] = "tmpfs+chdir",
        [MARK_PRIVS] = "privileges",
        [MARK_SECCOMP] = "seccomp",
        [MARK_FORK] = "fork",
        [MARK_EXEC] = "pre-exec",
        [MARK_INIT] = "exec command",
        [MARK_RETURNED] = "exec",
    };
    size_t n = 0;
    double last = s->run.mark[MARK_CLONE];
    for (int m = MARK_CLONE + 1; m < N_MARKS && n < max; m++) {
        if (s->run.mark[m] == 0)
            continue;
        names[n] = m == MARK_RETURNED && s->layer == SBX_FULL ? "exec init" : step_names[m];
        seconds[n++] = s->run.mark[m] - last;
        last = s->run.mark[m];
    }
    return n;
}
