#include "harness/results_load.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/results_json.h"

/* Larger than any run writes (a million samples is about 100 MB): refuse rather than exhaust. */
#define MAX_FILE_BYTES (1L << 30)

/* The message goes on one line whatever the input held: control bytes become '?'. */
static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    for (char *p = err; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return -1;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
    default:
        return "null";
    }
}

/* What a field must hold; each mirrors a type in results/schema.json. */
enum kind {
    K_STRING,
    K_STRING_OR_NULL,
    K_SECONDS,         /* number >= 0 */
    K_SECONDS_OR_NULL, /* number >= 0 or null */
    K_COUNT,           /* integer >= 0 */
    K_COUNT_OR_NULL,
    K_POSITIVE, /* integer >= 1 */
    K_INTEGER,
    K_BOOL,
    K_OBJECT,
    K_ARRAY,
    K_INTERVAL, /* null or [number, number] */
    K_STRINGS,  /* array of strings */
    K_STRINGS_OR_NULL,
    K_SECONDS_ARRAY, /* array of numbers >= 0 */
    K_CODES,         /* array of integers or null */
};

static const char *const kind_text[] = {
    [K_STRING] = "a string",
    [K_STRING_OR_NULL] = "a string or null",
    [K_SECONDS] = "a number >= 0",
    [K_SECONDS_OR_NULL] = "a number >= 0 or null",
    [K_COUNT] = "an integer >= 0",
    [K_COUNT_OR_NULL] = "an integer >= 0 or null",
    [K_POSITIVE] = "an integer >= 1",
    [K_INTEGER] = "an integer",
    [K_BOOL] = "a boolean",
    [K_OBJECT] = "an object",
    [K_ARRAY] = "an array",
    [K_INTERVAL] = "null or a pair of numbers",
    [K_STRINGS] = "an array of strings",
    [K_STRINGS_OR_NULL] = "an array of strings or null",
    [K_SECONDS_ARRAY] = "an array of numbers >= 0",
    [K_CODES] = "an array of integers or nulls",
};

struct field {
    const char *key;
    enum kind kind;
};

static bool is_seconds(const json_t *v)
{
    return json_is_number(v) && json_number_value(v) >= 0;
}

static bool item_ok(const json_t *item, enum kind kind)
{
    if (kind == K_SECONDS_ARRAY)
        return is_seconds(item);
    if (kind == K_CODES)
        return json_is_integer(item) || json_is_null(item);
    return json_is_string(item); /* K_STRINGS, K_STRINGS_OR_NULL */
}

/* For arrays: the index of the first bad item, or -1 when all are good. */
static long bad_item(const json_t *a, enum kind kind)
{
    for (size_t i = 0; i < json_array_size(a); i++)
        if (!item_ok(json_array_get(a, i), kind))
            return (long)i;
    return -1;
}

/* Whether v has the kind; for arrays, *item gets the first bad item's index (else -1). */
static bool has_kind(const json_t *v, enum kind kind, long *item)
{
    *item = -1;
    switch (kind) {
    case K_STRING:
        return json_is_string(v);
    case K_STRING_OR_NULL:
        return json_is_string(v) || json_is_null(v);
    case K_SECONDS:
        return is_seconds(v);
    case K_SECONDS_OR_NULL:
        return is_seconds(v) || json_is_null(v);
    case K_COUNT:
        return json_is_integer(v) && json_integer_value(v) >= 0;
    case K_COUNT_OR_NULL:
        return (json_is_integer(v) && json_integer_value(v) >= 0) || json_is_null(v);
    case K_POSITIVE:
        return json_is_integer(v) && json_integer_value(v) >= 1;
    case K_INTEGER:
        return json_is_integer(v);
    case K_BOOL:
        return json_is_boolean(v);
    case K_OBJECT:
        return json_is_object(v);
    case K_ARRAY:
        return json_is_array(v);
    case K_INTERVAL:
        return json_is_null(v) ||
               (json_is_array(v) && json_array_size(v) == 2 &&
                json_is_number(json_array_get(v, 0)) && json_is_number(json_array_get(v, 1)));
    case K_STRINGS_OR_NULL:
        if (json_is_null(v))
            return true;
        /* fall through */
    case K_STRINGS:
    case K_SECONDS_ARRAY:
    case K_CODES:
        if (!json_is_array(v))
            return false;
        *item = bad_item(v, kind);
        return *item < 0;
    default:
        return false;
    }
}

