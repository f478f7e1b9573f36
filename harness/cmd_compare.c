/* sbxbench compare BASE NEW: did the new run regress against the baseline? Exit 0 no, 1 yes, 2 bad
 * input. BASE is a results file or a directory of them (the last nights of a history). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/commands.h"
#include "harness/compare.h"
#include "harness/compare_args.h"
#include "harness/compare_output.h"
#include "harness/parse.h"
#include "harness/results_json.h"
#include "harness/usage.h"

#define DEFAULT_LAST 7

static void print_compare_help(void)
{
    printf("Usage: sbxbench compare [OPTIONS] BASE NEW\n"
           "\n"
           "Judges the results file NEW against BASE, pair by (mechanism, case): the ratio of\n"
           "medians with a 95%% bootstrap interval, a regression when the interval lies above 1\n"
           "and the ratio beyond the threshold. BASE is a results file or a directory of them,\n"
           "of which the last nights (by date) form the baseline.\n"
           "\n"
           "Options:\n"
           "      --threshold=PCT  smallest change that counts, in percent (default: %g)\n"
           "      --last=N         BASE directory: the last N runs (default: %d)\n"
           "      --by=BASIS       auto (default): absolute times on the same host and CPU,\n"
           "                       else each mechanism's overhead over its own process;\n"
           "                       or absolute, or overhead\n"
           "      --format=FORMAT  table (default), markdown or json\n"
           "      --color=WHEN     auto (default), always or never\n"
           "      --seed=N         seed of the bootstrap (default: 1)\n"
           "\n"
           "Exit status: 0 no regression, 1 a regression, 2 bad usage or input.\n"
           "See docs/ci.md for the method.\n",
           COMPARE_DEFAULT_THRESHOLD * 100, DEFAULT_LAST);
}

static const struct option compare_options[] = {
    {"threshold", required_argument, NULL, 't'},
    {"last", required_argument, NULL, 'l'},
    {"by", required_argument, NULL, 'b'},
    {"format", required_argument, NULL, 'f'},
    {"color", required_argument, NULL, 'c'},
    {"seed", required_argument, NULL, 's'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

#define BAD_VALUE(opt, what)                                                                       \
    do {                                                                                           \
        usage_error("compare: --%s: %s expected, got '%s'", opt, what, optarg);                    \
        return 2;                                                                                  \
    } while (0)

static int parse_option(int c, struct compare_args *a)
{
    long n;
    double pct;
    switch (c) {
    case 't': {
        char *percent = strchr(optarg, '%');
        if (percent && percent[1] == '\0')
            *percent = '\0';
        if (!parse_double(optarg, 0, 1000, &pct))
            BAD_VALUE("threshold", "a percentage from 0");
        a->opt.threshold = pct / 100;
        return 0;
    }
    case 'l':
        if (!parse_long(optarg, 1, 100000, &a->last))
            BAD_VALUE("last", "a whole number from 1");
        return 0;
    case 'b':
        if (strcmp(optarg, "auto") == 0)
            a->opt.basis = BASIS_AUTO;
        else if (strcmp(optarg, "absolute") == 0)
            a->opt.basis = BASIS_ABSOLUTE;
        else if (strcmp(optarg, "overhead") == 0)
            a->opt.basis = BASIS_OVERHEAD;
        else
            BAD_VALUE("by", "auto, absolute or overhead");
        return 0;
    case 'f':
        if (!parse_format(optarg, &a->format))
            BAD_VALUE("format", "table, markdown or json");
        return 0;
    case 'c':
        if (strcmp(optarg, "always") == 0)
            a->color = true;
        else if (strcmp(optarg, "never") == 0)
            a->color = false;
        else if (strcmp(optarg, "auto") == 0)
            a->color = isatty(1);
        else
            BAD_VALUE("color", "auto, always or never");
        return 0;
    case 's':
        if (!parse_long(optarg, 0, 0x7fffffffffffffffL, &n))
            BAD_VALUE("seed", "a whole number from 0");
        a->opt.seed = (uint64_t)n;
        return 0;
    default:
        usage_error("compare: unknown option (see 'sbxbench compare --help')");
        return 2;
    }
}

int parse_compare_args(int argc, char **argv, struct compare_args *a)
{
    memset(a, 0, sizeof *a);
    a->opt = (struct compare_options){COMPARE_DEFAULT_THRESHOLD, BASIS_AUTO, 1, STATS_RESAMPLES};
    a->last = DEFAULT_LAST;
    a->color = isatty(1);
    optind = 0; /* 0, not 1: glibc then also forgets a half-read "-hm" of an earlier call */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", compare_options, NULL)) != -1) {
        if (c == 'h') {
            print_compare_help();
            return 1;
        }
        if (c == '?' || c == ':') {
            usage_error("compare: %s: %s (see 'sbxbench compare --help')", argv[optind - 1],
                        c == ':' ? "needs a value" : "unknown option");
            return 2;
        }
        int rc = parse_option(c, a);
        if (rc)
            return rc;
    }
    if (argc - optind != 2) {
        usage_error("compare: BASE and NEW expected, got %d argument%s (see 'sbxbench compare "
                    "--help')",
                    argc - optind, argc - optind == 1 ? "" : "s");
        return 2;
    }
    a->base_path = argv[optind];
    a->new_path = argv[optind + 1];
    return 0;
}

