/* sbxbench reproduce: the published sandboxing table, re-measured here, side by side.
 *
 * Absolute times differ between machines; the ratios to a plain process are what can be compared.
 * The published figures are embedded from results/published/sandboxing.json, which cites its source. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "harness/atomic_file.h"
#include "harness/bench.h"
#include "harness/commands.h"
#include "harness/interrupt.h"
#include "harness/parse.h"
#include "harness/results_json.h"
#include "harness/table.h"
#include "harness/usage.h"

extern const char published_sandboxing[];
extern const size_t published_sandboxing_len;

/* A Nix shell's PATH holds one store path per package in scope; 100 is a large but ordinary shell. */
#define REPRODUCE_PATH_DIRS 100

struct published {
    json_t *doc;
    json_t *rows, *extras;
    double baseline_ms;
};

struct reproduce_options {
    const char *output;
    enum output_format format;
    long runs, container_runs, warmup;
    int path_dirs;
    bool progress;
};

static void reproduce_help(void)
{
    printf("Usage: sbxbench reproduce [OPTIONS]\n"
           "\n"
           "Re-measures the published sandboxing table (9 mechanisms running `true`) on this machine\n"
           "and prints both side by side: milliseconds, and multiples of a plain process.\n"
           "\n"
           "  -o, --output=FILE        write the results and the comparison as JSON\n"
           "      --format=FORMAT      table (default), markdown or json\n"
           "  -n, --runs=N             runs per mechanism (default: 300)\n"
           "      --container-runs=N   runs per container mechanism (default: 30)\n"
           "      --warmup=N           unrecorded runs first (default: 5)\n"
           "      --path-dirs=N        missing directories in front of PATH for the unresolved\n"
           "                           process, as in a Nix shell (default: %d)\n"
           "      --no-progress        no progress line on stderr\n",
           REPRODUCE_PATH_DIRS);
}

static int load_published(struct published *p)
{
    json_error_t err;
    p->doc = json_loadb(published_sandboxing, published_sandboxing_len, 0, &err);
    p->rows = json_object_get(p->doc, "rows");
    p->extras = json_object_get(p->doc, "extras");
    json_t *base = json_array_get(p->rows, 0);
    p->baseline_ms = json_number_value(json_object_get(base, "ms"));
    if (!json_is_array(p->rows) || !json_is_array(p->extras) || p->baseline_ms <= 0) {
        usage_error("reproduce: the embedded published figures are malformed: %s", err.text);
        json_decref(p->doc);
        return -1;
    }
    return 0;
}

static int parse_reproduce_args(int argc, char **argv, struct reproduce_options *o)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, 'f'},
        {"runs", required_argument, NULL, 'n'},
        {"container-runs", required_argument, NULL, 'c'},
        {"warmup", required_argument, NULL, 'w'},
        {"path-dirs", required_argument, NULL, 'p'},
        {"no-progress", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct reproduce_options){.format = FORMAT_TABLE, .runs = 300, .container_runs = 30,
                                    .warmup = 5, .path_dirs = REPRODUCE_PATH_DIRS,
                                    .progress = isatty(2)};
    optind = 0; /* 0, not 1: glibc then also forgets a half-read "-hm" of an earlier call */
    opterr = 0;
    int c;
    long n;
    while ((c = getopt_long(argc, argv, "+o:n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o->output = optarg;
            break;
        case 'f':
            if (!parse_format(optarg, &o->format))
                goto bad;
            break;
        case 'n':
        case 'c':
            if (!parse_long(optarg, 1, 10000000, &n))
                goto bad;
            *(c == 'n' ? &o->runs : &o->container_runs) = n;
            break;
        case 'w':
            if (!parse_long(optarg, 0, 1000000, &o->warmup))
                goto bad;
            break;
        case 'p':
            if (!parse_long(optarg, 0, 10000, &n))
                goto bad;
            o->path_dirs = (int)n;
            break;
        case 'P':
            o->progress = false;
            break;
        case 'h':
            reproduce_help();
            return 1;
        default:
            usage_error("reproduce: %s: %s (see 'sbxbench reproduce --help')", argv[optind - 1],
                        c == ':' ? "needs a value" : "unknown option");
            return 2;
        }
    }
    if (optind < argc) {
        usage_error("reproduce: unexpected argument '%s'", argv[optind]);
        return 2;
    }
    return 0;
bad:
    usage_error("reproduce: %s: bad value '%s' (see 'sbxbench reproduce --help')",
                argv[optind - 1], optarg);
    return 2;
}

