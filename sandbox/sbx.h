/* libsbx: an in-process sandbox launcher.
 *
 * A caller describes a sandbox once (struct sbx_config), prepares it once (sbx_prepare: the seccomp
 * program, the command's candidate paths and environment, and the sandbox's filesystem itself,
 * built in a template mount namespace), then spawns it as often as it likes (sbx_spawn), each time
 * in fresh namespaces. A spawn is a vfork-style clone: the child borrows the caller's memory and
 * runs on a stack of its own, the caller blocked, until it executes the command (or the sandbox's
 * init), so no page table is copied and nothing is allocated on the per-run path.
 *
 * The library knows nothing of sbxbench's harness; it needs libcap and libseccomp. Not thread-safe:
 * one thread spawns from a given struct sbx at a time, and the command's exit status
 * (sbx_exit_status) is that of the most recent spawn. The sandbox is killed (PR_SET_PDEATHSIG) when
 * the thread that spawned it exits. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How much of the sandbox to build; each layer includes the ones before it. */
enum sbx_layer {
    SBX_NAMESPACES, /* new user, mount, pid, ipc, uts, net, cgroup, time namespaces; the command is
                       pid 1 */
    SBX_FILESYSTEM, /* + hostname, lo up, fresh tmpfs root, binds, /proc, /dev, /tmp, pivot_root */
    SBX_FULL,       /* + capabilities dropped, no_new_privs, seccomp, and an init as pid 1 */
};

struct sbx_bind {
    char *src, *dst; /* dst: where it appears in the sandbox; src when not given */
    bool rw;
};

/* Everything a sandbox is, as the options of `sbxbench exec` spell it. Fill it with sbx_config_init
 * and the sbx_config_* setters (or sbx_parse_args) and release it with sbx_config_free. */
struct sbx_config {
    enum sbx_layer layer;
    struct sbx_bind *binds; /* in the order given; later ones mount over earlier ones */
    size_t n_binds;
    char **tmpfs;   /* NULL-terminated: directories that get an empty tmpfs */
    char *chdir;    /* the command's working directory; NULL: / */
    bool clearenv;  /* start from an empty environment instead of the small default one */
    char **setenv;  /* NULL-terminated "KEY=VALUE", applied in order */
    char *hostname; /* NULL: "sbx" */
    bool share_net; /* keep the host's network namespace */
    char **cap_add; /* NULL-terminated capability names kept, e.g. "cap_net_raw" */
    char *seccomp;  /* "none", "default" or a policy file; NULL: "default" */
    double timeout; /* seconds, for callers that wait (sbxbench exec); 0: none */
    char **argv;    /* the command; argv[0] without a slash is looked up in the sandbox's PATH */

    /* Not options: how the launcher behaves towards its caller. */
    bool new_process_group; /* the sandbox gets its own process group (a benchmark); else the
                               caller's */
    const char *program;    /* prefix of the messages the sandbox itself prints; NULL: "sbxbench" */
};

/* A message "sandbox: <step>: <object>: <strerror>", for the caller to prefix with its name. */
struct sbx_error {
    char msg[1024];
};

/* Exit statuses of a sandbox that did not get as far as running the command, as shells use them. */
#define SBX_EXIT_SETUP 125 /* a sandbox step failed; its message is on the sandbox's stderr */
#define SBX_EXIT_NOT_EXECUTABLE 126
#define SBX_EXIT_NOT_FOUND 127

void sbx_config_init(struct sbx_config *c);
void sbx_config_free(struct sbx_config *c);
/* The setters copy their arguments; each returns 0, or -1 with e filled (bad value, no memory). */
int sbx_config_bind(struct sbx_config *c, const char *spec, bool rw,
                    struct sbx_error *e); /* SRC[:DST] */
int sbx_config_add_bind(struct sbx_config *c, const char *src, const char *dst, bool rw,
                        struct sbx_error *e); /* dst NULL: src */
int sbx_config_tmpfs(struct sbx_config *c, const char *dst, struct sbx_error *e);
int sbx_config_setenv(struct sbx_config *c, const char *assignment, struct sbx_error *e); /* K=V */
int sbx_config_cap_add(struct sbx_config *c, const char *name, struct sbx_error *e);
int sbx_config_string(char **field, const char *value,
                      struct sbx_error *e); /* chdir, hostname, ... */
int sbx_config_command(struct sbx_config *c, char *const argv[], struct sbx_error *e);

/* Parses sandbox options (--bind, --ro-bind, --tmpfs, --chdir, --setenv, --clearenv, --hostname,
 * --share-net, --cap-add, --seccomp, --timeout, --mechanism) at argv[*i]. Returns 1 when it
 * consumed one (and its value; *i then points past them), 0 when argv[*i] is not one of its options
 * ("--", the command, an option of the caller's), -1 with e filled on a bad value. */
int sbx_parse_option(struct sbx_config *c, int argc, char **argv, int *i, struct sbx_error *e);

/* The options that rebuild c, as `sbxbench exec` takes them (without the command); NULL-terminated,
 * caller frees each string and the vector; NULL when out of memory. */
char **sbx_config_format(const struct sbx_config *c);

/* The layer a mechanism name stands for ("inproc", "inproc-fs", "inproc-ns"); -1 if none. */
int sbx_layer_from_name(const char *name);
const char *sbx_layer_name(enum sbx_layer layer);

/* The prepared sandbox: everything that can be computed once. */
struct sbx;

/* Checks c and builds what every run shares: the template filesystem, the seccomp program. -1 with
 * e filled when something is wrong (a bind source that does not exist, an unreadable policy file, a
 * bad capability name, no user namespaces). c is not referenced afterwards. */
int sbx_prepare(const struct sbx_config *c, struct sbx **out, struct sbx_error *e);
void sbx_free(struct sbx *s);

struct sbx_stdio {
    int in, out, err;
};

/* Starts one sandbox running the command with io as its stdin/stdout/stderr, and returns the pid of
 * its pid 1, a child of the caller to wait for (a pidfd or waitpid), or -1 with errno set and e
 * filled when the sandbox could not even be created (clone failed: no user namespaces, say). When a
 * later step fails, the sandbox prints "<program>: sandbox: <step>: <object>: <strerror>" on its
 * stderr and exits with SBX_EXIT_SETUP; a command that cannot be run gives 126 or 127. Killing the
 * returned pid with SIGKILL kills the whole sandbox. */
pid_t sbx_spawn(struct sbx *s, const struct sbx_stdio *io, struct sbx_error *e);

/* The command's own wait status, given the status the caller reaped for the sandbox's pid 1: the
 * same status when the command was pid 1, else what the init reported (so a command killed by a
 * signal reads as killed by that signal, not as the init's exit code 128+N). */
int sbx_exit_status(const struct sbx *s, int reaped_status);

/* Where the most recent spawn spent its time, up to the moment sbx_spawn returned: each step's name
 * (static strings) and duration in seconds, in order. Returns the number of steps filled. */
size_t sbx_timings(const struct sbx *s, const char **names, double *seconds, size_t max);
