#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

/* With -close_fd_mask, libFuzzer closes stderr and gives the sanitizers a copy of it: their
 * summary line is the one that reaches the user. Weak: the replay build may have no sanitizer. */
extern void __sanitizer_report_error_summary(const char *summary) __attribute__((weak));

void fuzz_fail(const char *file, int line, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, "fuzz check failed: %s:%d: %s", file, line, what);
    if (__sanitizer_report_error_summary)
        __sanitizer_report_error_summary(msg);
    fprintf(stderr, "%s\n", msg);
    abort();
}

int fuzz_one_line(const char *msg)
{
    return msg && msg[0] && !strchr(msg, '\n');
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    if (memchr(data, '\0', size))
        return NULL;
    char *text = malloc(size + 1);
    if (!text)
        return NULL;
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

void fuzz_quiet_stdio(void)
{
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        close(null);
    }
    setsid(); /* fails harmlessly when already a session leader */
}