/* The files of a baseline: BASE itself, or the *.json in the directory BASE. */
struct baseline {
    char **paths;
    struct results_file *files;
    size_t n;
};

static void baseline_free(struct baseline *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->paths[i]);
        results_file_free(&b->files[i]);
    }
    free(b->paths);
    free(b->files);
    memset(b, 0, sizeof *b);
}

static int load_one(const char *path, struct results_file *f)
{
    char err[512];
    if (results_load(path, f, err, sizeof err) == 0)
        return 0;
    usage_error("compare: %s: %s", path, err);
    return -1;
}

static bool is_json_name(const char *name)
{
    size_t len = strlen(name);
    return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".json") == 0;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int by_date(const void *pa, const void *pb, void *ctx)
{
    const struct results_file *files = ctx;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = strcmp(files[a].date_utc, files[b].date_utc);
    return c ? c : (a > b) - (a < b);
}

/* Keeps the last `last` complete runs by date, oldest first; interrupted runs are not a night's
 * reference. Frees the rest. */
static void keep_last(struct baseline *b, long last)
{
    size_t *order = malloc((b->n + 1) * sizeof *order);
    char **paths = malloc((b->n + 1) * sizeof *paths);
    struct results_file *files = malloc((b->n + 1) * sizeof *files);
    if (!order || !paths || !files) {
        free(order);
        free(paths);
        free(files);
        return; /* out of memory: keep them all, unsorted */
    }
    for (size_t i = 0; i < b->n; i++)
        order[i] = i;
    qsort_r(order, b->n, sizeof *order, by_date, b->files);
    size_t complete = 0;
    for (size_t i = 0; i < b->n; i++)
        complete += b->files[i].complete;
    size_t too_old = complete > (size_t)last ? complete - (size_t)last : 0, kept = 0;
    for (size_t k = 0; k < b->n; k++) {
        size_t i = order[k];
        bool keep = b->files[i].complete;
        if (!keep)
            warn("compare: %s: interrupted run: left out of the baseline", b->paths[i]);
        else if (too_old > 0) {
            too_old--;
            keep = false;
        }
        if (keep) {
            paths[kept] = b->paths[i];
            files[kept++] = b->files[i];
        } else {
            free(b->paths[i]);
            results_file_free(&b->files[i]);
        }
    }
    free(order);
    free(b->paths);
    free(b->files);
    b->paths = paths;
    b->files = files;
    b->n = kept;
}

