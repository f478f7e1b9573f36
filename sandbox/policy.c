/* Seccomp policies as text: the built-in default, and the parser for it and for --seccomp=FILE.
 *
 *   # a comment runs to the end of the line
 *   default allow                      (or: default kill, default deny ERRNO)
 *   deny EPERM mount umount2           a syscall fails with this errno (a name or a number)
 *   deny EPERM ioctl if arg1 & 0xffffffff == TIOCSTI
 *   kill kexec_load                    the process is killed with SIGSYS
 *   allow getpid                       (useful under default deny)
 *
 * A condition is "argN [& MASK] (==|!=) VALUE"; several are joined with "and" and all must hold.
 * Values are C integers or one of the few constant names in value_names below. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/internal.h"

/* Keep in step with the table in docs/sandbox.md; tests/sandbox checks one against the other. */
const char sbx_default_policy[] =
    "# sbxbench's default policy: everything a build action needs is allowed; what Docker's\n"
    "# default profile denies and a build never needs fails with the errno given.\n"
    "default allow\n"
    "\n"
    "# Mounts and the filesystem tree: the sandbox's mounts are final.\n"
    "deny EPERM mount umount umount2 pivot_root\n"
    "deny EPERM fsopen fsconfig fsmount fspick open_tree move_mount mount_setattr\n"
    "# Swap, reboot, kernels and modules.\n"
    "deny EPERM swapon swapoff reboot kexec_load kexec_file_load\n"
    "deny EPERM init_module finit_module delete_module create_module query_module get_kernel_syms\n"
    "# Kernel attack surface a compiler does not use.\n"
    "deny EPERM bpf userfaultfd perf_event_open\n"
    "deny EPERM keyctl add_key request_key\n"
    "deny EPERM open_by_handle_at name_to_handle_at\n"
    "deny ENOSYS io_uring_setup io_uring_enter io_uring_register\n"
    "# The clock, accounting, quotas, the kernel log.\n"
    "deny EPERM settimeofday clock_settime clock_adjtime adjtimex stime\n"
    "deny EPERM acct quotactl quotactl_fd syslog\n"
    "# Obsolete or hardware-level calls.\n"
    "deny EPERM uselib ustat sysfs _sysctl vm86 vm86old iopl ioperm lookup_dcookie nfsservctl\n"
    "deny EPERM fanotify_init vhangup\n"
    "# New namespaces: no nested sandboxes. clone3 reports ENOSYS so that libc falls back\n"
    "# to clone, whose flags a filter can see.\n"
    "deny EPERM unshare setns\n"
    "deny ENOSYS clone3\n"
    "deny EPERM clone if arg0 & CLONE_NEWNS == CLONE_NEWNS\n"
    "deny EPERM clone if arg0 & CLONE_NEWUTS == CLONE_NEWUTS\n"
    "deny EPERM clone if arg0 & CLONE_NEWIPC == CLONE_NEWIPC\n"
    "deny EPERM clone if arg0 & CLONE_NEWUSER == CLONE_NEWUSER\n"
    "deny EPERM clone if arg0 & CLONE_NEWPID == CLONE_NEWPID\n"
    "deny EPERM clone if arg0 & CLONE_NEWNET == CLONE_NEWNET\n"
    "deny EPERM clone if arg0 & CLONE_NEWCGROUP == CLONE_NEWCGROUP\n"
    "# Typing into the caller's terminal.\n"
    "deny EPERM ioctl if arg1 & 0xffffffff == TIOCSTI\n"
    "deny EPERM ioctl if arg1 & 0xffffffff == TIOCLINUX\n";

static const struct {
    const char *name;
    int value;
} errno_names[] = {
    {"EPERM", EPERM},
    {"ENOENT", ENOENT},
    {"ESRCH", ESRCH},
    {"EINTR", EINTR},
    {"EIO", EIO},
    {"ENXIO", ENXIO},
    {"E2BIG", E2BIG},
    {"ENOEXEC", ENOEXEC},
    {"EBADF", EBADF},
    {"ECHILD", ECHILD},
    {"EAGAIN", EAGAIN},
    {"ENOMEM", ENOMEM},
    {"EACCES", EACCES},
    {"EFAULT", EFAULT},
    {"EBUSY", EBUSY},
    {"EEXIST", EEXIST},
    {"EXDEV", EXDEV},
    {"ENODEV", ENODEV},
    {"ENOTDIR", ENOTDIR},
    {"EISDIR", EISDIR},
    {"EINVAL", EINVAL},
    {"ENFILE", ENFILE},
    {"EMFILE", EMFILE},
    {"ENOTTY", ENOTTY},
    {"EFBIG", EFBIG},
    {"ENOSPC", ENOSPC},
    {"ESPIPE", ESPIPE},
    {"EROFS", EROFS},
    {"EMLINK", EMLINK},
    {"EPIPE", EPIPE},
    {"ERANGE", ERANGE},
    {"ENOSYS", ENOSYS},
    {"ENOTSUP", ENOTSUP},
    {"EOPNOTSUPP", EOPNOTSUPP},
    {"EAFNOSUPPORT", EAFNOSUPPORT},
    {"ENETUNREACH", ENETUNREACH},
    {"ECONNREFUSED", ECONNREFUSED},
    {"ETIMEDOUT", ETIMEDOUT},
};

