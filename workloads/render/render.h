/* render: the image, rows handed out to threads as they ask for them.
 *
 * Pixel (i, j) of an N x N image (column i, row j, row 0 at the top) evaluates the program at
 * x_i = (float)(-1.0 + i * (2.0 / (N - 1))) and y_j = -x_j, and is 255 where the result is < 0. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "workloads/render/cpu.h"
#include "workloads/render/interp.h"
#include "workloads/render/jit.h"

/* What evaluates the program: a JIT kernel, or the interpreter when isa is ISA_INTERP. */
struct evaluator {
    enum render_isa isa;
    const struct jit_kernel *kernel;
    const struct vm_interp *interp;
};

#define RENDER_MIN_SIZE 2
#define RENDER_MAX_SIZE 16384

/* The x coordinate of column i of an n-pixel image. */
float render_coord(int i, int n);

/* Renders size x size pixels into pixels (row-major) with up to threads threads.
 * Returns 0, or -1 when out of memory (errno set). */
int render_image(const struct evaluator *e, int size, int threads, uint8_t *pixels);
