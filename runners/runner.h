/* runner: one sandboxing mechanism behind one small interface.
 *
 * The harness asks each runner whether it can run here, prepares it once per action (outside the timed
 * region: argv, images, filters), then calls spawn once per sample and reaps the pid it returns.
 * Adding a mechanism is one file in runners/ and one line in registry.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "runners/action.h"
#include "runners/errbuf.h"

enum spawn_method {
    SPAWN_POSIX_SPAWN, /* glibc's posix_spawn: clone(CLONE_VM | CLONE_VFORK), no page-table copy */
    SPAWN_FORK,        /* fork + exec, as most build tools written in C do it */
};

/* Mechanism settings from the command line; every runner reads the ones it cares about. */
struct runner_options {
    enum spawn_method spawn;
    int path_dirs;          /* process-path: non-existent directories put in front of PATH */
    const char *seccomp;    /* inproc: "none", "default" or a policy file */
    const char *staging;    /* how inputs are made visible: "root", "per-file", ... */
    const char *cache_dir;  /* where images, bundles and generated inputs live */
    double timeout;         /* seconds; runners that start daemons' work use it as their own bound */
};

/* One prepared (mechanism, action) pair. */
struct runner_job {
    const struct runner *runner;
    const struct runner_options *opts;
    const struct action *action;
    char **argv;       /* exactly what runs, as recorded in the results */
    const char *path;  /* what to exec: absolute, or a name looked up in PATH when use_path */
    char **envp;       /* NULL: the action's environment */
    bool use_path;
    void *priv;        /* the runner's own state */
    const char *note;  /* anything a reader of the results must know about how it ran; static */
    int pass_fd;       /* > 2: a descriptor the command inherits at that number; 0: none */
};

struct runner {
    const char *name;
    const char *summary;
    /* "process", "namespace" or "container": reports put containers on their own scale. */
    const char *family;
    /* The staging methods it has besides STAGING_ROOT (STAGING_BIT each); 0: root only. */
    unsigned stagings;
    /* Whether it can run here; if not, why, in a few words a user can act on. */
    bool (*available)(const struct runner_options *opts, char *why, size_t whylen);
    /* Builds job->argv and whatever the runner needs; -1 with eb filled on failure. */
    int (*prepare)(struct runner_job *job, struct errbuf *eb);
    /* Starts one sample in a new process group (or pid namespace) and returns its pid, or -1 with
     * errno set. Runs inside the timed region: do nothing here that prepare could have done. */
    pid_t (*spawn)(struct runner_job *job, const struct stdio_fds *fds);
    /* Optional: stop a sample that timed out or was interrupted. NULL: SIGKILL the process group. */
    void (*kill)(struct runner_job *job, pid_t pid);
    /* Optional: the action's own wait status, given the one reaped for the pid spawn returned; for a
     * sandbox whose init outlives the action and reports how it ended (pid 1 of a namespace cannot
     * die of most signals). NULL: the reaped status is the action's. */
    int (*exit_status)(struct runner_job *job, int reaped_status);
    /* Optional: after a sample, how long the mechanism's own steps took (names are static strings,
     * seconds), in order; returns how many it filled, at most max. NULL: no breakdown. */
    size_t (*steps)(struct runner_job *job, const char **names, double *seconds, size_t max);
    /* Optional: release what prepare made. job->argv and envp are freed by the harness. */
    void (*cleanup)(struct runner_job *job);
};

/* Whether r can stage a's inputs as a asks; if not, why in why. */
bool runner_can_stage(const struct runner *r, const struct action *a, char *why, size_t whylen);

/* The table of every mechanism, in the order reports list them. */
extern const struct runner *const runner_table[];
const struct runner *runner_find(const char *name);
size_t runner_count(void);

/* Shared by the runners that start a command: spawns job->path with job->argv in a new process group
 * with fds as stdin/stdout/stderr, by the method opts->spawn names. */
pid_t spawn_command(struct runner_job *job, const struct stdio_fds *fds);

/* For a runner's kill: asks pid to stop with sig and waits up to grace_s seconds for it to exit
 * (a wrapper that must take its sandbox down with it), then SIGKILLs its process group and it. */
void stop_with_grace(pid_t pid, int sig, double grace_s);

/* Finds an executable by name in PATH (or an absolute path that exists); caller frees. NULL if none. */
char *find_program(const char *name);

/* Runs argv to completion with stdout and stderr captured (first line only, trimmed);
 * for version probes and availability checks. Returns the exit status or -1. */
int run_capture(char *const argv[], char *out, size_t outlen, double timeout_s);
