/* parse: the Prospero VM text format, validated.
 *
 * One instruction per line, "_ID OP ARGS...", separated by spaces or tabs; lines whose first
 * non-blank character is '#' are comments and blank lines are skipped. An id is '_' followed by
 * letters, digits or '_'. Constants are decimal numbers, parsed as double and rounded to float.
 * Any input either parses or yields one error naming its line; nothing is assumed about the bytes.
 */
#pragma once

#include <stddef.h>

#include "workloads/render/vm.h"

/* More instructions than this is refused rather than risking unbounded memory. */
#define VM_MAX_INSNS (1u << 24)

struct vm_parse_error {
    unsigned long line; /* 1-based; the last line for errors about the whole program */
    char msg[256];
};

/* Parses text[0..len) into *out (freed with vm_prog_free). Returns 0, or -1 with *err filled. */
int vm_parse(const char *text, size_t len, struct vm_prog *out, struct vm_parse_error *err);
