/* The run loop: plan the (mechanism, case) pairs, take the samples, summarise them. */
#include "harness/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "harness/progress.h"
#include "harness/rng.h"
#include "harness/usage.h"

static void skip(struct bench *b, const char *reason)
{
    b->skipped = true;
    snprintf(b->reason, sizeof b->reason, "%s", reason);
}

const char *default_cache_dir(void)
{
    static char path[4096];
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(path, sizeof path, "%s/sbxbench", xdg);
    else if (home && *home)
        snprintf(path, sizeof path, "%s/.cache/sbxbench", home);
    else
        snprintf(path, sizeof path, "/tmp/sbxbench-cache-%d", (int)getuid());
    return path;
}

static const char *exe_dir(void)
{
    static char dir[4096];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0)
        return ".";
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    return dir;
}

struct availability {
    const struct runner *runner;
    bool checked, ok;
    char why[512];
};

static bool runner_usable(struct availability *cache, size_t n, const struct runner *r,
                          const struct runner_options *opts, const char **why)
{
    for (size_t i = 0; i < n; i++) {
        if (cache[i].runner != r)
            continue;
        if (!cache[i].checked) {
            cache[i].checked = true;
            cache[i].ok = r->available(opts, cache[i].why, sizeof cache[i].why);
        }
        *why = cache[i].why;
        return cache[i].ok;
    }
    *why = "unknown mechanism";
    return false;
}

static int add_cases(struct run *run, const struct workload *w, char *why, size_t whylen)
{
    struct errbuf eb = {{0}};
    size_t before = run->n_cases;
    if (!workload_available(w, &run->cfg->wopts, why, whylen) ||
        workload_prepare(w, &run->cfg->wopts, &run->cases, &run->n_cases, &eb) < 0) {
        if (eb.msg[0])
            snprintf(why, whylen, "%s", eb.msg);
        /* A stand-in case so that the workload still shows, as skipped, under every mechanism. */
        struct workload_case *c = workload_case_add(&run->cases, &run->n_cases);
        if (!c || !(c->label = strdup(w->name)))
            return -1;
        before = run->n_cases - 1;
        const struct workload **owner =
            realloc(run->case_owner, run->n_cases * sizeof *run->case_owner);
        if (!owner)
            return -1;
        run->case_owner = owner;
        owner[before] = NULL; /* NULL owner: unavailable */
        return 0;
    }
    const struct workload **owner =
        realloc(run->case_owner, run->n_cases * sizeof *run->case_owner);
    if (!owner)
        return -1;
    run->case_owner = owner;
    for (size_t i = before; i < run->n_cases; i++)
        owner[i] = w;
    why[0] = '\0';
    return 0;
}

/* A configuration built without parse_run_args (reproduce) names workloads that nothing has
 * loaded yet; parse_run_args's are found at once. */
static int resolve_workloads(const struct run_config *cfg)
{
    for (size_t i = 0; cfg->workloads && cfg->workloads[i]; i++) {
        struct errbuf eb = {{0}};
        if (!workload_resolve(cfg->workloads[i], &cfg->wopts, &eb)) {
            usage_error("%s", eb.msg);
            return -1;
        }
    }
    return 0;
}

