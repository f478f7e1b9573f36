#include "harness/interrupt.h"

#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "harness/atomic_file.h"
#include "harness/commands.h"
#include "harness/sample.h"

/* How long the helper of a second interrupt may take to stop a sandbox (a container engine asked
 * to kill and remove a container) before it gives up. */
#define STOP_HELPER_SECONDS 30

/* A runner whose sandbox outlives its process (a container kept by a daemon) stops it with its own
 * kill, which runs commands: not something a signal handler may do. A child made with _Fork (which,
 * unlike fork, a handler may call) does it instead, in a session of its own so that another Ctrl-C
 * does not cut it short, and with an alarm in case the state it inherited (a lock held by the
 * interrupted code) makes it hang. Nobody waits for it: it is init's to reap. */
static bool stop_in_background(struct runner_job *job, pid_t pid)
{
    pid_t helper = _Fork();
    if (helper != 0)
        return helper > 0;
    setsid();
    alarm(STOP_HELPER_SECONDS);
    job->runner->kill(job, pid);
    _exit(0);
}

/* The second signal leaves at once. The sample in flight is killed, process group and all (and its
 * sandbox, as above); the target file is only ever replaced by a rename, so removing our temp file
 * is all the tidying the results need. */
static void on_interrupt(int sig)
{
    (void)sig;
    if (!sample_stop_requested) {
        sample_stop_requested = 1;
        return;
    }
    pid_t pid = sample_in_flight_pid;
    struct runner_job *job = sample_in_flight_job;
    /* A runner's own kill may need its wrapper alive to take the sandbox down: it does the
     * killing then, all of it. */
    if (pid > 0 && !(job && job->runner && job->runner->kill && stop_in_background(job, pid))) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
    }
    const char *temp = atomic_pending_temp();
    if (temp[0])
        unlink(temp);
    _exit(EXIT_INTERRUPTED);
}

void install_interrupt_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: the wait for a child must wake up */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}