/* What v is, for a message: its type, or its value when the type was right but the value not. */
static const char *describe(const json_t *v, char *buf, size_t len)
{
    if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
             fabs(json_real_value(v)) < 1e15)
        snprintf(buf, len, "%.1f", json_real_value(v)); /* 4.0, which an integer field refuses */
    else if (json_is_real(v))
        snprintf(buf, len, "%g", json_real_value(v));
    else
        return type_name(v);
    return buf;
}

/* What each item of an array kind must be. */
static const char *item_text(enum kind kind)
{
    return kind == K_SECONDS_ARRAY ? "a number >= 0"
           : kind == K_CODES       ? "an integer or null"
                                   : "a string";
}

static int check_fields(const json_t *obj, const struct field *fields, const char *where, char *err,
                        size_t errlen)
{
    for (const struct field *f = fields; f->key; f++) {
        const json_t *v = json_object_get(obj, f->key);
        long item;
        char value[64];
        if (!v)
            return fail(err, errlen, "%s: \"%s\" missing", where, f->key);
        if (has_kind(v, f->kind, &item))
            continue;
        if (item >= 0)
            return fail(err, errlen, "%s.%s[%ld]: %s expected, got %s", where, f->key, item,
                        item_text(f->kind),
                        describe(json_array_get(v, (size_t)item), value, sizeof value));
        return fail(err, errlen, "%s.%s: %s expected, got %s", where, f->key, kind_text[f->kind],
                    describe(v, value, sizeof value));
    }
    return 0;
}

static const struct field meta_fields[] = {
    {"sbxbench_version", K_STRING}, {"git_commit", K_STRING},
    {"date_utc", K_STRING},         {"duration_s", K_SECONDS},
    {"interrupted", K_BOOL},        {"host", K_OBJECT},
    {"config", K_OBJECT},           {NULL, 0},
};

static const struct field host_fields[] = {
    {"host", K_STRING},    {"kernel", K_STRING}, {"cpu_model", K_STRING_OR_NULL},
    {"cores", K_POSITIVE}, {"tools", K_OBJECT},  {NULL, 0},
};

static const struct field config_fields[] = {
    {"mechanisms", K_STRINGS},       {"workloads", K_STRINGS}, {"runs", K_COUNT_OR_NULL},
    {"min_time", K_SECONDS_OR_NULL}, {"warmup", K_COUNT},      {"order", K_STRING},
    {"timeout", K_SECONDS},          {"seed", K_COUNT},        {NULL, 0},
};

/* Every key results/schema.json requires of a result, with its type. */
static const struct field result_fields[] = {
    {"command", K_STRING},
    {"mean", K_SECONDS_OR_NULL},
    {"stddev", K_SECONDS_OR_NULL},
    {"median", K_SECONDS_OR_NULL},
    {"user", K_SECONDS_OR_NULL},
    {"system", K_SECONDS_OR_NULL},
    {"min", K_SECONDS_OR_NULL},
    {"max", K_SECONDS_OR_NULL},
    {"times", K_SECONDS_ARRAY},
    {"exit_codes", K_CODES},
    {"mechanism", K_STRING},
    {"family", K_STRING},
    {"workload", K_STRING},
    {"case", K_STRING},
    {"params", K_OBJECT},
    {"argv", K_STRINGS_OR_NULL},
    {"skipped", K_BOOL},
    {"reason", K_STRING_OR_NULL},
    {"runs", K_COUNT},
    {"n", K_COUNT},
    {"failed", K_COUNT},
    {"failures", K_ARRAY},
    {"p5", K_SECONDS_OR_NULL},
    {"p95", K_SECONDS_OR_NULL},
    {"p99", K_SECONDS_OR_NULL},
    {"mad", K_SECONDS_OR_NULL},
    {"outliers", K_COUNT_OR_NULL},
    {"cv", K_SECONDS_OR_NULL},
    {"median_ci", K_INTERVAL},
    {"baseline", K_STRING_OR_NULL},
    {"ratio", K_SECONDS_OR_NULL},
    {"ratio_ci", K_INTERVAL},
    {NULL, 0},
};

static bool is_date_utc(const char *s)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(s) != sizeof shape - 1)
        return false;
    for (size_t i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
            return false;
    return true;
}

