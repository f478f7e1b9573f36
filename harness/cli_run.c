/* `sbxbench run`'s command line. Everything is checked here, before any run starts. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/config.h"
#include "harness/parse.h"
#include "harness/usage.h"
#include "workloads/inputs/tree.h"

void print_run_help(void)
{
    printf(
        "Usage: sbxbench run [OPTIONS]\n"
        "\n"
        "Runs each workload under each mechanism many times and times spawn to reap.\n"
        "\n"
        "What to run:\n"
        "  -m, --mechanism=LIST   mechanisms, comma-separated, or 'all' (default: all)\n"
        "  -w, --workload=LIST    workloads, comma-separated, or 'all' (default: true); an item\n"
        "                         with a '/' or ending in .wl is a description file\n"
        "                         (docs/workloads.md)\n"
        "\n"
        "How long:\n"
        "  -n, --runs=N           recorded runs per mechanism and workload (default: %d)\n"
        "      --min-time=SECONDS instead of --runs: run each until it has taken this long\n"
        "      --warmup=N         unrecorded runs first (default: %d)\n"
        "      --order=ORDER      interleaved (default: every round visits each pair once, in a\n"
        "                         fresh random order, so drift and position hit all alike)\n"
        "                         or grouped (each mechanism's runs one after another)\n"
        "      --timeout=SECONDS  kill a sample after this long and record it (default: %g; 0: none)\n"
        "      --pin=CPUS         run on these CPUs only, e.g. 1 or 0-1\n"
        "\n"
        "Output:\n"
        "  -o, --output=FILE      write results as JSON (atomically: temp file, fsync, rename)\n"
        "      --format=FORMAT    what stdout shows: table (default), json or markdown\n"
        "      --color=WHEN       auto (default), always or never\n"
        "      --no-progress      no progress line on stderr\n"
        "      --seed=N           seed of the bootstrap intervals (default: 1)\n"
        "\n"
        "Mechanism settings:\n"
        "      --path-dirs=N      process-path: N missing directories in front of PATH (default: 0)\n"
        "      --spawn=METHOD     how commands are started: posix_spawn (default) or fork\n"
        "      --seccomp=POLICY   inproc: none, default or a policy file (default: default)\n"
        "      --staging=LIST     inputs: how a sandbox shows the inputs, one case each: root,\n"
        "                         per-file, bind-each, open-tree, symlinks, overlay (default:\n"
        "                         root; docs/scaling.md)\n"
        "      --cache-dir=DIR    images, bundles and generated inputs (default: ~/.cache/sbxbench)\n"
        "\n"
        "Workload settings:\n"
        "      --render-size=N    render: image side in pixels (default: 256)\n"
        "      --render-vm=FILE   render: VM program (default: the built-in scene)\n"
        "      --render-threads=N render: threads (default: the renderer's)\n"
        "      --pipe-sizes=LIST  pipe: buffer sizes in bytes\n"
        "      --pipe-bytes=N     pipe: bytes moved per sample\n"
        "      --inputs=LIST      inputs: file counts, e.g. 1,10,100,1000 (up to %d)\n"
        "\n"
        "Run 'sbxbench list' to see every mechanism and workload and whether it can run here.\n",
        DEFAULT_RUNS, DEFAULT_WARMUP, DEFAULT_TIMEOUT, INPUTS_MAX);
}

enum {
    OPT_MIN_TIME = 256,
    OPT_WARMUP,
    OPT_FORMAT,
    OPT_ORDER,
    OPT_PIN,
    OPT_TIMEOUT,
    OPT_PATH_DIRS,
    OPT_SPAWN,
    OPT_SECCOMP,
    OPT_STAGING,
    OPT_CACHE_DIR,
    OPT_COLOR,
    OPT_NO_PROGRESS,
    OPT_SEED,
    OPT_RENDER_SIZE,
    OPT_RENDER_VM,
    OPT_RENDER_THREADS,
    OPT_PIPE_SIZES,
    OPT_PIPE_BYTES,
    OPT_INPUTS,
};

static const struct option run_options[] = {
    {"mechanism", required_argument, NULL, 'm'},
    {"workload", required_argument, NULL, 'w'},
    {"runs", required_argument, NULL, 'n'},
    {"min-time", required_argument, NULL, OPT_MIN_TIME},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"order", required_argument, NULL, OPT_ORDER},
    {"pin", required_argument, NULL, OPT_PIN},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"path-dirs", required_argument, NULL, OPT_PATH_DIRS},
    {"spawn", required_argument, NULL, OPT_SPAWN},
    {"seccomp", required_argument, NULL, OPT_SECCOMP},
    {"staging", required_argument, NULL, OPT_STAGING},
    {"cache-dir", required_argument, NULL, OPT_CACHE_DIR},
    {"color", required_argument, NULL, OPT_COLOR},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"render-size", required_argument, NULL, OPT_RENDER_SIZE},
    {"render-vm", required_argument, NULL, OPT_RENDER_VM},
    {"render-threads", required_argument, NULL, OPT_RENDER_THREADS},
    {"pipe-sizes", required_argument, NULL, OPT_PIPE_SIZES},
    {"pipe-bytes", required_argument, NULL, OPT_PIPE_BYTES},
    {"inputs", required_argument, NULL, OPT_INPUTS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int parse_cpu_list(const char *s, unsigned long long *mask)
{
    char **items = parse_list(s);
    if (!items)
        return -1;
    unsigned long long m = 0;
    int rc = 0;
    for (size_t i = 0; items[i] && rc == 0; i++) {
        long lo, hi;
        char *dash = strchr(items[i], '-');
        if (dash) {
            *dash = '\0';
            if (!parse_long(items[i], 0, 63, &lo) || !parse_long(dash + 1, 0, 63, &hi) || hi < lo)
                rc = -1;
        } else if (parse_long(items[i], 0, 63, &lo)) {
            hi = lo;
        } else {
            rc = -1;
        }
        for (long c = lo; rc == 0 && c <= hi; c++)
            m |= 1ULL << c;
    }
    strv_free(items);
    *mask = m;
    return rc;
}

/* Every name in list must be in the table ("all" expands to the whole table). */
static char **names_checked(const char *option, const char *arg, const char **table)
{
    char **names = parse_list(arg);
    if (!names) {
        usage_error("run: %s: empty name in list '%s'", option, arg);
        return NULL;
    }
    if (strv_len(names) == 1 && strcmp(names[0], "all") == 0) {
        strv_free(names);
        names = strv_new();
        for (size_t i = 0; names && table[i]; i++)
            strv_push(&names, table[i]);
        return names;
    }
    for (size_t i = 0; names[i]; i++) {
        bool known = false;
        for (size_t t = 0; table[t] && !known; t++)
            known = strcmp(names[i], table[t]) == 0;
        if (!known) {
            usage_error("run: %s: unknown name '%s' (see 'sbxbench list')", option, names[i]);
            strv_free(names);
            return NULL;
        }
    }
    return names;
}