int run_plan(struct run *run, struct run_config *cfg)
{
    memset(run, 0, sizeof *run);
    run->cfg = cfg;
    if (!cfg->ropts.cache_dir)
        cfg->ropts.cache_dir = cfg->wopts.cache_dir = default_cache_dir();
    cfg->wopts.exe_dir = exe_dir();
    cfg->ropts.timeout = cfg->timeout;
    if (resolve_workloads(cfg) < 0)
        return -1;

    size_t n_workloads = strv_len(cfg->workloads);
    char (*workload_why)[512] = calloc(n_workloads ? n_workloads : 1, sizeof *workload_why);
    size_t *first_case = calloc(n_workloads + 1, sizeof *first_case);
    if (!workload_why || !first_case)
        goto oom;
    for (size_t i = 0; i < n_workloads; i++) {
        first_case[i] = run->n_cases;
        if (add_cases(run, workload_find(cfg->workloads[i]), workload_why[i],
                      sizeof workload_why[i]) < 0)
            goto oom;
    }
    first_case[n_workloads] = run->n_cases;

    size_t n_mech = strv_len(cfg->mechanisms);
    struct availability *avail = calloc(n_mech ? n_mech : 1, sizeof *avail);
    run->benches = calloc(run->n_cases * n_mech + 1, sizeof *run->benches);
    if (!avail || !run->benches) {
        free(avail);
        goto oom;
    }
    for (size_t m = 0; m < n_mech; m++)
        avail[m].runner = runner_find(cfg->mechanisms[m]);

    for (size_t w = 0; w < n_workloads; w++) {
        for (size_t c = first_case[w]; c < first_case[w + 1]; c++) {
            for (size_t m = 0; m < n_mech; m++) {
                struct bench *b = &run->benches[run->n_benches++];
                b->runner = avail[m].runner;
                b->workload = workload_find(cfg->workloads[w]);
                b->wcase = &run->cases[c];
                b->ratio = b->ratio_lo = b->ratio_hi = NAN;
                b->overhead_s = b->overhead_fraction = NAN;
                b->overhead_fraction_lo = b->overhead_fraction_hi = NAN;
                const char *why = NULL;
                if (!run->case_owner[c]) {
                    skip(b, workload_why[w]);
                    continue;
                }
                if (!runner_usable(avail, n_mech, b->runner, &cfg->ropts, &why)) {
                    skip(b, why);
                    continue;
                }
                char no_staging[256];
                if (!runner_can_stage(b->runner, &b->wcase->action, no_staging,
                                      sizeof no_staging)) {
                    skip(b, no_staging);
                    continue;
                }
                b->job.runner = b->runner;
                b->job.opts = &cfg->ropts;
                b->job.action = &b->wcase->action;
                struct errbuf eb = {{0}};
                if (b->runner->prepare(&b->job, &eb) < 0) {
                    skip(b, eb.msg[0] ? eb.msg : "preparation failed");
                    continue;
                }
                b->prepared = true;
            }
        }
    }
    free(avail);
    free(workload_why);
    free(first_case);
    return 0;
oom:
    free(workload_why);
    free(first_case);
    usage_error("run: out of memory");
    return -1;
}

/* The descriptors every sample uses; the capture files are memfds rewound before each sample. */
struct sample_io {
    int devnull;
    int err;     /* the action's stderr, for the first line of a failure */
    int out;     /* the action's stdout when the case checks it */
};

