#include "runners/command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int command_job(struct runner_job *job, const char *program, char *const prefix[],
                char *const tail[], struct errbuf *eb)
{
    char *path = find_program(program);
    if (!path)
        return err_msg(eb, "%s: not found in PATH", program);
    char **argv = strv_new();
    if (!argv || strv_push(&argv, path) < 0 || strv_extend(&argv, prefix) < 0 ||
        strv_extend(&argv, tail) < 0) {
        free(path);
        strv_free(argv);
        return err_sys(eb, "prepare", program, ENOMEM);
    }
    free(path);
    job->argv = argv;
    job->path = argv[0];
    return 0;
}

const char *true_path(void)
{
    static char *cached;
    if (!cached)
        cached = find_program("true");
    return cached ? cached : "/bin/true";
}

bool command_probe(const char *program, char *const args[], char *why, size_t whylen)
{
    char *path = find_program(program);
    if (!path) {
        snprintf(why, whylen, "%s not installed (not found in PATH)", program);
        return false;
    }
    char **argv = strv_new();
    bool ok = argv && strv_push(&argv, path) == 0 && strv_extend(&argv, args) == 0 &&
              strv_push(&argv, true_path()) == 0;
    free(path);
    if (!ok) {
        strv_free(argv);
        snprintf(why, whylen, "out of memory");
        return false;
    }
    char line[256];
    int rc = run_capture(argv, line, sizeof line, 10.0);
    strv_free(argv);
    if (rc == 0)
        return true;
    if (rc < 0)
        snprintf(why, whylen, "%s did not start or timed out", program);
    else
        snprintf(why, whylen, "%s fails here (exit %d): %s", program, rc,
                 line[0] ? line : "no message");
    return false;
}

bool have_time_namespace(void)
{
    return access("/proc/self/ns/time", F_OK) == 0;
}
