/* libFuzzer target: a workload description from bytes, as `run -w FILE` loads it: lexer, parser
 * and the expansion of its cases, with nothing written anywhere. A description is either refused
 * with one line naming the file and line, or parsed into cases that each expand (or say what this
 * host lacks); an expanded pipeline survives the trip to sbx-action's argument form and back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "workloads/described.h"
#include "workloads/wl_desc.h"

#define FUZZ_PATH "fuzz.wl"
#define CASES_CHECKED 8 /* the first few and the last: every case is alike, but slow */

static void check_encoding(const struct pl_pipeline *p)
{
    size_t n = pl_encoded_len(p);
    const char **words = calloc(n + 1, sizeof *words);
    char *numbers = malloc(p->n_stages * 24);
    FUZZ_ASSERT(words && numbers);
    pl_encode(p, words, numbers);
    struct pl_pipeline again;
    char why[256];
    FUZZ_ASSERT(pl_decode(n, (char **)words, &again, why, sizeof why) == 0);
    FUZZ_ASSERT(again.n_stages == p->n_stages);
    for (size_t s = 0; s < p->n_stages; s++) {
        FUZZ_ASSERT(again.stages[s].argc == p->stages[s].argc);
        for (size_t i = 0; i < p->stages[s].argc; i++)
            FUZZ_ASSERT(strcmp(again.stages[s].argv[i], p->stages[s].argv[i]) == 0);
        FUZZ_ASSERT(again.stages[s].n_redirs == p->stages[s].n_redirs);
    }
    pl_free(&again);
    free(words);
    free(numbers);
}

static void check_case(const struct wl_desc *d, size_t index, const struct wl_vars *vars)
{
    struct wl_instance inst;
    bool host_missing;
    struct errbuf eb = {{0}};
    if (wl_instantiate(d, index, vars, &inst, &host_missing, &eb) < 0) {
        FUZZ_ASSERT(fuzz_one_line(eb.msg));
        FUZZ_ASSERT(strncmp(eb.msg, FUZZ_PATH ":", strlen(FUZZ_PATH ":")) == 0);
        return;
    }
    FUZZ_ASSERT(inst.label && inst.pipeline.n_stages >= 1 && inst.typed_program);
    for (size_t s = 0; s < inst.pipeline.n_stages; s++)
        FUZZ_ASSERT(inst.pipeline.stages[s].argc >= 1 && inst.pipeline.stages[s].argv[0]);
    FUZZ_ASSERT(inst.ro && inst.rw && inst.env);
    check_encoding(&inst.pipeline);
    (void)described_needs_helper(&inst);
    wl_instance_free(&inst);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* As described.c's reader: a description is not huge (and, fuzz_text, holds no NUL byte). */
    if (size > WL_MAX_FILE_SIZE)
        return 0;
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;

    struct described dw;
    memset(&dw, 0, sizeof dw);
    dw.dir = (char *)FUZZ_DESCRIPTION_DIR;
    struct workload_options opts = {
        .render_size = 256,
        .pipe_sizes = "4,65536",
        .pipe_bytes = 1 << 20,
        .inputs = "1,10",
        .exe_dir = "/usr/bin",
    };
    struct option_strings bufs;
    struct wl_vars vars;
    described_vars(&dw, &opts, &bufs, &vars);

    struct wl_desc d;
    struct errbuf eb = {{0}};
    if (wl_desc_parse(FUZZ_PATH, text, &vars, &d, &eb) < 0) {
        FUZZ_ASSERT(fuzz_one_line(eb.msg));
        free(text);
        return 0;
    }
    FUZZ_ASSERT(d.name && strcmp(d.name, "fuzz") == 0);
    FUZZ_ASSERT(d.n_cases >= 1 && d.n_cases <= WL_MAX_CASES && d.run.lineno);
    wl_vars_set(&vars, "tmp", "/nonexistent/sbxbench-fuzz-tmp");
    for (size_t i = 0; i < d.n_cases && i < CASES_CHECKED; i++)
        check_case(&d, i, &vars);
    if (d.n_cases > CASES_CHECKED)
        check_case(&d, d.n_cases - 1, &vars);
    wl_desc_free(&d);
    free(text);
    return 0;
}
