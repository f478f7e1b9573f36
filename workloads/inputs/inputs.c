/* inputs: an action that opens, reads and checks N input files, one case per count in --inputs and
 * staging method in --staging (docs/scaling.md). The tree is generated once in the cache. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runners/runner.h"
#include "workloads/described.h"
#include "workloads/inputs/tree.h"
#include "workloads/workload.h"

#define READER "sbx-read-inputs"

extern const struct workload workload_inputs;

struct inputs_case {
    char root[4096];
    char *ro[2];        /* the reader, and the root when it is staged whole */
    char **paths;       /* the inputs' relative paths, in one block with their strings */
    char expected[128]; /* the reader's line */
    char digest[17];
};

static int reader_path(const struct workload_options *opts, char *buf, size_t len)
{
    return snprintf(buf, len, "%s/%s", described_exe_dir(opts), READER) < (int)len ? 0 : -1;
}

static bool inputs_available(const struct workload_options *opts, char *why, size_t whylen)
{
    char path[4096];
    if (reader_path(opts, path, sizeof path) < 0 || access(path, X_OK) < 0) {
        snprintf(why, whylen, "%s not found next to sbxbench (%s)", READER, path);
        return false;
    }
    return true;
}

/* The relative paths of inputs 0..n-1 as a vector whose strings share its allocation. */
static char **path_block(size_t n)
{
    char **v = malloc((n + 1) * sizeof *v + n * INPUTS_PATH_MAX);
    if (!v)
        return NULL;
    char *s = (char *)(v + n + 1);
    for (size_t i = 0; i < n; i++, s += INPUTS_PATH_MAX) {
        inputs_path(i, s);
        v[i] = s;
    }
    v[n] = NULL;
    return v;
}

/* What the reader must print for the first n inputs: every file generated and hashed here. */
static int expected_line(size_t n, char *line, size_t linelen)
{
    unsigned char *buf = malloc(INPUTS_MAX_SIZE + 1);
    if (!buf)
        return -1;
    char rel[INPUTS_PATH_MAX];
    unsigned long long bytes = 0;
    uint64_t d = 0;
    for (size_t i = 0; i < n; i++) {
        inputs_path(i, rel);
        uint64_t seed = inputs_seed(rel);
        size_t size = inputs_size(seed);
        inputs_fill(seed, buf);
        d = inputs_digest_add(d, inputs_hash(buf, size));
        bytes += size;
    }
    free(buf);
    snprintf(line, linelen, "%zu inputs, %llu bytes, digest %016llx\n", n, bytes,
             (unsigned long long)d);
    return 0;
}

static int check_output(const struct workload_case *c, int fd, char *digest, size_t digestlen,
                        char *why, size_t whylen)
{
    const struct inputs_case *ic = c->priv;
    char out[256];
    ssize_t n = read(fd, out, sizeof out - 1);
    out[n > 0 ? n : 0] = '\0';
    snprintf(digest, digestlen, "%s", ic->digest);
    if (strcmp(out, ic->expected) == 0)
        return 0;
    out[strcspn(out, "\n")] = '\0';
    snprintf(why, whylen, "expected '%.*s', got '%s'", (int)strcspn(ic->expected, "\n"),
             ic->expected, out);
    return -1;
}

static void inputs_cleanup(struct workload_case *c)
{
    struct inputs_case *ic = c->priv;
    if (!ic)
        return;
    free(ic->ro[0]);
    free(ic->paths);
    free(ic);
    c->priv = NULL;
}

