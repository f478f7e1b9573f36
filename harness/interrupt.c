#include "harness/interrupt.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "harness/atomic_file.h"
#include "harness/commands.h"
#include "harness/sample.h"

/* The target file is only ever replaced by a rename, so removing our temp file is all the tidying a
 * second signal needs. */
static void on_interrupt(int sig)
{
    (void)sig;
    if (sample_stop_requested) {
        const char *temp = atomic_pending_temp();
        if (temp[0])
            unlink(temp);
        _exit(EXIT_INTERRUPTED);
    }
    sample_stop_requested = 1;
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
