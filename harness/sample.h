/* sample: one timed spawn-to-reap of a prepared job.
 *
 * The clock starts just before the runner's spawn and stops just after wait4 reaps the child, which
 * also gives the child's user and system CPU time and peak RSS. Everything else (resetting the capture
 * files, checking the output) happens outside that window. */
#pragma once

#include <stdbool.h>
#include <signal.h>
#include <sys/types.h>

#include "runners/runner.h"

/* The capture files live in memory: a sample that writes more than this to its stdout or stderr
 * (`yes >&2` fills hundreds of MB a second) is killed before it can exhaust the machine. Only the
 * first line of stderr is ever read; stdout is large enough for the biggest output a check reads
 * (a 16384-pixel square image). */
#define SAMPLE_MAX_STDERR (16LL << 20)
#define SAMPLE_MAX_STDOUT (1LL << 30)

#define SAMPLE_MAX_STEPS 16

struct sample {
    double wall;    /* seconds, spawn to reap */
    double user;    /* seconds of user CPU of the child and its reaped descendants */
    double system;  /* seconds of system CPU */
    long max_rss_kb;
    int exit_code;  /* the exit status; -1 when killed by a signal or never started */
    int signal;     /* the signal that killed it, else 0 */
    bool timed_out;
    bool flooded;     /* killed for writing more than SAMPLE_MAX_STD* into a capture file */
    bool interrupted; /* stopped because the user interrupted the run */
    bool spawn_failed;
    int spawn_errno;
    /* The mechanism's own steps, when it reports them (runner->steps): names are static strings. */
    unsigned n_steps;
    const char *step_names[SAMPLE_MAX_STEPS];
    float step_seconds[SAMPLE_MAX_STEPS];
};

static inline bool sample_ok(const struct sample *s)
{
    return !s->timed_out && !s->flooded && !s->interrupted && !s->spawn_failed &&
           s->signal == 0 && s->exit_code == 0;
}

/* Set from a signal handler when the user asks the run to stop; take_sample then stops the child. */
extern volatile sig_atomic_t sample_stop_requested;

/* The sample in flight (pid 0: none), for a second interrupt that leaves without waiting for the
 * loop: it must still stop what the sample started. */
extern volatile sig_atomic_t sample_in_flight_pid;
extern struct runner_job *volatile sample_in_flight_job;

/* Runs one sample with the given stdio, stopping it after timeout seconds (0: no limit). */
void take_sample(struct runner_job *job, const struct stdio_fds *fds, double timeout,
                 struct sample *out);

double monotonic_seconds(void);