static const char **runner_names(void)
{
    static const char *names[64];
    for (size_t i = 0; runner_table[i] && i < 63; i++)
        names[i] = runner_table[i]->name;
    return names;
}

/* Each --workload item, built in or a description file; descriptions are read and checked now,
 * with every option known, so that a bad one stops the run before it starts. */
static char **workloads_resolved(const char *arg, const struct workload_options *opts)
{
    char **items = parse_list(arg);
    if (!items) {
        usage_error("run: --workload: empty name in list '%s'", arg);
        return NULL;
    }
    if (strv_len(items) == 1 && strcmp(items[0], "all") == 0) {
        strv_free(items);
        items = workload_builtin_names();
    }
    for (size_t i = 0; items && items[i]; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(items[i], items[j]) == 0) {
                usage_error("run: --workload: '%s' is listed twice", items[i]);
                strv_free(items);
                return NULL;
            }
        }
        struct errbuf eb = {{0}};
        if (!workload_resolve(items[i], opts, &eb)) {
            usage_error("%s", eb.msg);
            strv_free(items);
            return NULL;
        }
    }
    return items;
}

void run_config_defaults(struct run_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->runs = DEFAULT_RUNS;
    cfg->warmup = DEFAULT_WARMUP;
    cfg->timeout = DEFAULT_TIMEOUT;
    cfg->seed = 1;
    cfg->format = FORMAT_TABLE;
    cfg->order = ORDER_INTERLEAVED;
    cfg->progress = isatty(2);
    cfg->color = isatty(1);
    cfg->ropts.spawn = SPAWN_POSIX_SPAWN;
    cfg->ropts.seccomp = "default";
    cfg->ropts.staging = cfg->wopts.staging = "root";
    cfg->wopts.render_size = 256;
    cfg->wopts.pipe_sizes = "4,16,64,256,1024,4096,16384,65536";
    cfg->wopts.pipe_bytes = 16LL << 20;
    cfg->wopts.inputs = "1,10,100,1000";
}

