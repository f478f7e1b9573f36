/* sbxbench run: plan, measure, summarise, write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/atomic_file.h"
#include "harness/bench.h"
#include "harness/commands.h"
#include "harness/interrupt.h"
#include "harness/results_json.h"
#include "harness/table.h"
#include "harness/usage.h"

static void warn_noisy(const struct run *run)
{
    for (size_t i = 0; i < run->n_benches; i++) {
        const struct bench *b = &run->benches[i];
        if (b->summary.n > 1 && b->summary.cv > STATS_HIGH_CV)
            warn("%s × %s: coefficient of variation %.0f%%: the machine was noisy; the median is "
                 "more trustworthy than the mean",
                 b->runner->name, b->wcase->label, b->summary.cv * 100);
    }
}

static void print_summary(const struct run *run, const struct run_config *cfg, const char *json)
{
    switch (cfg->format) {
    case FORMAT_JSON:
        fputs(json, stdout);
        fputc('\n', stdout);
        break;
    case FORMAT_MARKDOWN:
        print_markdown(stdout, run);
        break;
    case FORMAT_TABLE:
    default:
        print_table(stdout, run, cfg->color);
        break;
    }
    fflush(stdout);
}

int cmd_run(int argc, char **argv)
{
    struct run_config cfg;
    int rc = parse_run_args(argc, argv, &cfg);
    if (rc) {
        run_config_free(&cfg);
        return rc == 1 ? 0 : EXIT_USAGE;
    }
    struct atomic_file out = {.fd = -1};
    struct errbuf eb = {{0}};
    if (cfg.output && atomic_open(&out, cfg.output, &eb) < 0) {
        usage_error("%s", eb.msg);
        run_config_free(&cfg);
        return EXIT_USAGE;
    }
    install_interrupt_handlers();

    struct run run;
    int exit_code = 0;
    if (run_plan(&run, &cfg) < 0) {
        atomic_abort(&out);
        run_config_free(&cfg);
        return EXIT_USAGE;
    }
    run_execute(&run);
    json_t *doc = NULL;
    char *text = NULL;
    if (run_summarize(&run) < 0 || !(doc = results_json(&run)) || !(text = results_dump(doc))) {
        usage_error("run: out of memory while summarising");
        exit_code = EXIT_USAGE;
        atomic_abort(&out);
    } else {
        if (cfg.output && atomic_commit(&out, text, strlen(text), &eb) < 0) {
            usage_error("%s", eb.msg);
            exit_code = EXIT_USAGE;
        }
        print_summary(&run, &cfg, text);
        if (cfg.format != FORMAT_TABLE) /* the table marks noisy rows itself */
            warn_noisy(&run);
        if (cfg.output && exit_code == 0 && cfg.format != FORMAT_JSON)
            fprintf(stderr, "results written to %s\n", cfg.output);
    }
    if (run.interrupted)
        exit_code = EXIT_INTERRUPTED;
    free(text);
    json_decref(doc);
    run_free(&run);
    run_config_free(&cfg);
    return exit_code;
}