static int add_case(const struct workload_options *opts, const char *root, size_t n,
                    enum staging how, const char *expected, struct workload_case **cases,
                    size_t *n_cases, struct errbuf *eb)
{
    struct workload_case *c = workload_case_add(cases, n_cases);
    struct inputs_case *ic = c ? calloc(1, sizeof *ic) : NULL;
    char reader[4096];
    if (!ic)
        return err_sys(eb, "inputs", NULL, ENOMEM);
    c->priv = ic;
    snprintf(ic->root, sizeof ic->root, "%s", root);
    snprintf(ic->expected, sizeof ic->expected, "%s", expected);
    snprintf(ic->digest, sizeof ic->digest, "%s", strrchr(expected, ' ') + 1);
    ic->digest[strcspn(ic->digest, "\n")] = '\0';
    if (reader_path(opts, reader, sizeof reader) < 0 || !(ic->ro[0] = strdup(reader)) ||
        !(ic->paths = path_block(n)) ||
        asprintf(&c->label, "inputs/%zu/%s", n, staging_name(how)) < 0)
        return err_sys(eb, "inputs", NULL, ENOMEM);
    struct action *a = &c->action;
    if (!(a->argv = strv_new()) || strv_push(&a->argv, reader) < 0 ||
        (staging_isolates(how) && strv_push(&a->argv, "--hidden") < 0) ||
        strv_push(&a->argv, ic->root) < 0 || strv_pushf(&a->argv, "%zu", n) < 0)
        return err_sys(eb, "inputs", NULL, ENOMEM);
    a->name = READER;
    ic->ro[1] = ic->root;
    a->ro_paths = (const char **)ic->ro;
    a->n_ro_paths = how == STAGING_ROOT ? 2 : 1;
    a->inputs_root = ic->root;
    a->inputs = ic->paths;
    a->n_inputs = n;
    a->staging = how;
    c->params[0] = (struct param){"inputs", (long long)n, NULL};
    c->params[1] = (struct param){"staging", 0, staging_name(how)};
    c->n_params = 2;
    c->capture_stdout = true;
    c->check = check_output;
    return 0;
}

/* Comma-separated counts and methods; the command line has checked them already. */
static int inputs_prepare(const struct workload_options *opts, struct workload_case **cases,
                          size_t *n_cases, struct errbuf *eb)
{
    char **counts = NULL, **methods = NULL, root[4096], expected[128];
    size_t max = 0, before = *n_cases;
    int rc = -1;
    if (!(counts = strv_new()) || !(methods = strv_new())) {
        err_sys(eb, "inputs", NULL, ENOMEM);
        goto out;
    }
    for (int pass = 0; pass < 2; pass++) {
        const char *list = pass == 0 ? (opts->inputs ? opts->inputs : "1")
                                     : (opts->staging ? opts->staging : "root");
        char *copy = strdup(list), *save = NULL;
        for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save))
            strv_push(pass == 0 ? &counts : &methods, t);
        free(copy);
    }
    for (size_t i = 0; counts[i]; i++) {
        char *end;
        unsigned long v = strtoul(counts[i], &end, 10);
        if (*end || v < 1 || v > INPUTS_MAX) {
            err_msg(eb, "inputs: '%s' is not a count from 1 to %d", counts[i], INPUTS_MAX);
            goto out;
        }
        max = v > max ? v : max;
    }
    for (size_t i = 0; methods[i]; i++) {
        if (staging_from_name(methods[i]) < 0) {
            err_msg(eb, "inputs: unknown staging method '%s' (%s)", methods[i], staging_names());
            goto out;
        }
    }
    if (max == 0) {
        err_msg(eb, "inputs: no counts given (--inputs)");
        goto out;
    }
    if (inputs_tree_ensure(opts->cache_dir, max, root, sizeof root, eb) < 0)
        goto out;
    rc = 0;
    for (size_t i = 0; counts[i] && rc == 0; i++) {
        size_t n = strtoul(counts[i], NULL, 10);
        if (expected_line(n, expected, sizeof expected) < 0)
            rc = err_sys(eb, "inputs", NULL, ENOMEM);
        for (size_t m = 0; methods[m] && rc == 0; m++)
            rc = add_case(opts, root, n, (enum staging)staging_from_name(methods[m]), expected,
                          cases, n_cases, eb);
    }
    if (rc < 0) { /* no half-made cases left behind */
        while (*n_cases > before)
            workload_case_free(&workload_inputs, &(*cases)[--*n_cases]);
    }
out:
    strv_free(counts);
    strv_free(methods);
    return rc;
}

const struct workload workload_inputs = {
    .name = "inputs",
    .summary = "open, read and check N input files of a generated tree (--inputs, --staging)",
    .available = inputs_available,
    .prepare = inputs_prepare,
    .cleanup = inputs_cleanup,
};