static bool is_container(json_t *row)
{
    return json_is_true(json_object_get(row, "container"));
}

/* Row k of the published rows followed by the extras, NULL past the last; *published: whether it
 * is one of the published rows. */
static json_t *published_row(const struct published *p, size_t k, bool *published)
{
    size_t n = json_array_size(p->rows);
    *published = k < n;
    return *published ? json_array_get(p->rows, k) : json_array_get(p->extras, k - n);
}

/* The mechanisms of one block (containers or not) that this build has, published rows first, then
 * the extras. A published mechanism this build lacks is not run; the comparison shows it as not
 * measured. */
static char **block_mechanisms(const struct published *p, bool containers)
{
    char **names = strv_new();
    json_t *row;
    bool published;
    for (size_t k = 0; (row = published_row(p, k, &published)); k++) {
        const char *m = json_string_value(json_object_get(row, "mechanism"));
        if (is_container(row) == containers && m && runner_find(m))
            strv_push(&names, m);
    }
    /* Containers are compared with the plain process of their own block. */
    if (containers && strv_len(names) > 0) {
        char **with_base = strv_new();
        strv_push(&with_base, "process");
        strv_extend(&with_base, names);
        strv_free(names);
        names = with_base;
    }
    return names;
}

static void block_config(struct run_config *cfg, const struct reproduce_options *o, bool containers,
                         const struct published *p)
{
    run_config_defaults(cfg);
    cfg->mechanisms = block_mechanisms(p, containers);
    cfg->workloads = strv_new();
    strv_push(&cfg->workloads, "true");
    cfg->runs = containers ? o->container_runs : o->runs;
    cfg->warmup = containers ? (o->warmup < 2 ? o->warmup : 2) : o->warmup;
    cfg->ropts.path_dirs = o->path_dirs;
    cfg->progress = o->progress;
}

static const struct bench *find_bench(const struct run *r, const char *mechanism, bool container)
{
    for (size_t i = 0; i < r->n_benches; i++) {
        const struct bench *b = &r->benches[i];
        bool in_block = strcmp(b->runner->family, "container") == 0;
        if (strcmp(b->runner->name, mechanism) == 0 &&
            (in_block == container || strcmp(mechanism, "process") != 0))
            return b;
    }
    return NULL;
}

/* One line of the comparison: published and measured, in ms and multiples of the baseline. */
static json_t *comparison_row(const struct published *p, json_t *row, const struct run *all,
                              bool published)
{
    const char *m = json_string_value(json_object_get(row, "mechanism"));
    json_t *out = json_pack("{s:s,s:O,s:b,s:b}", "mechanism", m, "label",
                            json_object_get(row, "label"), "published", published, "container",
                            is_container(row));
    double ms = json_number_value(json_object_get(row, "ms"));
    json_object_set_new(out, "published_ms", published ? json_real(ms) : json_null());
    json_object_set_new(out, "published_ratio",
                        published ? json_real(ms / p->baseline_ms) : json_null());
    const struct bench *b = find_bench(all, m, is_container(row));
    bool measured = b && !b->skipped && b->summary.n > 0;
    json_object_set_new(out, "ms", measured ? json_real(b->summary.median * 1e3) : json_null());
    json_object_set_new(out, "ms_ci", measured ? json_pack("[ff]", b->summary.median_lo * 1e3,
                                                           b->summary.median_hi * 1e3)
                                               : json_null());
    json_object_set_new(out, "ratio", measured ? json_number_or_null(b->ratio) : json_null());
    json_object_set_new(out, "ratio_ci", measured && isfinite(b->ratio_lo)
                                             ? json_pack("[ff]", b->ratio_lo, b->ratio_hi)
                                             : json_null());
    json_object_set_new(out, "ratio_difference",
                        measured && published && isfinite(b->ratio)
                            ? json_real(b->ratio - ms / p->baseline_ms)
                            : json_null());
    const char *why = !b ? "not a mechanism of this build"
                      : b->skipped ? b->reason
                      : b->summary.n == 0 ? (b->n_failures ? b->failures[0].reason : "no samples")
                                          : NULL;
    json_object_set_new(out, "skipped", why ? json_string(why) : json_null());
    return out;
}

