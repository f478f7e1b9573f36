#include "harness/results_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/hostinfo.h"
#include "version.h"

json_t *json_number_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *strv_json(char *const *v)
{
    json_t *a = json_array();
    for (size_t i = 0; v && v[i]; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static const char *order_name(enum run_order o)
{
    return o == ORDER_GROUPED ? "grouped" : "interleaved";
}

static json_t *config_json(const struct run_config *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "mechanisms", strv_json(c->mechanisms));
    json_object_set_new(o, "workloads", strv_json(c->workloads));
    if (c->min_time > 0) {
        json_object_set_new(o, "runs", json_null());
        json_object_set_new(o, "min_time", json_real(c->min_time));
    } else {
        json_object_set_new(o, "runs", json_integer(c->runs));
        json_object_set_new(o, "min_time", json_null());
    }
    json_object_set_new(o, "warmup", json_integer(c->warmup));
    json_object_set_new(o, "order", json_string(order_name(c->order)));
    json_object_set_new(o, "pin", c->pin ? json_string(c->pin) : json_null());
    json_object_set_new(o, "timeout", json_real(c->timeout));
    json_object_set_new(o, "seed", json_integer((json_int_t)c->seed));
    json_object_set_new(o, "spawn", json_string(c->ropts.spawn == SPAWN_FORK ? "fork"
                                                                              : "posix_spawn"));
    json_object_set_new(o, "path_dirs", json_integer(c->ropts.path_dirs));
    json_object_set_new(o, "seccomp", json_string(c->ropts.seccomp));
    json_object_set_new(o, "staging", json_string(c->ropts.staging));
    json_object_set_new(o, "render_size", json_integer(c->wopts.render_size));
    json_object_set_new(o, "render_vm", c->wopts.render_vm ? json_string(c->wopts.render_vm)
                                                            : json_null());
    json_object_set_new(o, "render_threads", json_integer(c->wopts.render_threads));
    json_object_set_new(o, "pipe_sizes", json_string(c->wopts.pipe_sizes));
    json_object_set_new(o, "pipe_bytes", json_integer(c->wopts.pipe_bytes));
    json_object_set_new(o, "inputs", json_string(c->wopts.inputs));
    return o;
}

static json_t *params_json(const struct workload_case *c)
{
    json_t *o = json_object();
    for (size_t i = 0; i < c->n_params; i++)
        json_object_set_new(o, c->params[i].key,
                            c->params[i].str ? json_string(c->params[i].str)
                                             : json_integer(c->params[i].num));
    return o;
}

static json_t *interval(double lo, double hi)
{
    if (!isfinite(lo) || !isfinite(hi))
        return json_null();
    return json_pack("[ff]", lo, hi);
}

/* Per-sample arrays, parallel to "times". */
static void add_sample_arrays(json_t *r, const struct bench *b)
{
    json_t *times = json_array(), *codes = json_array(), *user = json_array(),
           *sys = json_array(), *rss = json_array();
    for (size_t i = 0; i < b->n_samples; i++) {
        const struct sample *s = &b->samples[i];
        json_array_append_new(times, json_real(s->wall));
        json_array_append_new(codes, s->exit_code >= 0 ? json_integer(s->exit_code)
                                                       : json_null());
        json_array_append_new(user, json_real(s->user));
        json_array_append_new(sys, json_real(s->system));
        json_array_append_new(rss, json_integer(s->max_rss_kb));
    }
    json_object_set_new(r, "times", times);
    json_object_set_new(r, "exit_codes", codes);
    json_object_set_new(r, "user_times", user);
    json_object_set_new(r, "system_times", sys);
    json_object_set_new(r, "max_rss_kb", rss);
}

static void add_cpu_means(json_t *r, const struct bench *b)
{
    double user = 0, sys = 0;
    size_t n = 0;
    for (size_t i = 0; i < b->n_samples; i++) {
        if (!sample_ok(&b->samples[i]))
            continue;
        user += b->samples[i].user;
        sys += b->samples[i].system;
        n++;
    }
    json_object_set_new(r, "user", n ? json_real(user / (double)n) : json_null());
    json_object_set_new(r, "system", n ? json_real(sys / (double)n) : json_null());
}

static void add_statistics(json_t *r, const struct bench *b)
{
    const struct summary *s = &b->summary;
    bool any = s->n > 0;
#define STAT(key, v) json_object_set_new(r, key, any ? json_number_or_null(v) : json_null())
    STAT("mean", s->mean);
    STAT("stddev", s->stddev);
    STAT("median", s->median);
    STAT("min", s->min);
    STAT("max", s->max);
    STAT("p5", s->p5);
    STAT("p95", s->p95);
    STAT("p99", s->p99);
    STAT("mad", s->mad);
    STAT("cv", s->cv);
#undef STAT
    json_object_set_new(r, "outliers", any ? json_integer((json_int_t)s->outliers) : json_null());
    json_object_set_new(r, "median_ci", any ? interval(s->median_lo, s->median_hi) : json_null());
    json_object_set_new(r, "high_cv", json_boolean(any && s->cv > STATS_HIGH_CV));
    json_object_set_new(r, "baseline", b->baseline ? json_string("process") : json_null());
    json_object_set_new(r, "ratio", json_number_or_null(b->ratio));
    json_object_set_new(r, "ratio_ci", interval(b->ratio_lo, b->ratio_hi));
    json_object_set_new(r, "overhead_s", json_number_or_null(b->overhead_s));
    json_object_set_new(r, "overhead_fraction", json_number_or_null(b->overhead_fraction));
    json_object_set_new(r, "overhead_fraction_ci",
                        interval(b->overhead_fraction_lo, b->overhead_fraction_hi));
    /* MB/s, 10^6 bytes a second: the bytes a sample moves over the median sample. */
    double volume = (double)b->wcase->volume_bytes;
    json_object_set_new(r, "throughput_MBps",
                        any && volume > 0 ? json_number_or_null(volume / s->median / 1e6)
                                          : json_null());
}

/* Median seconds of each step the mechanism reported, over the successful samples, in step order. */
static json_t *steps_json(const struct bench *b)
{
    const struct sample *first = NULL;
    for (size_t i = 0; i < b->n_samples && !first; i++)
        if (sample_ok(&b->samples[i]) && b->samples[i].n_steps)
            first = &b->samples[i];
    if (!first)
        return json_null();
    json_t *o = json_object();
    double *v = malloc(b->n_samples * sizeof *v);
    for (unsigned k = 0; v && k < first->n_steps; k++) {
        size_t n = 0;
        for (size_t i = 0; i < b->n_samples; i++) {
            const struct sample *s = &b->samples[i];
            if (sample_ok(s) && s->n_steps > k && s->step_names[k] == first->step_names[k])
                v[n++] = s->step_seconds[k];
        }
        if (n)
            json_object_set_new(o, first->step_names[k], json_real(stats_median(v, n)));
    }
    free(v);
    return o;
}

static json_t *failures_json(const struct bench *b)
{
    json_t *a = json_array();
    for (size_t i = 0; i < b->n_failures; i++)
        json_array_append_new(a, json_pack("{s:I,s:s}", "index", (json_int_t)b->failures[i].index,
                                           "reason", b->failures[i].reason));
    return a;
}

static json_t *result_json(const struct bench *b)
{
    json_t *r = json_object();
    char *command = strv_join_shell(b->job.argv);
    json_object_set_new(r, "command", json_string(command ? command : b->runner->name));
    free(command);
    add_statistics(r, b);
    add_cpu_means(r, b);
    add_sample_arrays(r, b);
    json_object_set_new(r, "mechanism", json_string(b->runner->name));
    json_object_set_new(r, "family", json_string(b->runner->family));
    json_object_set_new(r, "workload", json_string(b->workload->name));
    json_object_set_new(r, "case", json_string(b->wcase->label));
    json_object_set_new(r, "params", params_json(b->wcase));
    json_object_set_new(r, "argv", b->job.argv ? strv_json(b->job.argv) : json_null());
    json_object_set_new(r, "note", b->job.note ? json_string(b->job.note) : json_null());
    json_object_set_new(r, "skipped", json_boolean(b->skipped));
    json_object_set_new(r, "reason", b->skipped ? json_string(b->reason) : json_null());
    json_object_set_new(r, "runs", json_integer((json_int_t)b->n_samples));
    json_object_set_new(r, "n", json_integer((json_int_t)b->summary.n));
    json_object_set_new(r, "failed", json_integer((json_int_t)(b->n_samples - b->summary.n)));
    json_object_set_new(r, "failures", failures_json(b));
    json_object_set_new(r, "steps", steps_json(b));
    json_object_set_new(r, "digest", b->digest[0] ? json_string(b->digest) : json_null());
    return r;
}

static json_t *meta_json(const struct run *run)
{
    json_t *m = json_object();
    json_object_set_new(m, "sbxbench_version", json_string(SBXBENCH_VERSION));
    json_object_set_new(m, "git_commit", json_string(SBXBENCH_GIT_COMMIT));
    json_object_set_new(m, "date_utc", json_string(run->started_utc));
    json_object_set_new(m, "duration_s", json_real(run->finished - run->started));
    json_object_set_new(m, "interrupted", json_boolean(run->interrupted));
    json_object_set_new(m, "host", hostinfo_json());
    json_object_set_new(m, "config", config_json(run->cfg));
    json_object_set_new(m, "statistics",
                        json_pack("{s:s,s:f,s:i,s:s,s:f}", "interval", "percentile bootstrap",
                                  "level", STATS_LEVEL, "resamples", STATS_RESAMPLES, "outliers",
                                  "modified z-score over 10 scaled MADs (hyperfine's rule)",
                                  "high_cv", STATS_HIGH_CV));
    return m;
}

json_t *results_json(const struct run *run)
{
    json_t *doc = json_object();
    if (!doc)
        return NULL;
    json_object_set_new(doc, "schema", json_string(RESULTS_SCHEMA));
    json_object_set_new(doc, "schema_version", json_integer(RESULTS_SCHEMA_VERSION));
    json_object_set_new(doc, "complete", json_boolean(!run->interrupted));
    json_object_set_new(doc, "meta", meta_json(run));
    json_t *results = json_array();
    for (size_t i = 0; i < run->n_benches; i++)
        json_array_append_new(results, result_json(&run->benches[i]));
    json_object_set_new(doc, "results", results);
    return doc;
}

char *results_dump(const json_t *doc)
{
    return json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_PRESERVE_ORDER);
}
