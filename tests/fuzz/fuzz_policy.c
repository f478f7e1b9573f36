/* libFuzzer target: a seccomp policy file, as `--seccomp=FILE` (run's inproc, exec) reads it: the
 * parser, then what it accepts compiled by libseccomp into the BPF program the sandbox would load
 * (nothing is loaded). A refusal is one line naming the file; what parses either compiles or says
 * why, and the program is never empty. */
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sandbox/internal.h"

#define FUZZ_NAME "fuzz.policy"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    struct policy p;
    struct sbx_error e = {{0}};
    if (policy_parse(&p, text, FUZZ_NAME, &e) < 0) {
        FUZZ_ASSERT(fuzz_one_line(e.msg) && strstr(e.msg, FUZZ_NAME));
        free(text);
        return 0;
    }
    FUZZ_ASSERT(p.default_action == POLICY_ALLOW || p.default_action == POLICY_ERRNO ||
                p.default_action == POLICY_KILL);
    for (size_t i = 0; i < p.n_rules; i++)
        FUZZ_ASSERT(p.rules[i].syscall && p.rules[i].n_conds <= 6);
    struct sock_fprog prog;
    memset(&prog, 0, sizeof prog);
    if (filter_build(&p, &prog, &e) < 0)
        FUZZ_ASSERT(fuzz_one_line(e.msg));
    else
        FUZZ_ASSERT(prog.len > 0 && prog.filter);
    filter_free(&prog);
    policy_free(&p);
    free(text);
    return 0;
}
