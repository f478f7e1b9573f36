/* pgm: the image as a binary PGM (P5), written whole or not at all. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Writes to fd; returns 0 or -1 with errno set. */
int pgm_write_fd(int fd, const uint8_t *pixels, int size);
/* Writes path through a temporary file in the same directory renamed over it, so a failure
 * leaves no partial file. Returns 0 or -1 with errno set. */
int pgm_write_file(const char *path, const uint8_t *pixels, int size);
