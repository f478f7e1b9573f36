/* libsbx internals: the prepared sandbox and the pieces that build and run it.
 *
 * Two sides. The prepare side (plan.c, policy.c, filter.c, privs.c, launch.c's sbx_prepare) runs in
 * the caller and may allocate. The child side (the functions named child_*) runs in the vfork-style
 * child on the caller's memory: it must not allocate, take locks or write anything but the struct
 * sbx_run of the current spawn, and it reports a failure with child_fail. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/capability.h>

#include "sandbox/sbx.h"

/* Internal helpers return -1 with e filled, like the public ones. */
int sbx_err(struct sbx_error *e, const char *step, const char *object, int errnum);
int sbx_errf(struct sbx_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "<step>: new namespaces: <strerror>; <what is likely wrong>", for a clone that made none. */
void sbx_explain_clone(struct sbx_error *e, const char *step, int err);

/* NULL-terminated string vectors. */
size_t vec_len(char *const *v);
int vec_push(char ***v, const char *s);
char **vec_dup(char *const *v);
void vec_free(char **v);

/* ---- the mount plan: a flat list of operations the child runs in order ---- */
enum mount_op_kind {
    OP_TMPFS,   /* mount a tmpfs on path; data: its options */
    OP_MKDIR,   /* mkdir path (an existing one is fine) */
    OP_MKFILE,  /* an empty file at path, to bind a file onto */
    OP_SYMLINK, /* symlink data -> path */
    OP_PIVOT,   /* pivot_root(path, path/.oldroot), then chdir / */
    OP_BIND,    /* bind (recursively) data onto path */
    OP_SETATTR, /* mount_setattr(path, attrs), recursively if recursive */
    OP_PROC,    /* a new proc on path */
    OP_DETACH,  /* umount2(path, MNT_DETACH) then rmdir(path) */
    OP_CHDIR,   /* chdir path */
};

struct mount_op {
    enum mount_op_kind kind;
    char *path;
    char *data;
    uint64_t attrs; /* MOUNT_ATTR_* for OP_SETATTR; mount flags for OP_TMPFS and OP_PROC */
    unsigned mode;  /* OP_MKDIR: the directory's mode */
    bool recursive;
    bool optional;  /* a missing path (ENOENT) is skipped, e.g. /proc/bus on kernels without it */
    int mark_after; /* the timing mark this operation completes, or 0 */
};

struct mount_plan {
    struct mount_op *ops;
    size_t n, cap;
};

/* Builds the plans for c (plan.c explains the two); checks every bind source. */
int plan_build(struct mount_plan *template, struct mount_plan *run, const struct sbx_config *c,
               struct sbx_error *e);
void plan_free(struct mount_plan *p);

/* ---- seccomp: a policy (text) compiled once into a BPF program the child loads ---- */
struct policy_rule {
    char *syscall;
    int action; /* POLICY_ALLOW, POLICY_ERRNO, POLICY_KILL */
    int errnum; /* for POLICY_ERRNO */
    /* Argument conditions, all of which must hold: (arg[index] & mask) op value. */
    struct policy_cond {
        unsigned index;
        uint64_t mask, value;
        bool not_equal;
    } conds[6];
    size_t n_conds;
};

enum { POLICY_ALLOW, POLICY_ERRNO, POLICY_KILL };

struct policy {
    int default_action;
    int default_errnum;
    struct policy_rule *rules;
    size_t n_rules;
};

/* The built-in policy, in the text form policy_parse reads. */
extern const char sbx_default_policy[];

/* Parses a policy text; name is the file name for messages ("line 3: ..."). */
int policy_parse(struct policy *p, const char *text, const char *name, struct sbx_error *e);
void policy_free(struct policy *p);
int policy_errno_from_name(const char *name); /* "EPERM" -> 1, "13" -> 13; -1 if unknown */
const char *policy_errno_name(int errnum);    /* 1 -> "EPERM"; NULL if not a known name */

/* Compiles p with libseccomp for this machine's architectures and exports the BPF program. */
int filter_build(const struct policy *p, struct sock_fprog *out, struct sbx_error *e);
void filter_free(struct sock_fprog *f);

/* ---- what one spawn leaves for its caller to read, written by the child ---- */
enum mark {
    MARK_CLONE,    /* the caller, just before clone */
    MARK_TEMPLATE, /* filesystem layers: the launcher's child has joined the template */
    MARK_CHILD,    /* the sandbox's pid 1: its first instruction (every namespace made) */
    MARK_UNSHARE,  /* the time namespace made */
    MARK_MAPS,     /* uid/gid maps written */
    MARK_UTS,      /* hostname set, lo up */
    MARK_SCRATCH,  /* /tmp and /dev/shm */
    MARK_PROC,     /* /proc and its read-only parts */
    MARK_MOUNTS,   /* --tmpfs, chdir */
    MARK_PRIVS,    /* full layer: capabilities dropped, no_new_privs */
    MARK_SECCOMP,  /* full layer: filter loaded */
    MARK_FORK,     /* full layer: the command's process started */
    MARK_EXEC,     /* just before execve of the command */
    MARK_INIT,     /* full layer: the command is running, pid 1 turns into the init */
    MARK_RETURNED, /* the caller, when clone returned */
    N_MARKS,
};

struct sbx_run {
    struct sbx_stdio io;
    double mark[N_MARKS];
    pid_t command_pid;   /* full layer: the command, as the sandbox's pid namespace numbers it */
    volatile pid_t pid1; /* filesystem layers: the sandbox's pid 1, as the caller numbers it */
    volatile int clone_errno; /* filesystem layers: why the sandbox could not be cloned */
    volatile int exec_failed; /* the exit code the command's process gave up with, else 0 */
};

/* The status the init writes for the caller (fd 3 of the init, a memfd the caller has mapped). */
struct init_report {
    uint32_t magic;
    int32_t status;
};
#define INIT_REPORT_MAGIC 0x53425831u /* "SBX1" */

/* Three stacks: the launcher's child that joins the template, the sandbox's pid 1, the command. */
enum { SBX_STACK_SIZE = 256 * 1024, SBX_GUARD_SIZE = 4096, SBX_STACKS = 3 };

struct sbx {
    enum sbx_layer layer;
    unsigned long clone_flags; /* every namespace but time, which clone() cannot name */
    bool unshare_time;         /* the time namespace: unshare()d by pid 1, entered at execve */
    bool new_process_group;
    bool share_net;
    char uid_map[40], gid_map[40];
    char *hostname;
    char *chdir; /* namespace layer only; the others chdir in the plan */
    const char *program;
    struct mount_plan template_plan;       /* run once, by sbx_prepare */
    struct mount_plan run_plan;            /* run by every sandbox */
    int template_user_fd, template_mnt_fd; /* filesystem layers: the namespaces runs copy */
    int proc_fd; /* the caller's /proc, where the children write their maps */

    char **argv;
    char **envp;
    char **candidates; /* where argv[0] may be, in PATH order */

    bool has_filter;
    struct sock_fprog filter;
    cap_t caps; /* the capabilities the command keeps (empty unless --cap-add) */
    cap_value_t last_cap;
    uint64_t keep_caps; /* bit per capability kept in the bounding and ambient sets */

    int init_fd;   /* full layer: the embedded init, as an executable memfd */
    int report_fd; /* full layer: where the init reports */
    struct init_report *report;

    char *stacks; /* SBX_STACKS child stacks, each with a guard page */
    size_t stack_size;
    struct sbx_run run;
};

/* Child side. Each returns only on success; failures end the child via child_fail. */
_Noreturn void child_fail(struct sbx *s, const char *step, const char *object, int errnum);
void child_write_maps(struct sbx *s);
void write_setgroups_deny(struct sbx *s);
void child_set_hostname(struct sbx *s);
/* Brings lo up in the caller's network namespace; 0, or -1 with *step and errno set. */
int child_loopback_up(const char **step);
void child_run_plan(struct sbx *s, const struct mount_plan *p);
/* Builds the template namespaces (sbx_prepare). */
int template_create(struct sbx *s, struct sbx_error *e);
void child_drop_privileges(struct sbx *s);
void child_load_filter(struct sbx *s);
double sbx_now(void);

/* Prepare side of the privileges: which capabilities to keep. */
int privs_prepare(struct sbx *s, char *const cap_add[], struct sbx_error *e);

/* The embedded init (generated at build time from sandbox/init.c). */
extern const unsigned char sbx_init_image[];
extern const size_t sbx_init_image_size;