static char *dup_string(const json_t *v)
{
    return json_is_string(v) ? strdup(json_string_value(v)) : NULL;
}

static int load_meta(const json_t *meta, struct results_file *out, char *err, size_t errlen)
{
    if (!json_is_object(meta))
        return fail(err, errlen, "meta: an object expected, got %s",
                    meta ? type_name(meta) : "nothing");
    if (check_fields(meta, meta_fields, "meta", err, errlen) < 0)
        return -1;
    const json_t *host = json_object_get(meta, "host");
    if (check_fields(host, host_fields, "meta.host", err, errlen) < 0 ||
        check_fields(json_object_get(meta, "config"), config_fields, "meta.config", err, errlen) <
            0)
        return -1;
    const char *date = json_string_value(json_object_get(meta, "date_utc"));
    if (!is_date_utc(date))
        return fail(err, errlen, "meta.date_utc: YYYY-MM-DDTHH:MM:SSZ expected, got \"%.40s\"",
                    date);
    out->date_utc = strdup(date);
    out->sbxbench_version = dup_string(json_object_get(meta, "sbxbench_version"));
    out->git_commit = dup_string(json_object_get(meta, "git_commit"));
    out->host = dup_string(json_object_get(host, "host"));
    out->kernel = dup_string(json_object_get(host, "kernel"));
    out->cpu_model = dup_string(json_object_get(host, "cpu_model")); /* NULL when null */
    if (!out->date_utc || !out->sbxbench_version || !out->git_commit || !out->host || !out->kernel)
        return fail(err, errlen, "out of memory");
    return 0;
}

static size_t count_value(const json_t *r, const char *key)
{
    return (size_t)json_integer_value(json_object_get(r, key));
}

/* failures[] must name distinct samples that exist; *failed_at gets a flag per sample. */
static int load_failures(const json_t *failures, size_t runs, bool *failed_at, const char *where,
                         char *err, size_t errlen)
{
    for (size_t i = 0; i < json_array_size(failures); i++) {
        const json_t *f = json_array_get(failures, i);
        if (!json_is_object(f))
            return fail(err, errlen, "%s.failures[%zu]: an object expected, got %s", where, i,
                        type_name(f));
        const json_t *index = json_object_get(f, "index");
        if (!json_is_string(json_object_get(f, "reason")))
            return fail(err, errlen, "%s.failures[%zu].reason: a string expected", where, i);
        if (!json_is_integer(index) || json_integer_value(index) < 0 ||
            (uint64_t)json_integer_value(index) >= runs)
            return fail(err, errlen, "%s.failures[%zu].index: a sample index below %zu expected",
                        where, i, runs);
        size_t at = (size_t)json_integer_value(index);
        if (failed_at[at])
            return fail(err, errlen, "%s.failures[%zu]: sample %zu listed twice", where, i, at);
        failed_at[at] = true;
    }
    return 0;
}

/* The counts must agree with each other and with the arrays: a file that contradicts itself is
 * not one to judge a regression by. */
static int check_counts(const json_t *r, const char *where, char *err, size_t errlen)
{
    size_t runs = count_value(r, "runs"), n = count_value(r, "n"),
           failed = count_value(r, "failed");
    size_t times = json_array_size(json_object_get(r, "times"));
    if (times != runs)
        return fail(err, errlen, "%s: %zu times but runs is %zu", where, times, runs);
    if (json_array_size(json_object_get(r, "exit_codes")) != runs)
        return fail(err, errlen, "%s: exit_codes and times differ in length", where);
    if (json_array_size(json_object_get(r, "failures")) != failed)
        return fail(err, errlen, "%s: failed is %zu but %zu failures are listed", where, failed,
                    json_array_size(json_object_get(r, "failures")));
    if (n > runs || n + failed != runs)
        return fail(err, errlen, "%s: n (%zu) + failed (%zu) is not runs (%zu)", where, n, failed,
                    runs);
    return 0;
}

