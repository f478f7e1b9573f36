/* Whole images: every ISA and thread count draws the same pixels, at sizes that are not whole
 * vectors too, and the reference image of prospero.vm is reproduced exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/render/testlib.h"
#include "workloads/render/compile.h"
#include "workloads/render/scene.h"

static const enum render_isa all_isas[] = {ISA_INTERP, ISA_AVX2, ISA_AVX512};

static uint8_t *render(const char *text, size_t len, enum render_isa isa, int size, int threads)
{
    struct compiled c;
    struct vm_parse_error perr;
    char why[256];
    if (compile_program(text, len, isa, &c, &perr, why, sizeof why) != COMPILE_OK)
        fail_msg("compile for %s: %s%s", isa_name(isa), perr.msg, why);
    uint8_t *pixels = malloc((size_t)size * (size_t)size);
    assert_non_null(pixels);
    assert_int_equal(render_image(&c.eval, size, threads, pixels), 0);
    compiled_free(&c);
    return pixels;
}

static void test_every_isa_and_thread_count_agree(void **state)
{
    (void)state;
    static const int sizes[] = {2, 3, 17, 31, 64, 100};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int size = sizes[s];
        uint8_t *reference = render(render_scene_vm, render_scene_vm_len, ISA_INTERP, size, 1);
        for (size_t i = 0; i < 3; i++) {
            if (!isa_supported(all_isas[i]))
                continue;
            for (int threads = 1; threads <= 5; threads += 2) {
                uint8_t *img =
                    render(render_scene_vm, render_scene_vm_len, all_isas[i], size, threads);
                if (memcmp(img, reference, (size_t)size * (size_t)size) != 0)
                    fail_msg("size %d, %s, %d threads: image differs from the interpreter's", size,
                             isa_name(all_isas[i]), threads);
                free(img);
            }
        }
        free(reference);
    }
}

static void test_coordinates(void **state)
{
    (void)state;
    /* x_i = (float)(-1 + i * 2 / (N - 1)): both ends exact, the middle of an odd size exact. */
    assert_true(render_coord(0, 1024) == -1.0f);
    assert_true(render_coord(1023, 1024) == 1.0f);
    assert_true(render_coord(128, 257) == 0.0f);
    assert_true(render_coord(511, 1024) == (float)(-1.0 + 511 * (2.0 / 1023)));
}

/* The image is 255 exactly where the result is negative, row 0 at the top (y = +1). */
static void test_orientation(void **state)
{
    (void)state;
    const char *upper_left = "_0 var-x\n_1 var-y\n_2 neg _1\n_3 max _0 _2\n"; /* x < 0 and y > 0 */
    for (size_t i = 0; i < 3; i++) {
        if (!isa_supported(all_isas[i]))
            continue;
        uint8_t *img = render(upper_left, strlen(upper_left), all_isas[i], 4, 2);
        static const uint8_t expected[16] = {255, 255, 0, 0, 255, 255, 0, 0,
                                             0,   0,   0, 0, 0,   0,   0, 0};
        assert_memory_equal(img, expected, 16);
        free(img);
    }
}

static void test_prospero_256(void **state)
{
    (void)state;
    size_t len, ref_len;
    char *text = read_shared("prospero.vm", &len);
    char *ref = read_shared("prospero-256.pgm", &ref_len);
    if (!text || !ref)
        skip(); /* read_shared said which file is absent */
    const char *header = "P5\n256 256\n255\n";
    assert_int_equal(ref_len, strlen(header) + 256 * 256);
    assert_memory_equal(ref, header, strlen(header));
    for (size_t i = 0; i < 3; i++) {
        if (!isa_supported(all_isas[i]))
            continue;
        uint8_t *img = render(text, len, all_isas[i], 256, 2);
        size_t bad = 0;
        for (size_t p = 0; p < 256 * 256; p++)
            bad += img[p] != (uint8_t)ref[strlen(header) + p];
        if (bad)
            fail_msg("%s: %zu pixels differ from prospero-256.pgm", isa_name(all_isas[i]), bad);
        free(img);
    }
    free(text);
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_isa_and_thread_count_agree),
        cmocka_unit_test(test_coordinates),
        cmocka_unit_test(test_orientation),
        cmocka_unit_test(test_prospero_256),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
