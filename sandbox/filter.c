/* A policy compiled to BPF once, with libseccomp, and loaded by the child with one syscall.
 *
 * libseccomp 2.5 (Debian 12) can only export to a file descriptor, so the program goes through a
 * memfd and is read back. The filter covers the native architecture and, on x86-64, the i386 one,
 * so that a 32-bit program meets the same rules instead of being killed outright. */
#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/internal.h"

static uint32_t to_scmp_action(int action, int errnum)
{
    switch (action) {
    case POLICY_KILL:
        return SCMP_ACT_KILL_PROCESS;
    case POLICY_ERRNO:
        return SCMP_ACT_ERRNO((uint32_t)errnum);
    case POLICY_ALLOW:
    default:
        return SCMP_ACT_ALLOW;
    }
}

static int add_rule(scmp_filter_ctx ctx, const struct policy *p, const struct policy_rule *r,
                    struct sbx_error *e)
{
    int nr = seccomp_syscall_resolve_name(r->syscall);
    if (nr == __NR_SCMP_ERROR)
        return sbx_errf(e, "seccomp: unknown syscall '%s'", r->syscall);
    uint32_t action = to_scmp_action(r->action, r->errnum);
    if (action == to_scmp_action(p->default_action, p->default_errnum))
        return 0; /* libseccomp refuses rules that repeat the default; they change nothing */
    struct scmp_arg_cmp cmp[6];
    for (size_t i = 0; i < r->n_conds; i++) {
        const struct policy_cond *c = &r->conds[i];
        if (c->not_equal)
            cmp[i] = SCMP_CMP(c->index, SCMP_CMP_NE, c->value);
        else if (c->mask != ~0ULL)
            cmp[i] = SCMP_CMP(c->index, SCMP_CMP_MASKED_EQ, c->mask, c->value);
        else
            cmp[i] = SCMP_CMP(c->index, SCMP_CMP_EQ, c->value);
    }
    int rc = seccomp_rule_add_array(ctx, action, nr, (unsigned)r->n_conds, cmp);
    /* A syscall this architecture does not have (stime on x86-64) is simply not there to deny. */
    if (rc == -EDOM || rc == -EOPNOTSUPP)
        return 0;
    if (rc < 0)
        return sbx_err(e, "seccomp: rule", r->syscall, -rc);
    return 0;
}

static int export_bpf(scmp_filter_ctx ctx, struct sock_fprog *out, struct sbx_error *e)
{
    int fd = memfd_create("sbx-seccomp", MFD_CLOEXEC);
    if (fd < 0)
        return sbx_err(e, "seccomp: memfd_create", NULL, errno);
    int rc = seccomp_export_bpf(ctx, fd);
    struct stat st;
    if (rc < 0 || fstat(fd, &st) < 0 || st.st_size <= 0 ||
        st.st_size % (off_t)sizeof(struct sock_filter) != 0) {
        close(fd);
        return sbx_err(e, "seccomp: export", NULL, rc < 0 ? -rc : EINVAL);
    }
    struct sock_filter *prog = malloc((size_t)st.st_size);
    ssize_t got = prog ? pread(fd, prog, (size_t)st.st_size, 0) : -1;
    close(fd);
    if (got != st.st_size) {
        free(prog);
        return sbx_err(e, "seccomp: export", NULL, prog ? EIO : ENOMEM);
    }
    out->filter = prog;
    out->len = (unsigned short)((size_t)st.st_size / sizeof *prog);
    return 0;
}

int filter_build(const struct policy *p, struct sock_fprog *out, struct sbx_error *e)
{
    memset(out, 0, sizeof *out);
    scmp_filter_ctx ctx = seccomp_init(to_scmp_action(p->default_action, p->default_errnum));
    if (!ctx)
        return sbx_err(e, "seccomp: init", NULL, ENOMEM);
    int rc = 0;
    if (seccomp_arch_native() == SCMP_ARCH_X86_64) {
        rc = seccomp_arch_add(ctx, SCMP_ARCH_X86);
        if (rc < 0 && rc != -EEXIST)
            rc = sbx_err(e, "seccomp: arch", "x86", -rc);
        else
            rc = 0;
    }
    /* no_new_privs is set by the child itself, before the capabilities go. A binary tree of
     * syscall numbers instead of a list: the kernel checks and compiles it at every load, and a
     * tree of the same rules takes a third of the time (and less on every syscall after). */
    if (rc == 0) {
        seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
        seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    }
    for (size_t i = 0; rc == 0 && i < p->n_rules; i++)
        rc = add_rule(ctx, p, &p->rules[i], e);
    if (rc == 0)
        rc = export_bpf(ctx, out, e);
    seccomp_release(ctx);
    return rc;
}

void filter_free(struct sock_fprog *f)
{
    free(f->filter);
    f->filter = NULL;
    f->len = 0;
}

void child_load_filter(struct sbx *s)
{
    if (!s->has_filter)
        return;
    if (syscall(SYS_seccomp, 1 /* SECCOMP_SET_MODE_FILTER */, 0, &s->filter) < 0)
        child_fail(s, "seccomp", NULL, errno);
}
