/* The inputs workload: the generated tree (names, sizes, content and its check), the generator in a
 * cache directory, staging names, and the cases prepare builds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runners/runner.h"
#include "workloads/inputs/tree.h"
#include "workloads/workload.h"

static char dir[64]; /* a cache directory per test */

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/sbxbench-inputs-XXXXXX");
    assert_non_null(mkdtemp(dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    return 0;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_paths_unique_nested_and_stable(void **state)
{
    (void)state;
    enum { N = INPUTS_MAX };
    char **all = malloc(N * sizeof *all);
    assert_non_null(all);
    size_t depth_seen[5] = {0};
    for (size_t i = 0; i < N; i++) {
        char rel[INPUTS_PATH_MAX];
        size_t len = inputs_path(i, rel);
        assert_true(len > 0 && len < INPUTS_PATH_MAX);
        assert_int_equal(strlen(rel), len);
        assert_true(rel[0] != '/' && !strstr(rel, "..") && !strstr(rel, "//"));
        assert_null(strstr(rel, INPUTS_DECOY));
        size_t slashes = 0;
        for (char *p = rel; *p; p++)
            slashes += *p == '/';
        assert_true(slashes >= 1 && slashes <= 3);
        depth_seen[slashes]++;
        all[i] = strdup(rel);
    }
    /* Each depth is used, by a fair share of the files. */
    for (int d = 1; d <= 3; d++)
        assert_true(depth_seen[d] > N / 5);
    qsort(all, N, sizeof *all, compare_strings);
    for (size_t i = 1; i < N; i++)
        assert_string_not_equal(all[i - 1], all[i]);
    for (size_t i = 0; i < N; i++)
        free(all[i]);
    free(all);
    /* A fixed point: the names are part of the cache's format (INPUTS_TREE_DIR). */
    char rel[INPUTS_PATH_MAX];
    inputs_path(0, rel);
    assert_string_equal(rel, "s0/f0.in");
    inputs_path(12345, rel);
    char again[INPUTS_PATH_MAX];
    inputs_path(12345, again);
    assert_string_equal(rel, again);
}

static void test_sizes_mixed_and_bounded(void **state)
{
    (void)state;
    size_t small = 0, large = 0, empty_or_tiny = 0;
    unsigned long long total = 0;
    for (size_t i = 0; i < 10000; i++) {
        char rel[INPUTS_PATH_MAX];
        inputs_path(i, rel);
        size_t size = inputs_size(inputs_seed(rel));
        assert_true(size <= INPUTS_MAX_SIZE);
        small += size < 1024;
        large += size >= 16384;
        empty_or_tiny += size < 8;
        total += size;
    }
    assert_true(small > 5000 && small < 7000);
    assert_true(large > 30 && large < 300);
    assert_true(empty_or_tiny > 0);
    assert_true(total / 10000 > 1500 && total / 10000 < 3500);
}

static void test_content_verifies_and_every_change_is_caught(void **state)
{
    (void)state;
    static unsigned char buf[INPUTS_MAX_SIZE + 1];
    for (size_t i = 0; i < 300; i++) {
        char rel[INPUTS_PATH_MAX];
        inputs_path(i * 97, rel);
        uint64_t seed = inputs_seed(rel), hash;
        size_t size = inputs_size(seed);
        inputs_fill(seed, buf);
        assert_true(inputs_verify(seed, buf, size, &hash));
        assert_true(hash == inputs_hash(buf, size));
        if (size == 0)
            continue;
        size_t at = (i * 7919) % size;
        buf[at] ^= (unsigned char)(1u << (i % 8));
        assert_false(inputs_verify(seed, buf, size, &hash));
        buf[at] ^= (unsigned char)(1u << (i % 8));
        assert_false(inputs_verify(seed, buf, size - 1, &hash)); /* truncated */
        buf[size] = buf[0];
        assert_false(inputs_verify(seed, buf, size + 1, &hash)); /* one byte more */
        /* Another file's content is wrong for this path. */
        char other[INPUTS_PATH_MAX];
        inputs_path(i * 97 + 1, other);
        uint64_t oseed = inputs_seed(other);
        static unsigned char obuf[INPUTS_MAX_SIZE + 1];
        inputs_fill(oseed, obuf);
        assert_false(inputs_verify(seed, obuf, inputs_size(oseed), &hash));
    }
}

static void test_digest_depends_on_order_and_content(void **state)
{
    (void)state;
    uint64_t a = inputs_digest_add(inputs_digest_add(0, 1), 2);
    uint64_t b = inputs_digest_add(inputs_digest_add(0, 2), 1);
    assert_true(a != b);
    assert_true(inputs_digest_add(0, 1) != inputs_digest_add(0, 3));
}

static void check_file(const char *root, size_t i)
{
    char rel[INPUTS_PATH_MAX], path[512];
    inputs_path(i, rel);
    snprintf(path, sizeof path, "%s/%s", root, rel);
    static unsigned char buf[INPUTS_MAX_SIZE + 2];
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    uint64_t hash;
    assert_true(n >= 0 && inputs_verify(inputs_seed(rel), buf, (size_t)n, &hash));
}

static bool exists(const char *root, const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    return access(path, F_OK) == 0;
}

static void test_generator_makes_extends_and_keeps(void **state)
{
    (void)state;
    char root[4096];
    struct errbuf eb = {{0}};
    assert_int_equal(inputs_tree_ensure(dir, 50, root, sizeof root, &eb), 0);
    assert_true(strstr(root, INPUTS_TREE_DIR "/tree") != NULL);
    for (size_t i = 0; i < 50; i++)
        check_file(root, i);
    char rel[INPUTS_PATH_MAX];
    inputs_path(50, rel);
    assert_false(exists(root, rel));
    /* A decoy at the root and in every directory of an input. */
    assert_true(exists(root, INPUTS_DECOY));
    for (size_t i = 0; i < 50; i++) {
        inputs_path(i, rel);
        for (char *slash = strrchr(rel, '/'); slash; slash = strrchr(rel, '/')) {
            strcpy(slash + 1, INPUTS_DECOY);
            assert_true(exists(root, rel));
            *slash = '\0';
        }
    }
    /* Asking for fewer changes nothing; a file altered since stays altered (the reader's job). */
    inputs_path(3, rel);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    int fd = open(path, O_WRONLY | O_APPEND);
    assert_true(fd >= 0 && write(fd, "x", 1) == 1);
    close(fd);
    assert_int_equal(inputs_tree_ensure(dir, 20, root, sizeof root, &eb), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal((size_t)st.st_size, inputs_size(inputs_seed(rel)) + 1);
    /* Asking for more generates only the rest. */
    assert_int_equal(inputs_tree_ensure(dir, 120, root, sizeof root, &eb), 0);
    for (size_t i = 50; i < 120; i++)
        check_file(root, i);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal((size_t)st.st_size, inputs_size(inputs_seed(rel)) + 1);
    char count[512];
    snprintf(count, sizeof count, "%s/%s/count", dir, INPUTS_TREE_DIR);
    FILE *f = fopen(count, "r");
    unsigned long n = 0;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lu", &n), 1);
    fclose(f);
    assert_int_equal(n, 120);
}

static void test_generator_redoes_an_unfinished_generation(void **state)
{
    (void)state;
    char root[4096], count[512], rel[INPUTS_PATH_MAX], path[512];
    struct errbuf eb = {{0}};
    assert_int_equal(inputs_tree_ensure(dir, 30, root, sizeof root, &eb), 0);
    /* A run killed while writing: the count was never written, a file is half there. */
    snprintf(count, sizeof count, "%s/%s/count", dir, INPUTS_TREE_DIR);
    assert_int_equal(unlink(count), 0);
    inputs_path(7, rel);
    snprintf(path, sizeof path, "%s/%s", root, rel);
    assert_int_equal(truncate(path, 1), 0);
    assert_int_equal(inputs_tree_ensure(dir, 30, root, sizeof root, &eb), 0);
    for (size_t i = 0; i < 30; i++)
        check_file(root, i);
}

static void test_generator_errors_name_the_path(void **state)
{
    (void)state;
    char root[4096];
    struct errbuf eb = {{0}};
    assert_int_equal(inputs_tree_ensure("/dev/null/cache", 5, root, sizeof root, &eb), -1);
    assert_non_null(strstr(eb.msg, "/dev/null/cache"));
    assert_non_null(strstr(eb.msg, strerror(ENOTDIR)));
    assert_null(strchr(eb.msg, '\n'));
    eb.msg[0] = '\0';
    assert_int_equal(inputs_tree_ensure("", 5, root, sizeof root, &eb), -1);
    assert_true(eb.msg[0] != '\0');
}

static void test_staging_names(void **state)
{
    (void)state;
    for (int s = 0; s < N_STAGINGS; s++) {
        assert_int_equal(staging_from_name(staging_name((enum staging)s)), s);
        assert_non_null(strstr(staging_names(), staging_name((enum staging)s)));
    }
    assert_int_equal(staging_from_name("per_file"), -1);
    assert_int_equal(staging_from_name(""), -1);
    assert_false(staging_isolates(STAGING_ROOT));
    assert_false(staging_isolates(STAGING_SYMLINKS));
    assert_true(staging_isolates(STAGING_PER_FILE));
    assert_true(staging_isolates(STAGING_OVERLAY));
}

static void test_runner_can_stage(void **state)
{
    (void)state;
    const struct runner *process = runner_find("process"), *bwrap = runner_find("bwrap");
    struct action a = {.inputs_root = "/x", .staging = STAGING_ROOT};
    char why[256] = "";
    assert_true(runner_can_stage(process, &a, why, sizeof why));
    a.staging = STAGING_PER_FILE;
    assert_false(runner_can_stage(process, &a, why, sizeof why));
    assert_non_null(strstr(why, "per-file"));
    assert_true(runner_can_stage(bwrap, &a, why, sizeof why));
    a.staging = STAGING_SYMLINKS;
    assert_false(runner_can_stage(bwrap, &a, why, sizeof why));
    a.inputs_root = NULL; /* an action without inputs runs anywhere */
    assert_true(runner_can_stage(process, &a, why, sizeof why));
}

static void test_cases(void **state)
{
    (void)state;
    struct workload_options o = {.inputs = "1,25",
                                 .staging = "root,per-file,symlinks",
                                 .cache_dir = dir,
                                 .exe_dir = "/opt/sbx"};
    const struct workload *w = workload_find("inputs");
    assert_non_null(w);
    struct workload_case *cases = NULL;
    size_t n = 0;
    struct errbuf eb = {{0}};
    assert_int_equal(workload_prepare(w, &o, &cases, &n, &eb), 0);
    assert_int_equal(n, 6);
    const char *labels[] = {"inputs/1/root",  "inputs/1/per-file",  "inputs/1/symlinks",
                            "inputs/25/root", "inputs/25/per-file", "inputs/25/symlinks"};
    for (size_t i = 0; i < n; i++) {
        struct workload_case *c = &cases[i];
        const struct action *a = &c->action;
        size_t count = i < 3 ? 1 : 25;
        enum staging how = (enum staging)staging_from_name(strrchr(labels[i], '/') + 1);
        assert_string_equal(c->label, labels[i]);
        assert_string_equal(a->argv[0], "/opt/sbx/sbx-read-inputs");
        bool hidden = strcmp(a->argv[1], "--hidden") == 0;
        assert_int_equal(hidden, staging_isolates(how));
        assert_string_equal(a->argv[1 + hidden], a->inputs_root);
        assert_int_equal(strtoul(a->argv[2 + hidden], NULL, 10), count);
        assert_null(a->argv[3 + hidden]);
        assert_int_equal(a->n_inputs, count);
        assert_int_equal(a->staging, how);
        char rel[INPUTS_PATH_MAX];
        inputs_path(count - 1, rel);
        assert_string_equal(a->inputs[count - 1], rel);
        /* The root is among the visible paths only when it is staged whole. */
        assert_int_equal(a->n_ro_paths, how == STAGING_ROOT ? 2 : 1);
        assert_string_equal(a->ro_paths[0], a->argv[0]);
        if (how == STAGING_ROOT)
            assert_string_equal(a->ro_paths[1], a->inputs_root);
        assert_int_equal(c->n_params, 2);
        assert_string_equal(c->params[0].key, "inputs");
        assert_int_equal(c->params[0].num, (long long)count);
        assert_string_equal(c->params[1].key, "staging");
        assert_string_equal(c->params[1].str, staging_name(how));
        assert_true(c->capture_stdout && c->check);
        /* The check takes exactly the reader's line. */
        FILE *out = tmpfile();
        assert_non_null(out);
        char why[256] = "", digest[80] = "";
        fputs("1 inputs, 0 bytes, digest 0000000000000000\n", out);
        fflush(out);
        rewind(out);
        assert_int_equal(c->check(c, fileno(out), digest, sizeof digest, why, sizeof why), -1);
        assert_non_null(strstr(why, "expected"));
        fclose(out);
    }
    for (size_t i = 0; i < n; i++)
        workload_case_free(w, &cases[i]);
    free(cases);
}

static void test_prepare_fails_cleanly(void **state)
{
    (void)state;
    struct workload_options o = {
        .inputs = "1", .staging = "root", .cache_dir = "/dev/null/x", .exe_dir = "/opt/sbx"};
    const struct workload *w = workload_find("inputs");
    struct workload_case *cases = NULL;
    size_t n = 0;
    struct errbuf eb = {{0}};
    assert_int_equal(workload_prepare(w, &o, &cases, &n, &eb), -1);
    assert_int_equal(n, 0);
    assert_non_null(strstr(eb.msg, "/dev/null/x"));
    o.cache_dir = dir;
    o.staging = "root,sideways";
    assert_int_equal(workload_prepare(w, &o, &cases, &n, &eb), -1);
    assert_int_equal(n, 0);
    assert_non_null(strstr(eb.msg, "sideways"));
    free(cases);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_unique_nested_and_stable),
        cmocka_unit_test(test_sizes_mixed_and_bounded),
        cmocka_unit_test(test_content_verifies_and_every_change_is_caught),
        cmocka_unit_test(test_digest_depends_on_order_and_content),
        cmocka_unit_test_setup_teardown(test_generator_makes_extends_and_keeps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_generator_redoes_an_unfinished_generation, setup,
                                        teardown),
        cmocka_unit_test(test_generator_errors_name_the_path),
        cmocka_unit_test(test_staging_names),
        cmocka_unit_test(test_runner_can_stage),
        cmocka_unit_test_setup_teardown(test_cases, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prepare_fails_cleanly, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
