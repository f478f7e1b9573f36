/* `sbxbench exec`'s command line, parsed without starting anything or exiting, so that tests and
 * the fuzzer can call it. */
#pragma once

#include <stdbool.h>

#include "sandbox/sbx.h"

struct exec_args {
    struct sbx_config cfg;
    bool timings;
    long repeat;
};

/* Returns 0, 1 after --help, or 2 with a message printed. Either way a->cfg is to be freed with
 * sbx_config_free. */
int parse_exec_args(int argc, char **argv, struct exec_args *a);