/* --inputs and --staging: each item valid and given once; 0, or 2 with the message printed. */
static int check_inputs_list(const char *option, const char *arg)
{
    char **items = parse_list(arg);
    if (!items) {
        usage_error("run: %s: empty item in list '%s'", option, arg);
        return 2;
    }
    int rc = 0;
    for (size_t i = 0; items[i] && rc == 0; i++) {
        long n;
        if (strcmp(option, "--inputs") == 0 && !parse_long(items[i], 1, INPUTS_MAX, &n)) {
            usage_error("run: --inputs: a count from 1 to %d expected, got '%s'", INPUTS_MAX,
                        items[i]);
            rc = 2;
        } else if (strcmp(option, "--staging") == 0 && staging_from_name(items[i]) < 0) {
            usage_error("run: --staging: unknown method '%s' (%s)", items[i], staging_names());
            rc = 2;
        }
        for (size_t j = 0; j < i && rc == 0; j++) {
            if (strcmp(items[i], items[j]) == 0) {
                usage_error("run: %s: '%s' is listed twice", option, items[i]);
                rc = 2;
            }
        }
    }
    strv_free(items);
    return rc;
}

#define BAD_NUMBER(opt, what)                                                                      \
    do {                                                                                           \
        usage_error("run: --%s: %s expected, got '%s'", opt, what, optarg);                        \
        return 2;                                                                                  \
    } while (0)

