/* `sbxbench compare`'s command line, parsed without reading any file or exiting, so that tests
 * and the fuzzer can call it. */
#pragma once

#include <stdbool.h>

#include "harness/compare.h"
#include "harness/parse.h"

struct compare_args {
    const char *base_path, *new_path;
    struct compare_options opt;
    enum output_format format;
    long last;
    bool color;
};

/* 0 to go on, 1 after --help, 2 for bad usage (reported on stderr). */
int parse_compare_args(int argc, char **argv, struct compare_args *a);
