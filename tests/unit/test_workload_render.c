/* The render workload: the action it builds (argv, the paths a sandbox must show) and its output
 * check (a PGM of the right size, digested with SHA-256). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "workloads/sha256.h"
#include "workloads/workload.h"

struct fixture {
    char dir[64];
    char exe[128];
    char vm[128];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/sbxbench-render-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->exe, sizeof f->exe, "%s/sbx-render", f->dir);
    snprintf(f->vm, sizeof f->vm, "%s/scene.vm", f->dir);
    FILE *e = fopen(f->exe, "w"), *v = fopen(f->vm, "w");
    if (!e || !v)
        return -1;
    fputs("#!/bin/sh\n", e);
    fputs("_0 var-x\n", v);
    fclose(e);
    fclose(v);
    chmod(f->exe, 0755);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    unlink(f->exe);
    unlink(f->vm);
    rmdir(f->dir);
    free(f);
    return 0;
}

static void prepare(const struct fixture *f, const char *vm, int threads,
                    struct workload_case **cases, size_t *n)
{
    const struct workload *w = workload_find("render");
    assert_non_null(w);
    struct workload_options opts = {
        .render_size = 64, .render_vm = vm, .render_threads = threads, .exe_dir = f->dir};
    char why[256] = "";
    assert_true(w->available(&opts, why, sizeof why));
    struct errbuf eb = {{0}};
    *cases = NULL;
    *n = 0;
    assert_int_equal(w->prepare(&opts, cases, n, &eb), 0);
    assert_int_equal(*n, 1);
}

static void test_action(void **state)
{
    struct fixture *f = *state;
    struct workload_case *cases;
    size_t n;
    prepare(f, f->vm, 3, &cases, &n);
    struct workload_case *c = &cases[0];
    assert_string_equal(c->label, "render/64");
    assert_string_equal(c->action.argv[0], f->exe);
    assert_string_equal(c->action.argv[1], "--size=64");
    assert_string_equal(c->action.argv[2], "--threads=3");
    char want_vm[160];
    snprintf(want_vm, sizeof want_vm, "--vm=%s", f->vm);
    assert_string_equal(c->action.argv[3], want_vm);
    assert_null(c->action.argv[4]);
    /* The sandbox must see the binary and the program. */
    assert_int_equal(c->action.n_ro_paths, 2);
    assert_string_equal(c->action.ro_paths[0], f->exe);
    assert_string_equal(c->action.ro_paths[1], f->vm);
    assert_true(c->capture_stdout);
    assert_non_null(c->check);
    workload_case_free(workload_find("render"), c);
    free(cases);

    prepare(f, NULL, 0, &cases, &n);
    assert_null(cases[0].action.argv[2]); /* the built-in scene, the renderer's thread count */
    assert_int_equal(cases[0].action.n_ro_paths, 1);
    workload_case_free(workload_find("render"), &cases[0]);
    free(cases);
}

static void test_unavailable(void **state)
{
    struct fixture *f = *state;
    const struct workload *w = workload_find("render");
    struct workload_options opts = {.render_size = 64, .exe_dir = "/nonexistent"};
    char why[256] = "";
    assert_false(w->available(&opts, why, sizeof why));
    assert_non_null(strstr(why, "/nonexistent/sbx-render"));
    opts.exe_dir = f->dir;
    opts.render_vm = "/nonexistent.vm";
    assert_false(w->available(&opts, why, sizeof why));
    assert_non_null(strstr(why, "--render-vm"));
}

static int check(const struct workload_case *c, const void *data, size_t len, char *digest,
                 char *why)
{
    FILE *t = tmpfile();
    assert_non_null(t);
    assert_int_equal(fwrite(data, 1, len, t), len);
    fflush(t);
    rewind(t);
    int rc = c->check(c, fileno(t), digest, 80, why, 256);
    fclose(t);
    return rc;
}

static void test_check(void **state)
{
    struct fixture *f = *state;
    struct workload_case *cases;
    size_t n;
    prepare(f, NULL, 0, &cases, &n);
    const char *header = "P5\n64 64\n255\n";
    size_t len = strlen(header) + 64 * 64;
    char *img = malloc(len);
    assert_non_null(img);
    memcpy(img, header, strlen(header));
    for (size_t i = strlen(header); i < len; i++)
        img[i] = (char)(i % 7 ? 0 : 255);
    char digest[80] = "", why[256] = "";
    assert_int_equal(check(&cases[0], img, len, digest, why), 0);
    /* The digest is the SHA-256 of the whole output. */
    struct sha256 s;
    uint8_t d[SHA256_BYTES];
    char hex[SHA256_HEX_BYTES];
    sha256_init(&s);
    sha256_update(&s, img, len);
    sha256_final(&s, d);
    sha256_hex(d, hex);
    assert_string_equal(digest, hex);
    /* One pixel different: a different digest. */
    img[len - 1] ^= 1;
    char other[80] = "";
    assert_int_equal(check(&cases[0], img, len, other, why), 0);
    assert_string_not_equal(other, digest);
    /* A truncated image, a wrong size, no image at all. */
    assert_int_equal(check(&cases[0], img, len - 1, other, why), -1);
    assert_non_null(strstr(why, "not a 64x64 PGM"));
    memcpy(img, "P5\n32 32\n255\n", 13);
    assert_int_equal(check(&cases[0], img, len, other, why), -1);
    assert_int_equal(check(&cases[0], "", 0, other, why), -1);
    free(img);
    workload_case_free(workload_find("render"), &cases[0]);
    free(cases);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_action),
        cmocka_unit_test(test_unavailable),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
