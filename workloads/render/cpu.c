#include "workloads/render/cpu.h"

#include <stdint.h>

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

bool isa_supported(enum render_isa isa)
{
    unsigned a, b, c, d;
    if (isa == ISA_INTERP)
        return true;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return false;
    bool osxsave = c & (1u << 27), avx = c & (1u << 28);
    if (!osxsave || !avx)
        return false;
    uint64_t xcr0 = xgetbv0();
    bool ymm_state = (xcr0 & 0x6) == 0x6;   /* SSE and AVX state */
    bool zmm_state = (xcr0 & 0xe6) == 0xe6; /* plus opmask and both zmm halves */
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    bool avx2 = b & (1u << 5), avx512f = b & (1u << 16), avx512dq = b & (1u << 17);
    if (isa == ISA_AVX2)
        return avx2 && ymm_state;
    /* DQ for vxorps on zmm. */
    return avx512f && avx512dq && zmm_state;
}
#else
bool isa_supported(enum render_isa isa)
{
    return isa == ISA_INTERP;
}
#endif

enum render_isa isa_best(void)
{
    if (isa_supported(ISA_AVX512))
        return ISA_AVX512;
    if (isa_supported(ISA_AVX2))
        return ISA_AVX2;
    return ISA_INTERP;
}

const char *isa_name(enum render_isa isa)
{
    switch (isa) {
    case ISA_AVX512:
        return "avx512";
    case ISA_AVX2:
        return "avx2";
    case ISA_INTERP:
    default:
        return "interp";
    }
}
