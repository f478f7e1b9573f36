#include "harness/compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[PAIR_STATUSES] = {
    [PAIR_UNCHANGED] = "unchanged",  [PAIR_REGRESSED] = "regressed",
    [PAIR_IMPROVED] = "improved",    [PAIR_ONLY_BASE] = "only-in-base",
    [PAIR_ONLY_NEW] = "only-in-new", [PAIR_NO_DATA] = "no-data",
};

const char *pair_status_name(enum pair_status s)
{
    return s < PAIR_STATUSES ? status_names[s] : "?";
}

const char *compare_basis_name(enum compare_basis b)
{
    return b == BASIS_OVERHEAD ? "overhead" : b == BASIS_ABSOLUTE ? "absolute" : "auto";
}

static void add_note(struct pair *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_note(struct pair *p, const char *fmt, ...)
{
    if (p->n_notes == PAIR_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->notes[p->n_notes++], sizeof p->notes[0], fmt, ap);
    va_end(ap);
}

static void add_warning(struct comparison *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add_warning(struct comparison *c, const char *fmt, ...)
{
    if (c->n_warnings == sizeof c->warnings / sizeof c->warnings[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->warnings[c->n_warnings++], sizeof c->warnings[0], fmt, ap);
    va_end(ap);
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static const char *host_of(const struct results_file *f)
{
    return f->host;
}

static const char *cpu_of(const struct results_file *f)
{
    return f->cpu_model;
}

static const char *kernel_of(const struct results_file *f)
{
    return f->kernel;
}

/* Whether any base night ran elsewhere than new_ by this field; warns once for it. */
static bool differs(struct comparison *c, const struct results_file *const *base, size_t n_base,
                    const struct results_file *new_,
                    const char *(*field)(const struct results_file *), const char *what)
{
    for (size_t i = 0; i < n_base; i++) {
        const char *b = field(base[i]), *n = field(new_);
        if (!same_text(b, n)) {
            add_warning(c, "%s differs: base \"%.80s\", new \"%.80s\"", what, b ? b : "unknown",
                        n ? n : "unknown");
            return true;
        }
    }
    return false;
}

static void resolve_basis(struct comparison *c, const struct results_file *const *base,
                          size_t n_base, const struct results_file *new_, enum compare_basis asked)
{
    bool other_host = differs(c, base, n_base, new_, host_of, "host");
    bool other_cpu = differs(c, base, n_base, new_, cpu_of, "CPU");
    differs(c, base, n_base, new_, kernel_of, "kernel");
    c->basis = asked;
    if (asked == BASIS_AUTO)
        c->basis = other_host || other_cpu ? BASIS_OVERHEAD : BASIS_ABSOLUTE;
    if (asked == BASIS_AUTO && c->basis == BASIS_OVERHEAD)
        add_warning(c, "absolute times from different machines do not compare: verdicts are by "
                       "overhead over each file's own process");
    for (size_t i = 0; i < n_base; i++)
        if (!base[i]->complete)
            add_warning(c, "a base run (%s) was interrupted: compared what it measured",
                        base[i]->date_utc);
    if (!new_->complete)
        add_warning(c, "the new run was interrupted: compared what it measured");
}

static bool usable(const struct loaded_result *r)
{
    return r && !r->skipped && r->n_ok > 0;
}

/* FNV-1a of the pair's names: each pair's bootstrap has its own stream, independent of order. */
static uint64_t pair_seed(uint64_t seed, const char *mechanism, const char *label)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ seed;
    for (const char *s = mechanism; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    h = (h ^ 0xff) * 0x100000001b3ULL;
    for (const char *s = label; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

static bool finite_shift(const struct stats_shift *s)
{
    return isfinite(s->ratio) && isfinite(s->lo) && isfinite(s->hi) && s->base > 0 && s->new_ > 0;
}

static int judge(struct change *ch, const struct stats_side *base, const struct stats_side *new_,
                 const struct compare_options *opt, uint64_t seed, double level)
{
    ch->valid = false;
    if (base->n_nights == 0 || new_->n_nights == 0)
        return 0;
    if (stats_compare_sides(base, new_, level, opt->resamples, seed, &ch->shift) < 0)
        return -1;
    ch->valid = finite_shift(&ch->shift);
    ch->verdict = ch->valid ? stats_judge(&ch->shift, opt->threshold) : VERDICT_UNCHANGED;
    return 0;
}

/* The base nights holding this pair with data; with den_process, only nights that also have a
 * usable process result for the case, which becomes the denominator. */
static size_t collect_nights(const struct results_file *const *base, size_t n_base,
                             const char *mechanism, const char *label, bool den_process,
                             struct stats_night *nights)
{
    size_t n = 0;
    for (size_t i = 0; i < n_base; i++) {
        const struct loaded_result *r = results_find(base[i], mechanism, label);
        const struct loaded_result *p =
            den_process ? results_find(base[i], "process", label) : NULL;
        if (!usable(r) || (den_process && !usable(p)))
            continue;
        nights[n++] =
            (struct stats_night){r->ok_times, r->n_ok, p ? p->ok_times : NULL, p ? p->n_ok : 0};
    }
    return n;
}

static double pooled_mann_whitney(const struct results_file *const *base, size_t n_base,
                                  const struct loaded_result *nr, size_t n_base_samples)
{
    double *pool = malloc((n_base_samples + 1) * sizeof *pool);
    if (!pool)
        return NAN;
    size_t k = 0;
    for (size_t i = 0; i < n_base; i++) {
        const struct loaded_result *r = results_find(base[i], nr->mechanism, nr->label);
        if (usable(r)) {
            memcpy(pool + k, r->ok_times, r->n_ok * sizeof *pool);
            k += r->n_ok;
        }
    }
    double p = stats_mann_whitney_p(pool, k, nr->ok_times, nr->n_ok);
    free(pool);
    return p;
}

static void note_drift(struct pair *p, double drift, const char *which, double threshold)
{
    if (isfinite(drift) && fabs(drift - 1) > threshold)
        add_note(p,
                 "the %s run drifted %+.1f%% from its first third to its last: the machine "
                 "was not steady",
                 which, (drift - 1) * 100);
}

/* Why an unchanged verdict may not mean much: the nights vary a lot, or the run was too short. */
static void note_blind_spot(struct pair *p, const struct stats_shift *s, double threshold)
{
    if (s->night_spread > threshold / 2)
        add_note(p,
                 "its nights vary by %.1f%% (SD) from one to the next: a change much smaller "
                 "than twice that cannot be told from noise",
                 s->night_spread * 100);
    else if ((s->hi - s->lo) / 2 > threshold)
        add_note(p,
                 "the interval is wider than the threshold: more runs are needed to see a "
                 "%.3g%% change",
                 threshold * 100);
}

static void why_no_data(struct pair *p, const struct loaded_result *r, const char *side)
{
    if (r->skipped)
        snprintf(p->why, sizeof p->why, "skipped in %s: %.120s", side, r->reason);
    else
        snprintf(p->why, sizeof p->why, "every sample failed in %s", side);
}

static enum pair_status status_of(const struct change *ch)
{
    switch (ch->verdict) {
    case VERDICT_REGRESSED:
        return PAIR_REGRESSED;
    case VERDICT_IMPROVED:
        return PAIR_IMPROVED;
    case VERDICT_UNCHANGED:
    default:
        return PAIR_UNCHANGED;
    }
}

/* The pair of new_'s result nr against the base nights. */
static int compare_pair(struct comparison *c, const struct results_file *const *base, size_t n_base,
                        const struct results_file *new_, const struct loaded_result *nr,
                        const struct compare_options *opt, struct stats_night *nights,
                        struct pair *p)
{
    p->p = p->drift_new = p->drift_base = NAN;
    const struct loaded_result *latest = NULL;
    for (size_t i = n_base; i-- > 0 && !latest;)
        latest = results_find(base[i], nr->mechanism, nr->label);
    if (!latest) {
        p->status = PAIR_ONLY_NEW;
        return 0;
    }
    if (!usable(nr)) {
        p->status = PAIR_NO_DATA;
        why_no_data(p, nr, "new");
        return 0;
    }
    uint64_t seed = pair_seed(opt->seed, nr->mechanism, nr->label);
    struct stats_night new_night = {nr->ok_times, nr->n_ok, NULL, 0};
    struct stats_side new_side = {&new_night, 1};
    struct stats_side base_side = {
        nights, collect_nights(base, n_base, nr->mechanism, nr->label, false, nights)};
    if (base_side.n_nights == 0) {
        p->status = PAIR_NO_DATA;
        why_no_data(p, latest, "base");
        return 0;
    }
    p->base_nights = base_side.n_nights;
    for (size_t i = 0; i < base_side.n_nights; i++)
        p->n_base += nights[i].n_num;
    p->n_new = nr->n_ok;
    if (judge(&p->absolute, &base_side, &new_side, opt, seed, c->level) < 0)
        return -1;
    p->p = pooled_mann_whitney(base, n_base, nr, p->n_base);
    p->drift_new = stats_drift(nr->ok_times, nr->n_ok);
    const struct stats_night *last = &nights[base_side.n_nights - 1];
    p->drift_base = stats_drift(last->num, last->n_num);

    const struct loaded_result *np = results_find(new_, "process", nr->label);
    if (strcmp(nr->mechanism, "process") != 0 && usable(np)) {
        struct stats_night new_over = {nr->ok_times, nr->n_ok, np->ok_times, np->n_ok};
        struct stats_side new_over_side = {&new_over, 1};
        struct stats_side base_over = {
            nights, collect_nights(base, n_base, nr->mechanism, nr->label, true, nights)};
        if (judge(&p->overhead, &base_over, &new_over_side, opt, seed + 1, c->level) < 0)
            return -1;
    }

    const struct change *by = c->basis == BASIS_OVERHEAD ? &p->overhead : &p->absolute;
    if (c->basis == BASIS_OVERHEAD && strcmp(nr->mechanism, "process") == 0) {
        p->status = PAIR_UNCHANGED;
        add_note(p, "the reference of the overheads: its absolute time is not judged across "
                    "machines");
    } else if (!by->valid) {
        p->status = PAIR_NO_DATA;
        snprintf(p->why, sizeof p->why, "%s",
                 c->basis == BASIS_OVERHEAD ? "no usable process result on both sides"
                                            : "a median of zero: the times are not usable");
    } else {
        p->status = status_of(by);
        if (p->status == PAIR_UNCHANGED)
            note_blind_spot(p, &by->shift, opt->threshold);
        if (p->base_nights == 1 && p->status == PAIR_REGRESSED)
            add_note(p, "a one-run baseline knows nothing of how runs vary on this machine: a "
                        "directory of several runs as BASE does");
    }
    note_drift(p, p->drift_new, "new", opt->threshold);
    note_drift(p, p->drift_base, "base", opt->threshold);
    return 0;
}

static void fill_names(struct pair *p, const struct loaded_result *r)
{
    p->mechanism = r->mechanism;
    p->family = r->family;
    p->workload = r->workload;
    p->label = r->label;
}

/* Base pairs missing from the new run, once each, newest night first. */
static size_t add_only_in_base(const struct results_file *const *base, size_t n_base,
                               const struct results_file *new_, struct pair *pairs, size_t n)
{
    for (size_t i = n_base; i-- > 0;) {
        for (size_t j = 0; j < base[i]->n_results; j++) {
            const struct loaded_result *r = &base[i]->results[j];
            if (results_find(new_, r->mechanism, r->label))
                continue;
            bool seen = false;
            for (size_t k = 0; k < n && !seen; k++)
                seen =
                    !strcmp(pairs[k].mechanism, r->mechanism) && !strcmp(pairs[k].label, r->label);
            if (seen)
                continue;
            memset(&pairs[n], 0, sizeof pairs[n]);
            fill_names(&pairs[n], r);
            pairs[n].p = pairs[n].drift_new = pairs[n].drift_base = NAN;
            pairs[n++].status = PAIR_ONLY_BASE;
        }
    }
    return n;
}

/* The plain process is not sandboxed: when it moves, so did the machine (its load, kernel or CPU),
 * and every absolute verdict carries that along. Say so, and point at what does not. */
static void warn_if_process_moved(struct comparison *c, double threshold)
{
    for (size_t i = 0; i < c->n_pairs; i++) {
        const struct pair *p = &c->pairs[i];
        const struct stats_shift *s = &p->absolute.shift;
        if (strcmp(p->mechanism, "process") != 0 || !p->absolute.valid ||
            p->absolute.verdict == VERDICT_UNCHANGED || fabs(s->ratio - 1) <= 2 * threshold)
            continue;
        add_warning(c,
                    "process × %.60s itself changed by %+.0f%%: the machine (load, kernel or CPU) "
                    "is not what it was for the baseline; the overheads (× process) show what "
                    "the sandboxes did",
                    p->label, (s->ratio - 1) * 100);
    }
}

int compare_runs(const struct results_file *const *base, size_t n_base,
                 const struct results_file *new_, const struct compare_options *opt,
                 struct comparison *out)
{
    memset(out, 0, sizeof *out);
    out->threshold = opt->threshold;
    out->level = STATS_LEVEL;
    resolve_basis(out, base, n_base, new_, opt->basis);
    size_t most = new_->n_results;
    for (size_t i = 0; i < n_base; i++)
        most += base[i]->n_results;
    out->pairs = calloc(most + 1, sizeof *out->pairs);
    struct stats_night *nights = calloc(n_base + 1, sizeof *nights);
    if (!out->pairs || !nights) {
        free(nights);
        comparison_free(out);
        return -1;
    }
    for (size_t i = 0; i < new_->n_results; i++) {
        struct pair *p = &out->pairs[out->n_pairs++];
        fill_names(p, &new_->results[i]);
        if (compare_pair(out, base, n_base, new_, &new_->results[i], opt, nights, p) < 0) {
            free(nights);
            comparison_free(out);
            return -1;
        }
    }
    free(nights);
    warn_if_process_moved(out, opt->threshold);
    out->n_pairs = add_only_in_base(base, n_base, new_, out->pairs, out->n_pairs);
    for (size_t i = 0; i < out->n_pairs; i++)
        out->counts[out->pairs[i].status]++;
    return 0;
}

void comparison_free(struct comparison *c)
{
    free(c->pairs);
    c->pairs = NULL;
    c->n_pairs = 0;
}
