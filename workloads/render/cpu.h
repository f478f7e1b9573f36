/* cpu: which vector ISA this CPU and OS can run, from CPUID and XGETBV. */
#pragma once

#include <stdbool.h>

enum render_isa {
    ISA_INTERP, /* portable C */
    ISA_AVX2,   /* 8 lanes, 16 ymm registers */
    ISA_AVX512, /* 16 lanes, 32 zmm registers */
};

const char *isa_name(enum render_isa isa);
/* Whether the CPU has the instructions and the OS saves the registers. */
bool isa_supported(enum render_isa isa);
/* The widest supported ISA. */
enum render_isa isa_best(void);
