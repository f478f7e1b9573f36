#include "harness/sample.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t sample_stop_requested;
volatile sig_atomic_t sample_in_flight_pid;
struct runner_job *volatile sample_in_flight_job;

double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double timeval_seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static void stop_child(struct runner_job *job, pid_t pid)
{
    if (job->runner->kill)
        job->runner->kill(job, pid);
    else {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
    }
}

/* How often a sample still running has the size of its capture files checked. */
#define OUTPUT_CHECK_MS 100

static bool too_large(int fd, long long max)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > max;
}

/* Waits until pid exits, the deadline passes, its output grows too large or the user interrupts;
 * a pidfd makes the wait a poll that a signal or a timeout can break, without a SIGCHLD handler or
 * a timer per sample. A sample that ends within OUTPUT_CHECK_MS is never woken. */
static int wait_for_exit(pid_t pid, double deadline, const struct stdio_fds *fds, bool *timed_out,
                         bool *flooded)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0)
        return 0; /* no pidfd (old kernel): fall back to a plain blocking wait4 */
    for (;;) {
        int wait_ms = OUTPUT_CHECK_MS;
        if (deadline > 0) {
            double left = deadline - monotonic_seconds();
            if (left <= 0) {
                *timed_out = true;
                break;
            }
            if (left * 1000 < OUTPUT_CHECK_MS)
                wait_ms = (int)(left * 1000) + 1;
        }
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        int rc = poll(&p, 1, wait_ms);
        if (rc > 0 || sample_stop_requested)
            break;
        if (rc < 0 && errno != EINTR)
            break;
        if (rc == 0 &&
            (too_large(fds->out, SAMPLE_MAX_STDOUT) || too_large(fds->err, SAMPLE_MAX_STDERR))) {
            *flooded = true;
            break;
        }
    }
    close(pidfd);
    return 0;
}

static void record_steps(struct runner_job *job, struct sample *out)
{
    if (!job->runner->steps)
        return;
    double seconds[SAMPLE_MAX_STEPS];
    size_t n = job->runner->steps(job, out->step_names, seconds, SAMPLE_MAX_STEPS);
    for (size_t i = 0; i < n && i < SAMPLE_MAX_STEPS; i++)
        out->step_seconds[i] = (float)seconds[i];
    out->n_steps = (unsigned)(n < SAMPLE_MAX_STEPS ? n : SAMPLE_MAX_STEPS);
}

void take_sample(struct runner_job *job, const struct stdio_fds *fds, double timeout,
                 struct sample *out)
{
    memset(out, 0, sizeof *out);
    out->exit_code = -1;

    double start = monotonic_seconds();
    pid_t pid = job->runner->spawn(job, fds);
    if (pid < 0) {
        out->wall = monotonic_seconds() - start;
        out->spawn_failed = true;
        out->spawn_errno = errno;
        return;
    }
    sample_in_flight_job = job;
    sample_in_flight_pid = pid;
    bool timed_out = false, flooded = false;
    wait_for_exit(pid, timeout > 0 ? start + timeout : 0, fds, &timed_out, &flooded);
    if (timed_out || flooded || sample_stop_requested)
        stop_child(job, pid);
    /* Dead or dying, and not yet reaped: once reaped, its pid could name another process. */
    sample_in_flight_pid = 0;

    int status = 0;
    struct rusage ru;
    pid_t reaped;
    do
        reaped = wait4(pid, &status, 0, &ru);
    while (reaped < 0 && errno == EINTR);
    out->wall = monotonic_seconds() - start;
    /* Whatever the action left running in its process group goes with it, outside the timed window. */
    kill(-pid, SIGKILL);

    if (reaped < 0) {
        out->spawn_failed = true;
        out->spawn_errno = errno;
        return;
    }
    if (job->runner->exit_status)
        status = job->runner->exit_status(job, status);
    /* A sample that outlived the timeout is a timeout even if it exited just as we killed it. */
    out->timed_out = timed_out;
    out->flooded = flooded;
    out->interrupted = !timed_out && !flooded && sample_stop_requested && WIFSIGNALED(status);
    out->user = timeval_seconds(ru.ru_utime);
    out->system = timeval_seconds(ru.ru_stime);
    out->max_rss_kb = ru.ru_maxrss;
    if (WIFEXITED(status))
        out->exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        out->signal = WTERMSIG(status);
    record_steps(job, out);
}