static const struct {
    const char *name;
    unsigned long long value;
} value_names[] = {
    {"CLONE_NEWNS", 0x00020000},     {"CLONE_NEWUTS", 0x04000000}, {"CLONE_NEWIPC", 0x08000000},
    {"CLONE_NEWUSER", 0x10000000},   {"CLONE_NEWPID", 0x20000000}, {"CLONE_NEWNET", 0x40000000},
    {"CLONE_NEWCGROUP", 0x02000000}, {"TIOCSTI", 0x5412},          {"TIOCLINUX", 0x541C},
};

int policy_errno_from_name(const char *name)
{
    for (size_t i = 0; i < sizeof errno_names / sizeof *errno_names; i++)
        if (strcmp(errno_names[i].name, name) == 0)
            return errno_names[i].value;
    char *end = NULL;
    long n = strtol(name, &end, 10);
    if (end == name || *end || n < 1 || n > 4095)
        return -1;
    return (int)n;
}

const char *policy_errno_name(int errnum)
{
    for (size_t i = 0; i < sizeof errno_names / sizeof *errno_names; i++)
        if (errno_names[i].value == errnum)
            return errno_names[i].name;
    return NULL;
}

static bool parse_value(const char *s, uint64_t *out)
{
    for (size_t i = 0; i < sizeof value_names / sizeof *value_names; i++) {
        if (strcmp(value_names[i].name, s) == 0) {
            *out = value_names[i].value;
            return true;
        }
    }
    if (!isdigit((unsigned char)s[0]))
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

void policy_free(struct policy *p)
{
    for (size_t i = 0; i < p->n_rules; i++)
        free(p->rules[i].syscall);
    free(p->rules);
    memset(p, 0, sizeof *p);
}

/* The words of one line, split in place. */
struct words {
    char *w[64];
    size_t n;
};

static bool split_words(char *line, struct words *ws)
{
    ws->n = 0;
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    for (char *save = NULL, *t = strtok_r(line, " \t\r", &save); t;
         t = strtok_r(NULL, " \t\r", &save)) {
        if (ws->n == sizeof ws->w / sizeof *ws->w)
            return false;
        ws->w[ws->n++] = t;
    }
    return true;
}

struct line_ctx {
    const char *name;
    int lineno;
    struct sbx_error *e;
};

static int line_error(const struct line_ctx *l, const char *what, const char *word)
{
    return sbx_errf(l->e, "seccomp: %s: line %d: %s%s%s", l->name, l->lineno, what,
                    word ? ": " : "", word ? word : "");
}

/* ACTION at ws->w[*i] (allow, kill, deny ERRNO); advances *i past it. */
static int parse_action(const struct line_ctx *l, const struct words *ws, size_t *i, int *action,
                        int *errnum)
{
    const char *a = ws->w[(*i)++];
    *errnum = 0;
    if (strcmp(a, "allow") == 0) {
        *action = POLICY_ALLOW;
    } else if (strcmp(a, "kill") == 0) {
        *action = POLICY_KILL;
    } else if (strcmp(a, "deny") == 0) {
        if (*i >= ws->n)
            return line_error(l, "deny needs an errno", NULL);
        *errnum = policy_errno_from_name(ws->w[*i]);
        if (*errnum < 0)
            return line_error(l, "unknown errno", ws->w[*i]);
        (*i)++;
        *action = POLICY_ERRNO;
    } else {
        return line_error(l, "expected default, allow, deny or kill", a);
    }
    return 0;
}

/* "argN [& MASK] (==|!=) VALUE" at ws->w[*i]. */
static int parse_condition(const struct line_ctx *l, const struct words *ws, size_t *i,
                           struct policy_cond *c)
{
    const char *arg = ws->w[*i];
    if (strncmp(arg, "arg", 3) != 0 || arg[3] < '0' || arg[3] > '5' || arg[4])
        return line_error(l, "expected arg0 to arg5", arg);
    c->index = (unsigned)(arg[3] - '0');
    c->mask = ~0ULL;
    (*i)++;
    if (*i + 1 < ws->n && strcmp(ws->w[*i], "&") == 0) {
        if (!parse_value(ws->w[*i + 1], &c->mask))
            return line_error(l, "bad mask", ws->w[*i + 1]);
        *i += 2;
    }
    if (*i + 1 >= ws->n)
        return line_error(l, "incomplete condition", arg);
    const char *op = ws->w[*i];
    if (strcmp(op, "==") != 0 && strcmp(op, "!=") != 0)
        return line_error(l, "expected == or !=", op);
    c->not_equal = op[0] == '!';
    if (c->not_equal && c->mask != ~0ULL)
        return line_error(l, "a masked condition can only be ==", op);
    if (!parse_value(ws->w[*i + 1], &c->value))
        return line_error(l, "bad value", ws->w[*i + 1]);
    *i += 2;
    return 0;
}

static int add_rule(struct policy *p, const struct policy_rule *r)
{
    struct policy_rule *grown = realloc(p->rules, (p->n_rules + 1) * sizeof *grown);
    if (!grown)
        return -1;
    p->rules = grown;
    p->rules[p->n_rules] = *r;
    p->rules[p->n_rules].syscall = strdup(r->syscall);
    if (!p->rules[p->n_rules].syscall)
        return -1;
    p->n_rules++;
    return 0;
}

static bool valid_syscall_name(const char *s)
{
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return false;
    return *s != '\0';
}

static int parse_line(struct policy *p, const struct line_ctx *l, const struct words *ws,
                      bool *saw_default)
{
    size_t i = 0;
    if (strcmp(ws->w[0], "default") == 0) {
        if (*saw_default)
            return line_error(l, "a second default", NULL);
        i = 1;
        if (i >= ws->n)
            return line_error(l, "default needs an action", NULL);
        if (parse_action(l, ws, &i, &p->default_action, &p->default_errnum) < 0)
            return -1;
        if (i != ws->n)
            return line_error(l, "unexpected word", ws->w[i]);
        *saw_default = true;
        return 0;
    }
    struct policy_rule r = {0};
    if (parse_action(l, ws, &i, &r.action, &r.errnum) < 0)
        return -1;
    size_t first = i;
    while (i < ws->n && strcmp(ws->w[i], "if") != 0)
        i++;
    size_t end_names = i;
    if (end_names == first)
        return line_error(l, "no syscall named", NULL);
    if (i < ws->n) {
        i++; /* "if" */
        for (;;) {
            if (i >= ws->n)
                return line_error(l, "a condition is missing after if/and", NULL);
            if (r.n_conds == sizeof r.conds / sizeof *r.conds)
                return line_error(l, "too many conditions", NULL);
            struct policy_cond *c = &r.conds[r.n_conds];
            if (parse_condition(l, ws, &i, c) < 0)
                return -1;
            for (size_t k = 0; k < r.n_conds; k++)
                if (r.conds[k].index == c->index)
                    return line_error(l, "one condition per argument", ws->w[i - 2]);
            r.n_conds++;
            if (i == ws->n)
                break;
            if (strcmp(ws->w[i], "and") != 0)
                return line_error(l, "expected 'and'", ws->w[i]);
            i++;
        }
    }
    for (size_t k = first; k < end_names; k++) {
        if (!valid_syscall_name(ws->w[k]))
            return line_error(l, "not a syscall name", ws->w[k]);
        r.syscall = ws->w[k];
        if (add_rule(p, &r) < 0)
            return sbx_err(l->e, "seccomp", l->name, ENOMEM);
    }
    return 0;
}

int policy_parse(struct policy *p, const char *text, const char *name, struct sbx_error *e)
{
    memset(p, 0, sizeof *p);
    p->default_action = POLICY_ALLOW;
    char *copy = strdup(text);
    if (!copy)
        return sbx_err(e, "seccomp", name, ENOMEM);
    bool saw_default = false;
    struct line_ctx l = {name, 0, e};
    int rc = 0;
    for (char *line = copy, *next; line && rc == 0; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        l.lineno++;
        struct words ws;
        if (!split_words(line, &ws)) {
            rc = line_error(&l, "too many words", NULL);
            break;
        }
        if (ws.n)
            rc = parse_line(p, &l, &ws, &saw_default);
    }
    free(copy);
    if (rc == 0 && !saw_default)
        rc =
            sbx_errf(e, "seccomp: %s: no 'default' line (default allow, kill or deny ERRNO)", name);
    if (rc < 0)
        policy_free(p);
    return rc;
}
