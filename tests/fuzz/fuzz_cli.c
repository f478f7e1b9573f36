/* libFuzzer target: the command-line parsers. The input's first byte picks the parser, the rest,
 * split at NUL bytes, is its argv after the command's name. Each parser must accept or refuse
 * without crashing, leaking or exiting, whatever it is given and however often it is called
 * (getopt keeps state between calls), and what it accepts must be a usable configuration.
 *
 * Parsers: `run` (parse_run_args, which also reads the description files -w names), `compare`
 * (parse_compare_args), `exec` (parse_exec_args, checked by a round trip through
 * sbx_config_format) and sbx-action's pipeline form (pl_decode, checked by a round trip through
 * pl_encode). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "harness/compare_args.h"
#include "harness/config.h"
#include "harness/exec_args.h"
#include "helpers/pipeline_args.h"

#define MAX_ARGS 64

struct args {
    char *buf;
    char *argv[MAX_ARGS + 2];
    int argc;
};

/* argv[0] = name, then the NUL-separated pieces of data (a trailing piece needs no NUL). */
static int split_args(const uint8_t *data, size_t size, const char *name, struct args *a)
{
    a->buf = malloc(size + 1);
    if (!a->buf)
        return -1;
    memcpy(a->buf, data, size);
    a->buf[size] = '\0';
    a->argc = 0;
    a->argv[a->argc++] = (char *)name;
    for (size_t at = 0; at < size && a->argc <= MAX_ARGS; at += strlen(a->buf + at) + 1)
        a->argv[a->argc++] = a->buf + at;
    a->argv[a->argc] = NULL;
    return 0;
}

/* getopt permutes argv and keeps state between calls: each parse gets a fresh copy, and the same
 * arguments parsed twice in a row must give the same answer. */
static int parse_twice(int (*parse)(struct args *a, void *out), struct args *a, void *out)
{
    char *copy[MAX_ARGS + 2];
    memcpy(copy, a->argv, sizeof copy);
    int first = parse(a, out);
    memcpy(a->argv, copy, sizeof copy);
    int second = parse(a, out);
    FUZZ_ASSERT(first == second);
    return second;
}

/* What parse_run_args accepts is a configuration a run can start from. */
static int parse_run(struct args *a, void *unused)
{
    (void)unused;
    struct run_config cfg;
    int rc = parse_run_args(a->argc, a->argv, &cfg);
    FUZZ_ASSERT(rc == 0 || rc == 1 || rc == 2);
    if (rc == 0) {
        FUZZ_ASSERT(cfg.mechanisms && cfg.mechanisms[0]);
        FUZZ_ASSERT(cfg.workloads && cfg.workloads[0]);
        FUZZ_ASSERT(cfg.runs >= 1 && cfg.warmup >= 0 && cfg.timeout >= 0);
        unsigned long long mask;
        FUZZ_ASSERT(!cfg.pin || parse_cpu_list(cfg.pin, &mask) == 0);
    }
    run_config_free(&cfg);
    return rc;
}

static void fuzz_run(struct args *a)
{
    parse_twice(parse_run, a, NULL);
}

static int parse_compare(struct args *a, void *out)
{
    return parse_compare_args(a->argc, a->argv, out);
}

static void fuzz_compare(struct args *a)
{
    struct compare_args c;
    int rc = parse_twice(parse_compare, a, &c);
    FUZZ_ASSERT(rc == 0 || rc == 1 || rc == 2);
    if (rc == 0) {
        FUZZ_ASSERT(c.base_path && c.new_path);
        FUZZ_ASSERT(c.last >= 1 && c.opt.threshold >= 0);
    }
}

/* What parse_exec_args accepts is a sandbox configuration that sbx_config_format writes back as
 * options which parse to the same configuration. */