static int load_result(const json_t *r, const char *where, struct loaded_result *out, char *err,
                       size_t errlen)
{
    if (!json_is_object(r))
        return fail(err, errlen, "%s: an object expected, got %s", where, type_name(r));
    if (check_fields(r, result_fields, where, err, errlen) < 0 ||
        check_counts(r, where, err, errlen) < 0)
        return -1;
    const char *family = json_string_value(json_object_get(r, "family"));
    if (strcmp(family, "process") && strcmp(family, "namespace") && strcmp(family, "container"))
        return fail(err, errlen,
                    "%s.family: process, namespace or container expected, got \"%.40s\"", where,
                    family);
    out->skipped = json_is_true(json_object_get(r, "skipped"));
    const json_t *reason = json_object_get(r, "reason");
    if (out->skipped != json_is_string(reason))
        return fail(err, errlen, "%s.reason: %s expected for a result %s skipped", where,
                    out->skipped ? "a string" : "null", out->skipped ? "that was" : "not");
    out->runs = count_value(r, "runs");
    out->failed = count_value(r, "failed");
    if (out->skipped && out->runs)
        return fail(err, errlen, "%s: skipped, yet %zu samples recorded", where, out->runs);

    bool *failed_at = calloc(out->runs + 1, sizeof *failed_at);
    out->ok_times = malloc((out->runs + 1) * sizeof *out->ok_times);
    if (!failed_at || !out->ok_times) {
        free(failed_at);
        return fail(err, errlen, "out of memory");
    }
    if (load_failures(json_object_get(r, "failures"), out->runs, failed_at, where, err, errlen) <
        0) {
        free(failed_at);
        return -1;
    }
    const json_t *times = json_object_get(r, "times");
    for (size_t i = 0; i < out->runs; i++)
        if (!failed_at[i])
            out->ok_times[out->n_ok++] = json_number_value(json_array_get(times, i));
    free(failed_at);

    out->mechanism = dup_string(json_object_get(r, "mechanism"));
    out->family = strdup(family);
    out->workload = dup_string(json_object_get(r, "workload"));
    out->label = dup_string(json_object_get(r, "case"));
    out->reason = dup_string(reason);
    if (!out->mechanism || !out->family || !out->workload || !out->label ||
        (out->skipped && !out->reason))
        return fail(err, errlen, "out of memory");
    return 0;
}

static int cmp_result_key(const void *pa, const void *pb)
{
    const struct loaded_result *a = *(const struct loaded_result *const *)pa;
    const struct loaded_result *b = *(const struct loaded_result *const *)pb;
    int c = strcmp(a->mechanism, b->mechanism);
    return c ? c : strcmp(a->label, b->label);
}

/* Results are paired by (mechanism, case): each pair may appear once. Sorted, not pairwise, so a
 * file of a million results costs n log n. */
static int check_unique(const struct results_file *f, char *err, size_t errlen)
{
    const struct loaded_result **sorted = malloc(f->n_results * sizeof *sorted);
    if (!sorted)
        return fail(err, errlen, "out of memory");
    for (size_t i = 0; i < f->n_results; i++)
        sorted[i] = &f->results[i];
    qsort(sorted, f->n_results, sizeof *sorted, cmp_result_key);
    int rc = 0;
    for (size_t i = 1; i < f->n_results && rc == 0; i++)
        if (cmp_result_key(&sorted[i - 1], &sorted[i]) == 0)
            rc = fail(err, errlen,
                      "results[%zu]: mechanism \"%.60s\", case \"%.60s\" appears "
                      "twice",
                      (size_t)(sorted[i] - f->results), sorted[i]->mechanism, sorted[i]->label);
    free(sorted);
    return rc;
}

static int load_results(const json_t *results, struct results_file *out, char *err, size_t errlen)
{
    if (!json_is_array(results))
        return fail(err, errlen, "results: an array expected, got %s",
                    results ? type_name(results) : "nothing");
    size_t n = json_array_size(results);
    if (n == 0)
        return fail(err, errlen, "results: the array is empty: nothing was measured");
    out->results = calloc(n, sizeof *out->results);
    if (!out->results)
        return fail(err, errlen, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char where[32];
        snprintf(where, sizeof where, "results[%zu]", i);
        out->n_results = i + 1; /* so that a failure frees what this one holds */
        if (load_result(json_array_get(results, i), where, &out->results[i], err, errlen) < 0)
            return -1;
    }
    return check_unique(out, err, errlen);
}

