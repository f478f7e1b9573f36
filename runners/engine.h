/* engine: what docker and podman share. A client program imports sbxbench's rootfs as an image
 * once, then runs one container per sample, named so that a sample that has to be stopped can be
 * found:
 *
 *   PROGRAM [GLOBAL FLAGS] run --rm --network=none --pull=never --name sbxbench-PID-SEQ
 *           [RUN FLAGS] [--user U:G] --mount type=bind,... --env ... IMAGE ACTION-ARGV
 *
 * The runner files decide the flags (podman's are found by probing, runners/podman.c). */
#pragma once

#include <stdbool.h>

#include "runners/runner.h"

struct engine {
    const char *name;          /* "docker", "podman": the program looked up in PATH */
    char *program;             /* its resolved path */
    char **global_flags;       /* between the program and its subcommand; may be NULL */
    char **run_flags;          /* after "run"; may be NULL */
    char *const *import_flags; /* after "import" */
    bool set_user;             /* pass --user UID:GID when the caller is not root */
    bool unresponsive;         /* a stop request timed out: the daemon no longer answers */
};

/* Runs PROGRAM [GLOBAL FLAGS] ARGS... to completion within timeout seconds; the exit status with
 * the first line of output in line, or -1 if it did not start or timed out. */
int engine_command(const struct engine *e, char *const args[], char *line, size_t linelen,
                   double timeout);

/* Imports the rootfs tarball under rootfs_image_tag() unless the store has that image already. */
int engine_ensure_image(const struct engine *e, const char *cache_dir, double timeout,
                        struct errbuf *eb);

/* Builds job->argv for e; job->priv holds the per-sample name. */
int engine_prepare(struct runner_job *job, struct engine *e, struct errbuf *eb);
pid_t engine_spawn(struct runner_job *job, const struct stdio_fds *fds);
void engine_kill(struct runner_job *job, pid_t pid);
void engine_cleanup(struct runner_job *job);

/* One container running true(1) the way a sample would; 0 if it exited 0, else the exit status (-1:
 * did not start or timed out) with the client's first line of complaint in line. */
int engine_probe(struct engine *e, const struct runner_options *opts, char *line, size_t linelen);