static json_t *comparison(const struct published *p, const struct run *all)
{
    json_t *rows = json_array();
    json_t *row;
    bool published;
    for (size_t k = 0; (row = published_row(p, k, &published)); k++) {
        const char *m = json_string_value(json_object_get(row, "mechanism"));
        if (!published && !runner_find(m))
            continue; /* an extra this build does not have is not news */
        json_array_append_new(rows, comparison_row(p, row, all, published));
    }
    return json_pack("{s:O,s:f,s:o}", "source", json_object_get(p->doc, "source"), "baseline_ms",
                     p->baseline_ms, "rows", rows);
}

static void cell_ms(char *buf, size_t len, json_t *v)
{
    if (json_is_number(v)) {
        double ms = json_number_value(v);
        snprintf(buf, len, "%.*f", ms >= 100 ? 0 : ms >= 10 ? 1 : 3, ms);
    } else {
        snprintf(buf, len, "-");
    }
}

static void cell_ratio(char *buf, size_t len, json_t *v, json_t *ci)
{
    if (!json_is_number(v)) {
        snprintf(buf, len, "-");
        return;
    }
    double r = json_number_value(v);
    int n = r >= 100 ? snprintf(buf, len, "%.0f×", r) : snprintf(buf, len, "%.2f×", r);
    if (json_is_array(ci) && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " [%.*f, %.*f]", r >= 100 ? 0 : 2,
                 json_number_value(json_array_get(ci, 0)), r >= 100 ? 0 : 2,
                 json_number_value(json_array_get(ci, 1)));
}

/* One line of the text table; widths are in characters on screen ("×" and "Δ" are two bytes). */
static void print_text_row(FILE *out, const char *const cells[6])
{
    static const int width[6] = {14, 10, 10, 10, 22, 8};
    static const bool right[6] = {false, true, true, true, false, true};
    fputs("  ", out);
    for (int c = 0; c < 6; c++) {
        if (c > 0)
            fputs(c == 4 ? "  " : " ", out);
        print_padded(out, cells[c], width[c], right[c]);
    }
}

static void print_block(FILE *out, json_t *rows, bool containers, bool published, bool markdown)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        if (json_is_true(json_object_get(r, "container")) != containers ||
            json_is_true(json_object_get(r, "published")) != published)
            continue;
        char pms[32], pr[64], ms[32], ratio[64], diff[32];
        cell_ms(pms, sizeof pms, json_object_get(r, "published_ms"));
        cell_ratio(pr, sizeof pr, json_object_get(r, "published_ratio"), NULL);
        cell_ms(ms, sizeof ms, json_object_get(r, "ms"));
        cell_ratio(ratio, sizeof ratio, json_object_get(r, "ratio"), json_object_get(r, "ratio_ci"));
        json_t *d = json_object_get(r, "ratio_difference");
        if (json_is_number(d))
            snprintf(diff, sizeof diff, "%+.2f", json_number_value(d));
        else
            snprintf(diff, sizeof diff, "-");
        const char *m = json_string_value(json_object_get(r, "mechanism"));
        const char *skipped = json_string_value(json_object_get(r, "skipped"));
        if (markdown)
            fprintf(out, "| %s | %s | %s | %s | %s | %s |", m, pms, pr, ms, ratio, diff);
        else
            print_text_row(out, (const char *const[]){m, pms, pr, ms, ratio, diff});
        if (skipped)
            fprintf(out, markdown ? " skipped: %s |" : "  skipped: %s", skipped);
        fputc('\n', out);
    }
}