static int load_directory(const char *dir, const char *new_path, long last, struct baseline *b)
{
    DIR *d = opendir(dir);
    if (!d) {
        usage_error("compare: %s: cannot open: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (!is_json_name(e->d_name))
            continue;
        char *path = NULL;
        if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
            rc = -1;
            break;
        }
        if (same_file(path, new_path)) { /* a history that already holds tonight's run */
            free(path);
            continue;
        }
        char **paths = realloc(b->paths, (b->n + 1) * sizeof *paths);
        if (paths)
            b->paths = paths;
        struct results_file *files = paths ? realloc(b->files, (b->n + 1) * sizeof *files) : NULL;
        if (!files) {
            free(path);
            usage_error("compare: out of memory");
            rc = -1;
            break;
        }
        b->files = files;
        if (load_one(path, &b->files[b->n]) < 0) {
            free(path);
            rc = -1;
            break;
        }
        b->paths[b->n++] = path;
    }
    closedir(d);
    if (rc == 0) {
        keep_last(b, last);
        if (b->n == 0) {
            usage_error("compare: %s: no complete results files (*.json) in the directory", dir);
            rc = -1;
        }
    }
    return rc;
}

static int load_baseline(const struct compare_args *a, struct baseline *b)
{
    memset(b, 0, sizeof *b);
    struct stat st;
    if (stat(a->base_path, &st) == 0 && S_ISDIR(st.st_mode))
        return load_directory(a->base_path, a->new_path, a->last, b);
    b->paths = calloc(1, sizeof *b->paths);
    b->files = calloc(1, sizeof *b->files);
    if (!b->paths || !b->files || !(b->paths[0] = strdup(a->base_path))) {
        usage_error("compare: out of memory");
        return -1;
    }
    b->n = 1;
    return load_one(a->base_path, &b->files[0]);
}

static int print_result(const struct compare_args *a, const struct comparison *c,
                        const struct compare_sources *src)
{
    if (a->format == FORMAT_JSON) {
        json_t *doc = compare_json(c, src);
        char *text = doc ? results_dump(doc) : NULL;
        json_decref(doc);
        if (!text) {
            usage_error("compare: out of memory");
            return -1;
        }
        puts(text);
        free(text);
    } else if (a->format == FORMAT_MARKDOWN) {
        print_compare_markdown(stdout, c, src);
    } else {
        print_compare_table(stdout, c, src, a->color);
    }
    fflush(stdout);
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    struct compare_args a;
    int rc = parse_compare_args(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : EXIT_USAGE;

    struct baseline b;
    struct results_file new_run;
    memset(&new_run, 0, sizeof new_run);
    /* Both inputs are checked before either is judged, so one run names every bad file. */
    int base_rc = load_baseline(&a, &b);
    int new_rc = load_one(a.new_path, &new_run);
    if (base_rc < 0 || new_rc < 0) {
        baseline_free(&b);
        results_file_free(&new_run);
        return EXIT_USAGE;
    }

    const struct results_file **base = malloc(b.n * sizeof *base);
    struct comparison c;
    int exit_code = EXIT_USAGE;
    if (!base) {
        usage_error("compare: out of memory");
    } else {
        for (size_t i = 0; i < b.n; i++)
            base[i] = &b.files[i];
        if (compare_runs(base, b.n, &new_run, &a.opt, &c) < 0) {
            usage_error("compare: out of memory");
        } else {
            for (size_t i = 0; i < c.n_warnings; i++)
                warn("compare: %s", c.warnings[i]);
            struct compare_sources src = {
                a.base_path, (const char *const *)b.paths, base, b.n, a.new_path, &new_run};
            if (print_result(&a, &c, &src) == 0)
                exit_code = c.counts[PAIR_REGRESSED] ? EXIT_REGRESSION : 0;
            comparison_free(&c);
        }
    }
    free(base);
    baseline_free(&b);
    results_file_free(&new_run);
    return exit_code;
}
