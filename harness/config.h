/* The configuration of one `sbxbench run`, as parsed from its command line. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "harness/parse.h"
#include "runners/runner.h"
#include "workloads/workload.h"

enum run_order { ORDER_INTERLEAVED, ORDER_GROUPED };

#define DEFAULT_RUNS 100
#define DEFAULT_WARMUP 5
#define DEFAULT_TIMEOUT 60.0
#define MIN_TIME_MIN_RUNS 3

struct run_config {
    char **mechanisms; /* names, in table order */
    char **workloads;
    long runs;         /* fixed number of recorded runs per (mechanism, case) */
    double min_time;   /* or: run each until it has taken this many seconds (> 0 selects it) */
    long warmup;
    const char *output; /* -o FILE.json, or NULL */
    enum output_format format;
    enum run_order order;
    const char *pin;   /* CPU list for sched_setaffinity, or NULL */
    double timeout;    /* per sample, seconds; 0: none */
    uint64_t seed;     /* bootstrap seed */
    bool progress;     /* a progress line on stderr (a TTY) */
    bool color;
    struct runner_options ropts;
    struct workload_options wopts;
};

/* Parses `run`'s arguments (argv[0] is "run"). Returns 0, 1 when --help was printed, or 2 with a
 * message printed for bad usage. */
int parse_run_args(int argc, char **argv, struct run_config *cfg);
void run_config_free(struct run_config *cfg);
/* The defaults `run` starts from, for commands that build a configuration themselves. */
void run_config_defaults(struct run_config *cfg);
void print_run_help(void);

/* Parses "0-1,3" into a cpu mask for sched_setaffinity; -1 on bad syntax. */
int parse_cpu_list(const char *s, unsigned long long *mask);