static int parse_one(int c, struct run_config *cfg, bool *runs_given, const char **workload_arg)
{
    long n;
    switch (c) {
    case 'm':
        strv_free(cfg->mechanisms);
        cfg->mechanisms = names_checked("--mechanism", optarg, runner_names());
        return cfg->mechanisms ? 0 : 2;
    case 'w':
        *workload_arg = optarg; /* resolved once every option is known */
        return 0;
    case 'n':
        if (!parse_long(optarg, 1, 100000000, &cfg->runs))
            BAD_NUMBER("runs", "a whole number from 1");
        *runs_given = true;
        return 0;
    case OPT_MIN_TIME:
        if (!parse_double(optarg, 0.001, 1e7, &cfg->min_time))
            BAD_NUMBER("min-time", "a positive number of seconds");
        return 0;
    case OPT_WARMUP:
        if (!parse_long(optarg, 0, 1000000, &cfg->warmup))
            BAD_NUMBER("warmup", "a whole number from 0");
        return 0;
    case 'o':
        cfg->output = optarg;
        return 0;
    case OPT_FORMAT:
        if (!parse_format(optarg, &cfg->format))
            BAD_NUMBER("format", "table, json or markdown");
        return 0;
    case OPT_ORDER:
        if (strcmp(optarg, "interleaved") == 0)
            cfg->order = ORDER_INTERLEAVED;
        else if (strcmp(optarg, "grouped") == 0)
            cfg->order = ORDER_GROUPED;
        else
            BAD_NUMBER("order", "interleaved or grouped");
        return 0;
    case OPT_PIN: {
        unsigned long long mask;
        if (parse_cpu_list(optarg, &mask) < 0)
            BAD_NUMBER("pin", "a CPU list such as 0 or 0-1");
        cfg->pin = optarg;
        return 0;
    }
    case OPT_TIMEOUT:
        if (!parse_double(optarg, 0, 1e7, &cfg->timeout))
            BAD_NUMBER("timeout", "a number of seconds from 0");
        return 0;
    case OPT_PATH_DIRS:
        if (!parse_long(optarg, 0, 10000, &n))
            BAD_NUMBER("path-dirs", "a whole number from 0 to 10000");
        cfg->ropts.path_dirs = (int)n;
        return 0;
    case OPT_SPAWN:
        if (strcmp(optarg, "posix_spawn") == 0)
            cfg->ropts.spawn = SPAWN_POSIX_SPAWN;
        else if (strcmp(optarg, "fork") == 0)
            cfg->ropts.spawn = SPAWN_FORK;
        else
            BAD_NUMBER("spawn", "posix_spawn or fork");
        return 0;
    case OPT_SECCOMP:
        cfg->ropts.seccomp = optarg;
        return 0;
    case OPT_STAGING:
        cfg->ropts.staging = cfg->wopts.staging = optarg;
        return check_inputs_list("--staging", optarg);
    case OPT_CACHE_DIR:
        cfg->ropts.cache_dir = cfg->wopts.cache_dir = optarg;
        return 0;
    case OPT_COLOR:
        if (strcmp(optarg, "always") == 0)
            cfg->color = true;
        else if (strcmp(optarg, "never") == 0)
            cfg->color = false;
        else if (strcmp(optarg, "auto") == 0)
            cfg->color = isatty(1);
        else
            BAD_NUMBER("color", "auto, always or never");
        return 0;
    case OPT_NO_PROGRESS:
        cfg->progress = false;
        return 0;
    case OPT_SEED:
        if (!parse_long(optarg, 0, 0x7fffffffffffffffL, &n))
            BAD_NUMBER("seed", "a whole number from 0");
        cfg->seed = (uint64_t)n;
        return 0;
    case OPT_RENDER_SIZE:
        if (!parse_long(optarg, 2, 16384, &n))
            BAD_NUMBER("render-size", "a whole number from 2 to 16384");
        cfg->wopts.render_size = (int)n;
        return 0;
    case OPT_RENDER_VM:
        cfg->wopts.render_vm = optarg;
        return 0;
    case OPT_RENDER_THREADS:
        if (!parse_long(optarg, 1, 1024, &n))
            BAD_NUMBER("render-threads", "a whole number from 1 to 1024");
        cfg->wopts.render_threads = (int)n;
        return 0;
    case OPT_PIPE_SIZES:
        cfg->wopts.pipe_sizes = optarg;
        return 0;
    case OPT_PIPE_BYTES:
        if (!parse_long(optarg, 1, 1L << 40, &n))
            BAD_NUMBER("pipe-bytes", "a whole number of bytes from 1");
        cfg->wopts.pipe_bytes = n;
        return 0;
    case OPT_INPUTS:
        cfg->wopts.inputs = optarg;
        return check_inputs_list("--inputs", optarg);
    default:
        usage_error("run: unknown option (see 'sbxbench run --help')");
        return 2;
    }
}

int parse_run_args(int argc, char **argv, struct run_config *cfg)
{
    run_config_defaults(cfg);
    bool runs_given = false;
    const char *workload_arg = "true";
    optind = 0; /* 0, not 1: glibc then also forgets a half-read "-hm" of an earlier call */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+m:w:n:o:h", run_options, NULL)) != -1) {
        if (c == 'h') {
            print_run_help();
            return 1;
        }
        if (c == '?' || c == ':') {
            usage_error("run: %s: %s (see 'sbxbench run --help')", argv[optind - 1],
                        c == ':' ? "needs a value" : "unknown option");
            return 2;
        }
        int rc = parse_one(c, cfg, &runs_given, &workload_arg);
        if (rc)
            return rc;
    }
    if (optind < argc) {
        usage_error("run: unexpected argument '%s'", argv[optind]);
        return 2;
    }
    if (runs_given && cfg->min_time > 0) {
        usage_error("run: --runs and --min-time exclude each other");
        return 2;
    }
    if (!cfg->mechanisms)
        cfg->mechanisms = names_checked("--mechanism", "all", runner_names());
    cfg->workloads = workloads_resolved(workload_arg, &cfg->wopts);
    if (!cfg->mechanisms || !cfg->workloads)
        return 2;
    return 0;
}

void run_config_free(struct run_config *cfg)
{
    strv_free(cfg->mechanisms);
    strv_free(cfg->workloads);
    cfg->mechanisms = cfg->workloads = NULL;
    workloads_unload();
}