static int sample_io_open(struct sample_io *io)
{
    io->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    io->err = memfd_create("sbxbench-stderr", MFD_CLOEXEC);
    io->out = memfd_create("sbxbench-stdout", MFD_CLOEXEC);
    if (io->devnull < 0 || io->err < 0 || io->out < 0) {
        usage_error("run: opening capture files: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static void sample_io_close(struct sample_io *io)
{
    if (io->devnull >= 0)
        close(io->devnull);
    if (io->err >= 0)
        close(io->err);
    if (io->out >= 0)
        close(io->out);
}

static void rewind_fd(int fd)
{
    if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
        return;
}

static void first_line(int fd, char *buf, size_t len)
{
    buf[0] = '\0';
    ssize_t n = pread(fd, buf, len - 1, 0);
    if (n <= 0)
        return;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

static const char *signal_name(int sig)
{
    const char *abbrev = sigabbrev_np(sig);
    return abbrev ? abbrev : "?";
}

/* Why s failed, or NULL when it did not. */
static char *failure_reason(const struct sample *s, int errfd, double timeout)
{
    char line[256], *reason = NULL;
    int rc = 0;
    if (s->spawn_failed)
        rc = asprintf(&reason, "could not start: %s", strerror(s->spawn_errno));
    else if (s->timed_out)
        rc = asprintf(&reason, "timed out after %g s, killed", timeout);
    else if (s->flooded)
        rc = asprintf(&reason, "flooded its output (over %lld MiB of stderr or %lld MiB of stdout), "
                      "killed", SAMPLE_MAX_STDERR >> 20, SAMPLE_MAX_STDOUT >> 20);
    else if (s->signal) {
        rc = asprintf(&reason, "killed by signal %d (SIG%s)", s->signal, signal_name(s->signal));
    } else if (s->exit_code != 0) {
        first_line(errfd, line, sizeof line);
        /* Wrappers (bwrap, unshare, sh) report a command killed by a signal as 128 + the signal. */
        char sig[64] = "";
        if (s->exit_code > 128 && s->exit_code < 128 + NSIG)
            snprintf(sig, sizeof sig, " (128 + SIG%s: killed inside the mechanism?)",
                     signal_name(s->exit_code - 128));
        rc = asprintf(&reason, "exit status %d%s%s%s", s->exit_code, sig, line[0] ? ": " : "",
                      line);
    }
    return rc < 0 ? NULL : reason;
}

static char *check_output(struct bench *b, int outfd)
{
    const struct workload_case *c = b->wcase;
    char digest[sizeof b->digest] = "", why[512] = "", *reason = NULL;
    lseek(outfd, 0, SEEK_SET);
    if (c->check(c, outfd, digest, sizeof digest, why, sizeof why) < 0) {
        if (asprintf(&reason, "output check failed: %s", why[0] ? why : "wrong output") < 0)
            reason = NULL;
        return reason;
    }
    if (!b->digest[0]) {
        snprintf(b->digest, sizeof b->digest, "%s", digest);
    } else if (strcmp(b->digest, digest) != 0) {
        if (asprintf(&reason, "output differs from the first run's (%s, not %s)", digest,
                     b->digest) < 0)
            reason = NULL;
    }
    return reason;
}

static int record(struct bench *b, const struct sample *s, char *reason)
{
    if (b->n_samples == b->cap_samples) {
        size_t cap = b->cap_samples ? 2 * b->cap_samples : 64;
        struct sample *grown = realloc(b->samples, cap * sizeof *grown);
        if (!grown)
            return -1;
        b->samples = grown;
        b->cap_samples = cap;
    }
    if (reason) {
        struct failure *f = realloc(b->failures, (b->n_failures + 1) * sizeof *f);
        if (!f)
            return -1;
        b->failures = f;
        f[b->n_failures++] = (struct failure){b->n_samples, reason};
    }
    b->samples[b->n_samples++] = *s;
    b->time_spent += s->wall;
    return 0;
}

/* One sample of b; recorded unless it is a warm-up or was cut short by an interrupt. */
static void sample_bench(struct run *run, struct bench *b, struct sample_io *io, bool keep)
{
    bool capture = b->wcase->capture_stdout && b->wcase->check;
    rewind_fd(io->err);
    if (capture)
        rewind_fd(io->out);
    struct stdio_fds fds = {io->devnull, capture ? io->out : io->devnull, io->err};
    struct sample s;
    take_sample(&b->job, &fds, run->cfg->timeout, &s);
    if (s.interrupted || sample_stop_requested)
        return;
    char *reason = failure_reason(&s, io->err, run->cfg->timeout);
    if (!reason && capture)
        reason = check_output(b, io->out);
    if (reason && !keep) {
        free(reason);
        return;
    }
    if (keep && record(b, &s, reason) < 0) {
        free(reason);
        run->interrupted = true; /* out of memory: stop and write what we have */
    }
}

static bool bench_done(const struct run *run, const struct bench *b)
{
    if (!b->prepared)
        return true;
    if (run->cfg->min_time > 0)
        return b->time_spent >= run->cfg->min_time && b->n_samples >= MIN_TIME_MIN_RUNS;
    return b->n_samples >= (size_t)run->cfg->runs;
}

static bool stop_now(struct run *run)
{
    if (sample_stop_requested)
        run->interrupted = true;
    return run->interrupted;
}

static size_t active_benches(const struct run *run)
{
    size_t n = 0;
    for (size_t i = 0; i < run->n_benches; i++)
        n += run->benches[i].prepared;
    return n;
}

static void warm_up(struct run *run, struct sample_io *io, struct progress *p)
{
    for (long w = 0; w < run->cfg->warmup && !stop_now(run); w++) {
        for (size_t i = 0; i < run->n_benches && !stop_now(run); i++) {
            struct bench *b = &run->benches[i];
            if (!b->prepared)
                continue;
            progress_update(p, "warm-up", b->runner->name, b->wcase->label);
            sample_bench(run, b, io, false);
        }
    }
}

/* A fresh random order every round: a pair that always follows an expensive one (a compile that
 * leaves the caches cold) would otherwise carry that position's cost in every sample. */
static void shuffle(size_t *order, size_t n, struct rng *r)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rng_below(r, i);
        size_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

static void measure_interleaved(struct run *run, struct sample_io *io, struct progress *p)
{
    size_t *order = malloc((run->n_benches ? run->n_benches : 1) * sizeof *order);
    if (!order) {
        run->interrupted = true;
        return;
    }
    for (size_t i = 0; i < run->n_benches; i++)
        order[i] = i;
    struct rng r;
    rng_seed(&r, run->cfg->seed);
    bool any = true;
    while (any && !stop_now(run)) {
        any = false;
        shuffle(order, run->n_benches, &r);
        for (size_t k = 0; k < run->n_benches && !stop_now(run); k++) {
            struct bench *b = &run->benches[order[k]];
            if (bench_done(run, b))
                continue;
            any = true;
            progress_update(p, NULL, b->runner->name, b->wcase->label);
            sample_bench(run, b, io, true);
            p->done++;
        }
    }
    free(order);
}

static void measure_grouped(struct run *run, struct sample_io *io, struct progress *p)
{
    for (size_t i = 0; i < run->n_benches && !stop_now(run); i++) {
        struct bench *b = &run->benches[i];
        while (!bench_done(run, b) && !stop_now(run)) {
            progress_update(p, NULL, b->runner->name, b->wcase->label);
            sample_bench(run, b, io, true);
            p->done++;
        }
    }
}

static void pin_cpus(const char *list)
{
    unsigned long long mask;
    if (!list || parse_cpu_list(list, &mask) < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c = 0; c < 64; c++)
        if (mask & (1ULL << c))
            CPU_SET(c, &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0)
        warn("run: --pin %s: %s; running unpinned", list, strerror(errno));
}

void run_execute(struct run *run)
{
    struct sample_io io = {-1, -1, -1};
    time_t now = time(NULL);
    strftime(run->started_utc, sizeof run->started_utc, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    run->started = monotonic_seconds();
    pin_cpus(run->cfg->pin);
    if (sample_io_open(&io) < 0) {
        run->interrupted = true;
        sample_io_close(&io);
        run->finished = monotonic_seconds();
        return;
    }
    struct progress p;
    size_t per_bench = run->cfg->min_time > 0 ? 0 : (size_t)run->cfg->runs;
    progress_init(&p, run->cfg->progress, per_bench * active_benches(run));
    warm_up(run, &io, &p);
    if (run->cfg->order == ORDER_GROUPED)
        measure_grouped(run, &io, &p);
    else
        measure_interleaved(run, &io, &p);
    progress_clear(&p);
    sample_io_close(&io);
    run->finished = monotonic_seconds();
}

double *bench_ok_times(const struct bench *b, size_t *n)
{
    double *t = malloc((b->n_samples ? b->n_samples : 1) * sizeof *t);
    *n = 0;
    if (!t)
        return NULL;
    size_t f = 0;
    for (size_t i = 0; i < b->n_samples; i++) {
        while (f < b->n_failures && b->failures[f].index < i)
            f++;
        bool failed = f < b->n_failures && b->failures[f].index == i;
        if (!failed && sample_ok(&b->samples[i]))
            t[(*n)++] = b->samples[i].wall;
    }
    return t;
}

/* A seed per pair, so an interval does not change when other mechanisms join the run. */
static uint64_t pair_seed(uint64_t seed, const struct bench *b)
{
    uint64_t h = seed ^ 0xcbf29ce484222325ULL;
    for (const char *s = b->runner->name; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    for (const char *s = b->wcase->label; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* The process bench of the same case; one from the same plan (same case object) first, because it
 * was interleaved with b and saw the same machine. */
static const struct bench *find_baseline(const struct run *run, const struct bench *b)
{
    const struct bench *same_label = NULL;
    for (size_t i = 0; i < run->n_benches; i++) {
        const struct bench *o = &run->benches[i];
        if (strcmp(o->runner->name, "process") != 0 || o->summary.n == 0 ||
            strcmp(o->wcase->label, b->wcase->label) != 0)
            continue;
        if (o->wcase == b->wcase)
            return o;
        if (!same_label)
            same_label = o;
    }
    return same_label;
}

int run_summarize(struct run *run)
{
    for (size_t i = 0; i < run->n_benches; i++) {
        struct bench *b = &run->benches[i];
        size_t n;
        double *t = bench_ok_times(b, &n);
        if (!t || stats_summarize(t, n, pair_seed(run->cfg->seed, b), &b->summary) < 0) {
            free(t);
            return -1;
        }
        free(t);
    }
    for (size_t i = 0; i < run->n_benches; i++) {
        struct bench *b = &run->benches[i];
        const struct bench *base = find_baseline(run, b);
        b->ratio = b->ratio_lo = b->ratio_hi = NAN;
        b->baseline = NULL;
        if (!base || b->summary.n == 0)
            continue;
        b->baseline = base;
        b->ratio = b->summary.median / base->summary.median;
        b->overhead_s = b->summary.median - base->summary.median;
        b->overhead_fraction = b->overhead_s / b->summary.median;
        size_t nb, nn;
        double *bt = bench_ok_times(base, &nb), *nt = bench_ok_times(b, &nn);
        int rc = bt && nt ? stats_ratio_ci(nt, nn, bt, nb, STATS_LEVEL, STATS_RESAMPLES,
                                           pair_seed(run->cfg->seed, b) + 1, &b->ratio_lo,
                                           &b->ratio_hi)
                          : -1;
        free(bt);
        free(nt);
        if (rc < 0)
            return -1;
        /* overhead / median(mechanism) = 1 - 1/ratio, so the ratio's interval maps onto it. */
        b->overhead_fraction_lo = 1 - 1 / b->ratio_lo;
        b->overhead_fraction_hi = 1 - 1 / b->ratio_hi;
    }
    return 0;
}

void run_free(struct run *run)
{
    for (size_t i = 0; i < run->n_benches; i++) {
        struct bench *b = &run->benches[i];
        if (b->prepared && b->runner->cleanup)
            b->runner->cleanup(&b->job);
        strv_free(b->job.argv);
        if (b->job.envp)
            strv_free(b->job.envp);
        for (size_t f = 0; f < b->n_failures; f++)
            free(b->failures[f].reason);
        free(b->failures);
        free(b->samples);
    }
    for (size_t c = 0; c < run->n_cases; c++)
        workload_case_free(run->case_owner ? run->case_owner[c] : NULL, &run->cases[c]);
    free(run->cases);
    free(run->case_owner);
    free(run->benches);
    memset(run, 0, sizeof *run);
}
