#include "workloads/render/render.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Rows per task: enough work to make the hand-out negligible, few enough to balance the end. */
#define ROWS_PER_TASK 4

struct job {
    const struct evaluator *e;
    int size;
    const float *xs; /* size x coordinates, padded to whole vectors */
    size_t blocks;   /* vectors per row */
    uint8_t *pixels;
    atomic_int next_row;
};

/* What one thread owns. */
struct worker {
    struct job *job;
    pthread_t thread;
    bool started;
    void *spill;     /* JIT: the kernel's spill slots */
    uint32_t *masks; /* JIT: one word per vector of a row */
    float *yvec;     /* JIT: the row's y in every lane */
    float *scratch;  /* interpreter */
    float *ys, *values;
};

float render_coord(int i, int n)
{
    return (float)(-1.0 + i * (2.0 / (n - 1)));
}

/* Eight pixels per mask byte, as a little-endian word (the JIT only exists on x86). */
static uint64_t expand_byte(unsigned bits)
{
    uint64_t v = 0;
    for (int b = 0; b < 8; b++)
        if (bits & (1u << b))
            v |= (uint64_t)0xff << (8 * b);
    return v;
}

static uint64_t expand_table[256];
static pthread_once_t expand_once = PTHREAD_ONCE_INIT;

static void init_expand(void)
{
    for (unsigned i = 0; i < 256; i++)
        expand_table[i] = expand_byte(i);
}

static void row_jit(struct worker *w, int j, uint8_t *out)
{
    const struct job *job = w->job;
    const struct jit_kernel *k = job->e->kernel;
    float y = -job->xs[j];
    for (unsigned i = 0; i < k->lanes; i++)
        w->yvec[i] = y;
    k->fn(job->xs, w->yvec, w->masks, job->blocks, w->spill);
    int i = 0;
    for (size_t b = 0; b < job->blocks; b++) {
        for (unsigned byte = 0; byte < k->lanes / 8; byte++, i += 8) {
            uint64_t px = expand_table[(w->masks[b] >> (8 * byte)) & 0xff];
            int n = job->size - i < 8 ? job->size - i : 8;
            if (n > 0)
                memcpy(out + i, &px, (size_t)n);
        }
    }
}

static void row_interp(struct worker *w, int j, uint8_t *out)
{
    const struct job *job = w->job;
    float y = -job->xs[j];
    for (int i = 0; i < job->size; i++)
        w->ys[i] = y;
    vm_interp_eval(job->e->interp, w->scratch, job->xs, w->ys, w->values, (size_t)job->size);
    for (int i = 0; i < job->size; i++)
        out[i] = w->values[i] < 0.0f ? 255 : 0;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    struct job *job = w->job;
    for (;;) {
        int first = atomic_fetch_add(&job->next_row, ROWS_PER_TASK);
        if (first >= job->size)
            return NULL;
        int last = first + ROWS_PER_TASK < job->size ? first + ROWS_PER_TASK : job->size;
        for (int j = first; j < last; j++) {
            uint8_t *out = job->pixels + (size_t)j * (size_t)job->size;
            if (job->e->isa == ISA_INTERP)
                row_interp(w, j, out);
            else
                row_jit(w, j, out);
        }
    }
}

static void worker_free(struct worker *w)
{
    free(w->spill);
    free(w->masks);
    free(w->yvec);
    free(w->scratch);
    free(w->ys);
    free(w->values);
}

static int worker_init(struct worker *w, struct job *job)
{
    memset(w, 0, sizeof *w);
    w->job = job;
    const struct evaluator *e = job->e;
    if (e->isa == ISA_INTERP) {
        w->scratch = vm_interp_scratch_new(e->interp);
        w->ys = malloc((size_t)job->size * sizeof *w->ys);
        w->values = malloc((size_t)job->size * sizeof *w->values);
        return w->scratch && w->ys && w->values ? 0 : -1;
    }
    size_t spill = (e->kernel->spill_bytes + 63) / 64 * 64;
    w->spill = aligned_alloc(64, spill ? spill : 64);
    w->masks = malloc(job->blocks * sizeof *w->masks);
    w->yvec = aligned_alloc(64, 64);
    return w->spill && w->masks && w->yvec ? 0 : -1;
}

int render_image(const struct evaluator *e, int size, int threads, uint8_t *pixels)
{
    pthread_once(&expand_once, init_expand);
    unsigned lanes = e->isa == ISA_INTERP ? 1 : e->kernel->lanes;
    struct job job = {.e = e, .size = size, .pixels = pixels};
    job.blocks = ((size_t)size + lanes - 1) / lanes;
    float *xs = aligned_alloc(64, (job.blocks * lanes * sizeof *xs + 63) / 64 * 64);
    if (threads < 1)
        threads = 1;
    struct worker *workers = calloc((size_t)threads, sizeof *workers);
    if (!xs || !workers) {
        free(xs);
        free(workers);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < job.blocks * lanes; i++)
        xs[i] = i < (size_t)size ? render_coord((int)i, size) : 0.0f;
    job.xs = xs;
    atomic_init(&job.next_row, 0);

    int rc = 0;
    for (int t = 0; t < threads && rc == 0; t++)
        rc = worker_init(&workers[t], &job);
    if (rc == 0) {
        /* The calling thread is worker 0; a thread that fails to start just leaves its share to
         * the others. */
        for (int t = 1; t < threads; t++)
            workers[t].started = pthread_create(&workers[t].thread, NULL, work, &workers[t]) == 0;
        work(&workers[0]);
        for (int t = 1; t < threads; t++)
            if (workers[t].started)
                pthread_join(workers[t].thread, NULL);
    }
    for (int t = 0; t < threads; t++)
        worker_free(&workers[t]);
    free(workers);
    free(xs);
    if (rc < 0)
        errno = ENOMEM;
    return rc;
}