static int parse_exec(struct args *a, void *unused)
{
    (void)unused;
    struct exec_args e;
    int rc = parse_exec_args(a->argc, a->argv, &e);
    FUZZ_ASSERT(rc == 0 || rc == 1 || rc == 2);
    if (rc == 0) {
        FUZZ_ASSERT(e.cfg.argv && e.cfg.argv[0] && e.repeat >= 1);
        char **options = sbx_config_format(&e.cfg);
        FUZZ_ASSERT(options);
        size_t n = 0;
        while (options[n])
            n++;
        char **again_argv = calloc(n + 4, sizeof *again_argv);
        FUZZ_ASSERT(again_argv);
        again_argv[0] = "exec";
        memcpy(again_argv + 1, options, n * sizeof *options);
        again_argv[n + 1] = "--";
        again_argv[n + 2] = e.cfg.argv[0];
        struct exec_args again;
        FUZZ_ASSERT(parse_exec_args((int)n + 3, again_argv, &again) == 0);
        char **options_again = sbx_config_format(&again.cfg);
        FUZZ_ASSERT(options_again);
        for (size_t i = 0; i <= n; i++)
            FUZZ_ASSERT(!options[i] == !options_again[i] &&
                        (!options[i] || strcmp(options[i], options_again[i]) == 0));
        for (size_t i = 0; i < n; i++) {
            free(options[i]);
            free(options_again[i]);
        }
        free(options);
        free(options_again);
        free(again_argv);
        sbx_config_free(&again.cfg);
    }
    sbx_config_free(&e.cfg);
    return rc;
}

static void fuzz_exec(struct args *a)
{
    parse_twice(parse_exec, a, NULL);
}

static bool same_pipeline(const struct pl_pipeline *a, const struct pl_pipeline *b)
{
    if (a->n_stages != b->n_stages)
        return false;
    for (size_t s = 0; s < a->n_stages; s++) {
        const struct pl_stage *x = &a->stages[s], *y = &b->stages[s];
        if (x->argc != y->argc || x->n_redirs != y->n_redirs || x->argv[x->argc] ||
            y->argv[y->argc])
            return false;
        for (size_t i = 0; i < x->argc; i++)
            if (strcmp(x->argv[i], y->argv[i]) != 0)
                return false;
        for (size_t r = 0; r < x->n_redirs; r++)
            if (x->redirs[r].kind != y->redirs[r].kind ||
                !x->redirs[r].path != !y->redirs[r].path ||
                (x->redirs[r].path && strcmp(x->redirs[r].path, y->redirs[r].path) != 0))
                return false;
    }
    return true;
}

/* Whatever pl_decode accepts, pl_encode writes back into words that decode to the same. */
static void fuzz_pipeline(struct args *a)
{
    struct pl_pipeline p;
    char why[256] = "";
    if (pl_decode((size_t)a->argc - 1, a->argv + 1, &p, why, sizeof why) < 0) {
        FUZZ_ASSERT(fuzz_one_line(why));
        return;
    }
    FUZZ_ASSERT(p.n_stages >= 1);
    size_t n = pl_encoded_len(&p);
    const char **words = calloc(n + 1, sizeof *words);
    char *numbers = malloc(p.n_stages * 24);
    FUZZ_ASSERT(words && numbers);
    pl_encode(&p, words, numbers);
    struct pl_pipeline again;
    FUZZ_ASSERT(pl_decode(n, (char **)words, &again, why, sizeof why) == 0);
    FUZZ_ASSERT(same_pipeline(&p, &again));
    pl_free(&again);
    pl_free(&p);
    free(words);
    free(numbers);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_quiet_stdio();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"run", "compare", "sbx-action", "exec"};
    if (size < 1)
        return 0;
    size_t which = data[0] % (sizeof names / sizeof names[0]);
    struct args a;
    if (split_args(data + 1, size - 1, names[which], &a) < 0)
        return 0;
    switch (which) {
    case 0:
        fuzz_run(&a);
        break;
    case 1:
        fuzz_compare(&a);
        break;
    case 3:
        fuzz_exec(&a);
        break;
    default:
        fuzz_pipeline(&a);
        break;
    }
    free(a.buf);
    return 0;
}
