/* The libFuzzer entry points every target in tests/fuzz defines. Built with -Dfuzz=true (clang),
 * libFuzzer supplies main; in every other build replay.c does, feeding the target the files of its
 * seed corpus and of its regressions (tests/fuzz/regressions/TARGET), so that each crash the
 * fuzzer ever found stays a test, with and without the sanitizers. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise of the code under test: abort, so that the fuzzer keeps the input. */
#define FUZZ_ASSERT(cond)                                                                          \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fuzz_fail(__FILE__, __LINE__, #cond);                                                  \
    } while (0)

void fuzz_fail(const char *file, int line, const char *what) __attribute__((noreturn));
/* Whether msg is one line a user can read: not empty, no line break. */
int fuzz_one_line(const char *msg);
/* The input as a C string to free, or NULL when it holds a NUL byte (where a reader of text files
 * would stop) or memory runs out: either way the target has nothing to try. */
char *fuzz_text(const uint8_t *data, size_t size);
/* stdin and stdout on /dev/null and no controlling terminal: a target that reads a path the
 * input names cannot wait for a user, and --help costs nothing. */
void fuzz_quiet_stdio(void);
