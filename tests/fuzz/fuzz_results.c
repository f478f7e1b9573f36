/* libFuzzer target: the results loader that `compare` (and through it the report) reads files
 * with. Any bytes: results_parse either refuses them with one line or returns a file whose counts
 * agree; what it accepts then goes through everything `compare` does with a file (judged against
 * itself, printed as a table, Markdown and JSON), which must not crash either. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "harness/compare.h"
#include "harness/compare_output.h"
#include "harness/results_json.h"
#include "harness/results_load.h"

/* A few resamples are enough to reach every line of the bootstrap; thousands would only slow. */
#define FUZZ_RESAMPLES 20

static FILE *devnull;

static void check_loaded(const struct results_file *f)
{
    FUZZ_ASSERT(f->n_results >= 1 && f->results);
    FUZZ_ASSERT(f->date_utc && f->host && f->kernel && f->sbxbench_version && f->git_commit);
    for (size_t i = 0; i < f->n_results; i++) {
        const struct loaded_result *r = &f->results[i];
        FUZZ_ASSERT(r->mechanism && r->family && r->workload && r->label);
        FUZZ_ASSERT(r->failed <= r->runs && r->n_ok == r->runs - r->failed);
        FUZZ_ASSERT(!r->skipped || (r->reason && r->runs == 0));
        for (size_t k = 0; k < r->n_ok; k++)
            FUZZ_ASSERT(r->ok_times[k] >= 0);
        FUZZ_ASSERT(results_find(f, r->mechanism, r->label) == r);
    }
}

static void judge(const struct results_file *f)
{
    const struct results_file *base[1] = {f};
    struct compare_options opt = {COMPARE_DEFAULT_THRESHOLD, BASIS_AUTO, 1, FUZZ_RESAMPLES};
    for (int basis = BASIS_AUTO; basis <= BASIS_OVERHEAD; basis++) {
        struct comparison c;
        opt.basis = (enum compare_basis)basis;
        FUZZ_ASSERT(compare_runs(base, 1, f, &opt, &c) == 0);
        size_t total = 0;
        for (int s = 0; s < PAIR_STATUSES; s++)
            total += c.counts[s];
        FUZZ_ASSERT(total == c.n_pairs);
        /* A file judged against itself cannot have regressed. */
        FUZZ_ASSERT(c.counts[PAIR_REGRESSED] == 0);
        const char *files[1] = {"base.json"};
        struct compare_sources src = {"base.json", files, base, 1, "new.json", f};
        print_compare_table(devnull, &c, &src, basis == BASIS_AUTO);
        print_compare_markdown(devnull, &c, &src);
        json_t *doc = compare_json(&c, &src);
        FUZZ_ASSERT(doc);
        char *text = results_dump(doc);
        FUZZ_ASSERT(text);
        free(text);
        json_decref(doc);
        comparison_free(&c);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    devnull = fopen("/dev/null", "we");
    if (!devnull)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct results_file f;
    char err[512] = "";
    if (results_parse((const char *)data, size, &f, err, sizeof err) < 0) {
        FUZZ_ASSERT(fuzz_one_line(err));
        return 0;
    }
    check_loaded(&f);
    judge(&f);
    results_file_free(&f);
    return 0;
}
