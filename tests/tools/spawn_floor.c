/* spawn-floor: the cost of the harness's own machinery, measured without the harness.
 *
 * Prints, as JSON, the median of N iterations of each of:
 *   clock       two clock_gettime calls (the timer itself)
 *   vfork_exit  vfork + _exit + wait4: the cheapest possible spawn-and-reap, no exec
 *   pidfd_wait  the same, waiting the way sbxbench does (pidfd_open + poll + wait4)
 *   spawn_true  posix_spawn of PROGRAM + wait4: the floor for `sbxbench run -m process`
 * so docs/measurement.md can put sbxbench's `process` median next to the bare loop's. */
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static void reap(pid_t pid, int use_pidfd)
{
    if (use_pidfd) {
        int fd = (int)syscall(SYS_pidfd_open, pid, 0);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        poll(&p, 1, -1);
        close(fd);
    }
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
}

/* In a function of its own so that vfork cannot clobber the caller's loop variables. */
static __attribute__((noinline)) pid_t vfork_and_exit(void)
{
    pid_t pid = vfork();
    if (pid == 0)
        _exit(0);
    return pid;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    char *program = argc > 2 ? argv[2] : "/usr/bin/true";
    if (n < 1)
        n = 1000;
    double *t = malloc((size_t)n * sizeof *t);
    if (!t)
        return 1;
    const char *names[] = {"clock", "vfork_exit", "pidfd_wait", "spawn_true"};
    printf("{\"iterations\": %d, \"program\": \"%s\"", n, program);
    for (int kind = 0; kind < 4; kind++) {
        for (int i = 0; i < n; i++) {
            double start = now();
            if (kind == 1 || kind == 2) {
                reap(vfork_and_exit(), kind == 2);
            } else if (kind == 3) {
                pid_t pid;
                char *args[] = {program, NULL};
                if (posix_spawn(&pid, program, NULL, NULL, args, environ) != 0)
                    return 1;
                reap(pid, 0);
            }
            t[i] = now() - start;
        }
        printf(", \"%s\": %.9f", names[kind], median(t, n));
    }
    printf("}\n");
    free(t);
    return 0;
}