static void print_comparison(FILE *out, json_t *cmp, const struct run *all, bool markdown)
{
    json_t *src = json_object_get(cmp, "source");
    json_t *rows = json_object_get(cmp, "rows");
    fprintf(out, "Published: %s (%s), %s.\n",
            json_string_value(json_object_get(src, "title")),
            json_string_value(json_object_get(src, "date")),
            json_string_value(json_object_get(src, "machine")));
    (void)all;
    const char *titles[] = {"Process-level and namespace mechanisms", "Containers",
                            "Not in the published table"};
    for (int block = 0; block < 3; block++) {
        fprintf(out, markdown ? "\n**%s**\n\n" : "\n%s\n", titles[block]);
        if (markdown)
            fputs("| mechanism | published ms | published × | here ms | here × [95% CI] | Δ× |\n"
                  "|---|--:|--:|--:|--:|--:|\n",
                  out);
        else {
            print_text_row(out, (const char *const[]){"mechanism", "publ. ms", "publ. ×", "here ms",
                                                      "here × [95% CI]", "Δ×"});
            fputc('\n', out);
        }
        if (block < 2) {
            print_block(out, rows, block == 1, true, markdown);
        } else {
            print_block(out, rows, false, false, markdown);
            print_block(out, rows, true, false, markdown);
        }
    }
}

/* Both blocks' benches in one run, for one results document and one set of ratios. */
static int combine(struct run *all, const struct run *a, const struct run *b)
{
    *all = *a;
    all->n_benches = a->n_benches + b->n_benches;
    all->benches = calloc(all->n_benches + 1, sizeof *all->benches);
    if (!all->benches)
        return -1;
    memcpy(all->benches, a->benches, a->n_benches * sizeof *a->benches);
    memcpy(all->benches + a->n_benches, b->benches, b->n_benches * sizeof *b->benches);
    all->interrupted = a->interrupted || b->interrupted;
    all->finished = b->finished > a->finished ? b->finished : a->finished;
    return 0;
}

static int measure(struct run *r, struct run_config *cfg)
{
    if (run_plan(r, cfg) < 0)
        return -1;
    if (!sample_stop_requested)
        run_execute(r);
    else
        r->interrupted = true;
    return 0;
}

int cmd_reproduce(int argc, char **argv)
{
    struct reproduce_options o;
    int rc = parse_reproduce_args(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : EXIT_USAGE;
    struct published p;
    if (load_published(&p) < 0)
        return EXIT_USAGE;
    struct atomic_file out = {.fd = -1};
    struct errbuf eb = {{0}};
    if (o.output && atomic_open(&out, o.output, &eb) < 0) {
        usage_error("%s", eb.msg);
        json_decref(p.doc);
        return EXIT_USAGE;
    }
    install_interrupt_handlers();

    struct run_config cfg_ns, cfg_ct;
    block_config(&cfg_ns, &o, false, &p);
    block_config(&cfg_ct, &o, true, &p);
    struct run ns = {0}, ct = {0}, all = {0};
    int exit_code = 0;
    json_t *doc = NULL;
    char *text = NULL;
    if (measure(&ns, &cfg_ns) < 0 || measure(&ct, &cfg_ct) < 0 || combine(&all, &ns, &ct) < 0 ||
        run_summarize(&all) < 0 || !(doc = results_json(&all))) {
        usage_error("reproduce: out of memory");
        exit_code = EXIT_USAGE;
        atomic_abort(&out);
    } else {
        json_t *cmp = comparison(&p, &all);
        json_object_set_new(doc, "reproduce", cmp);
        text = results_dump(doc);
        if (o.output && (!text || atomic_commit(&out, text, strlen(text), &eb) < 0)) {
            usage_error("%s", eb.msg);
            exit_code = EXIT_USAGE;
        }
        if (o.format == FORMAT_JSON && text)
            printf("%s\n", text);
        else
            print_comparison(stdout, cmp, &all, o.format == FORMAT_MARKDOWN);
        if (all.interrupted)
            printf("\ninterrupted: results are incomplete\n");
    }
    if (all.interrupted)
        exit_code = EXIT_INTERRUPTED;
    free(text);
    json_decref(doc);
    free(all.benches);
    run_free(&ns);
    run_free(&ct);
    run_config_free(&cfg_ns);
    run_config_free(&cfg_ct);
    json_decref(p.doc);
    return exit_code;
}