static int check_header(const json_t *doc, struct results_file *out, char *err, size_t errlen)
{
    if (!json_is_object(doc))
        return fail(err, errlen, "not an sbxbench results file: the document is %s, not an object",
                    type_name(doc));
    const json_t *schema = json_object_get(doc, "schema");
    if (!schema)
        return fail(err, errlen, "not an sbxbench results file: no \"schema\" key");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), RESULTS_SCHEMA) != 0)
        return fail(err, errlen, "not an sbxbench results file: schema is %s%.40s%s, not \"%s\"",
                    json_is_string(schema) ? "\"" : "",
                    json_is_string(schema) ? json_string_value(schema) : type_name(schema),
                    json_is_string(schema) ? "\"" : "", RESULTS_SCHEMA);
    const json_t *version = json_object_get(doc, "schema_version");
    if (!json_is_integer(version))
        return fail(err, errlen, "schema_version: an integer expected, got %s",
                    version ? type_name(version) : "nothing");
    out->version = (long)json_integer_value(version);
    if (out->version != RESULTS_SCHEMA_VERSION)
        return fail(err, errlen,
                    "schema_version %lld is not supported: this sbxbench reads "
                    "version %d",
                    (long long)json_integer_value(version), RESULTS_SCHEMA_VERSION);
    const json_t *complete = json_object_get(doc, "complete");
    if (!json_is_boolean(complete))
        return fail(err, errlen, "complete: a boolean expected, got %s",
                    complete ? type_name(complete) : "nothing");
    out->complete = json_is_true(complete);
    return 0;
}

int results_parse(const char *data, size_t len, struct results_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (len == 0)
        return fail(err, errlen, "empty file");
    json_error_t jerr;
    json_t *doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
    /* jansson says "end of file" or "end of input" when the text stops mid-document. */
    if (!doc && (strstr(jerr.text, "end of file") || strstr(jerr.text, "end of input")))
        return fail(err, errlen,
                    "not valid JSON: it ends too early, truncated? (%s at line %d, "
                    "column %d)",
                    jerr.text, jerr.line, jerr.column);
    if (!doc)
        return fail(err, errlen, "not valid JSON: %s at line %d, column %d", jerr.text, jerr.line,
                    jerr.column);
    int rc = -1;
    if (check_header(doc, out, err, errlen) == 0 &&
        load_meta(json_object_get(doc, "meta"), out, err, errlen) == 0 &&
        load_results(json_object_get(doc, "results"), out, err, errlen) == 0)
        rc = 0;
    json_decref(doc);
    if (rc < 0)
        results_file_free(out);
    return rc;
}

static char *read_whole(int fd, size_t *len, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) < 0) {
        fail(err, errlen, "cannot read: %s", strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        fail(err, errlen, "is a directory, not a results file");
        return NULL;
    }
    size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536, used = 0;
    char *buf = NULL;
    for (;;) {
        if (cap > MAX_FILE_BYTES) {
            fail(err, errlen, "too large for a results file (over %ld bytes)", MAX_FILE_BYTES);
            break;
        }
        char *bigger = realloc(buf, cap);
        if (!bigger) {
            fail(err, errlen, "out of memory");
            break;
        }
        buf = bigger;
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fail(err, errlen, "cannot read: %s", strerror(errno));
            break;
        }
        if (got == 0) {
            *len = used;
            return buf;
        }
        used += (size_t)got;
        if (used == cap)
            cap *= 2;
    }
    free(buf);
    return NULL;
}

int results_load(const char *path, struct results_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(err, errlen, "cannot open: %s", strerror(errno));
    size_t len = 0;
    char *data = read_whole(fd, &len, err, errlen);
    close(fd);
    if (!data)
        return -1;
    int rc = results_parse(data, len, out, err, errlen);
    free(data);
    return rc;
}

static void result_free(struct loaded_result *r)
{
    free(r->mechanism);
    free(r->family);
    free(r->workload);
    free(r->label);
    free(r->reason);
    free(r->ok_times);
}

void results_file_free(struct results_file *f)
{
    for (size_t i = 0; f->results && i < f->n_results; i++)
        result_free(&f->results[i]);
    free(f->results);
    free(f->date_utc);
    free(f->sbxbench_version);
    free(f->git_commit);
    free(f->host);
    free(f->kernel);
    free(f->cpu_model);
    memset(f, 0, sizeof *f);
}

const struct loaded_result *results_find(const struct results_file *f, const char *mechanism,
                                         const char *label)
{
    for (size_t i = 0; i < f->n_results; i++)
        if (!strcmp(f->results[i].mechanism, mechanism) && !strcmp(f->results[i].label, label))
            return &f->results[i];
    return NULL;
}
