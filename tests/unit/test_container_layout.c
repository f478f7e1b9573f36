/* The pure parts of the container mechanisms: which host paths a container gets, in which order,
 * the rootfs layout, the OCI configuration, the per-sample names. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "runners/binds.h"
#include "runners/container_name.h"
#include "runners/fsutil.h"
#include "runners/oci_bundle.h"
#include "runners/rootfs.h"

static char scratch[PATH_MAX];

static int make_scratch(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "/tmp/sbxbench-test-layout-XXXXXX");
    return mkdtemp(scratch) ? 0 : -1;
}

static int remove_scratch(void **state)
{
    (void)state;
    return remove_tree(scratch);
}

static const struct bind *find(const struct bind_list *l, const char *target)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].target, target) == 0)
            return &l->v[i];
    return NULL;
}

static size_t index_of(const struct bind_list *l, const char *target)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].target, target) == 0)
            return i;
    fail_msg("no bind for %s", target);
    return 0;
}

static void system_dirs_are_bound_read_only(void **state)
{
    (void)state;
    char *argv[] = {"/usr/bin/true", NULL};
    struct action a = {.argv = argv};
    struct bind_list l;
    struct errbuf eb = {{0}};
    assert_int_equal(binds_for_action(&a, &l, &eb), 0);
    const struct bind *usr = find(&l, "/usr");
    assert_non_null(usr);
    assert_false(usr->writable);
    /* /usr/bin/true lives under /usr: no bind of its own. */
    assert_null(find(&l, "/usr/bin/true"));
    /* A host symlink such as /bin -> usr/bin is the rootfs's business, never a bind. */
    struct stat st;
    if (lstat("/bin", &st) == 0 && S_ISLNK(st.st_mode))
        assert_null(find(&l, "/bin"));
    /* Nothing of /etc but the loader cache and the alternatives. */
    for (size_t i = 0; i < l.n; i++)
        if (path_within(l.v[i].target, "/etc"))
            assert_true(strcmp(l.v[i].target, "/etc/ld.so.cache") == 0 ||
                        strcmp(l.v[i].target, "/etc/alternatives") == 0);
    binds_free(&l);
}

static void action_paths_are_bound_parents_first(void **state)
{
    (void)state;
    char prog[PATH_MAX], out[PATH_MAX], in[PATH_MAX], deep[PATH_MAX];
    snprintf(prog, sizeof prog, "%s/prog", scratch);
    snprintf(out, sizeof out, "%s/out", scratch);
    snprintf(in, sizeof in, "%s/in", scratch);
    snprintf(deep, sizeof deep, "%s/out/sub", scratch);
    assert_int_equal(write_file(prog, "#!/bin/sh\n", 0755), 0);
    assert_int_equal(mkdir_parents(deep, 0755), 0);
    assert_int_equal(mkdir(in, 0755), 0);
    char *argv[] = {prog, NULL};
    /* The read-only path inside the writable one is listed first: it must still mount after. */
    const char *ro[] = {deep, in};
    const char *rw[] = {out, in};
    struct action a = {
        .argv = argv, .ro_paths = ro, .n_ro_paths = 2, .rw_paths = rw, .n_rw_paths = 2};
    struct bind_list l;
    struct errbuf eb = {{0}};
    assert_int_equal(binds_for_action(&a, &l, &eb), 0);
    assert_non_null(find(&l, prog));
    assert_false(find(&l, prog)->writable);
    assert_true(find(&l, out)->writable);
    assert_false(find(&l, deep)->writable);
    /* Asked read-only and read-write: one bind, writable. */
    assert_true(find(&l, in)->writable);
    assert_true(index_of(&l, out) < index_of(&l, deep));
    assert_true(index_of(&l, "/usr") < index_of(&l, prog));
    binds_free(&l);
}

static void missing_or_relative_paths_are_refused_by_name(void **state)
{
    (void)state;
    char *argv[] = {"/usr/bin/true", NULL};
    const char *missing[] = {"/nonexistent/sbxbench-input"};
    struct action a = {.argv = argv, .ro_paths = missing, .n_ro_paths = 1};
    struct bind_list l;
    struct errbuf eb = {{0}};
    assert_int_equal(binds_for_action(&a, &l, &eb), -1);
    assert_non_null(strstr(eb.msg, "/nonexistent/sbxbench-input"));
    assert_non_null(strstr(eb.msg, strerror(ENOENT)));
    assert_int_equal(l.n, 0);

    const char *relative[] = {"relative/path"};
    a = (struct action){.argv = argv, .rw_paths = relative, .n_rw_paths = 1};
    assert_int_equal(binds_for_action(&a, &l, &eb), -1);
    assert_non_null(strstr(eb.msg, "relative/path"));

    char *relative_prog[] = {"true", NULL};
    a = (struct action){.argv = relative_prog};
    assert_int_equal(binds_for_action(&a, &l, &eb), -1);
    assert_non_null(strstr(eb.msg, "absolute"));
}

static void path_within_compares_whole_components(void **state)
{
    (void)state;
    assert_true(path_within("/usr/bin", "/usr"));
    assert_true(path_within("/usr", "/usr"));
    assert_false(path_within("/usrx", "/usr"));
    assert_false(path_within("/us", "/usr"));
    assert_true(path_within("/anything", "/"));
}

static void rootfs_mirrors_the_hosts_symlinks(void **state)
{
    (void)state;
    char root[PATH_MAX], path[PATH_MAX], target[PATH_MAX], host[PATH_MAX];
    snprintf(root, sizeof root, "%s/rootfs", scratch);
    assert_int_equal(mkdir(root, 0755), 0);
    struct errbuf eb = {{0}};
    assert_int_equal(rootfs_populate(root, &eb), 0);
    for (size_t i = 0; rootfs_system_dirs[i]; i++) {
        struct stat hs, rs;
        snprintf(path, sizeof path, "%s%s", root, rootfs_system_dirs[i]);
        if (lstat(rootfs_system_dirs[i], &hs) < 0) {
            assert_int_equal(lstat(path, &rs), -1);
            continue;
        }
        assert_int_equal(lstat(path, &rs), 0);
        if (S_ISLNK(hs.st_mode)) {
            assert_true(S_ISLNK(rs.st_mode));
            ssize_t n = readlink(path, target, sizeof target - 1);
            ssize_t m = readlink(rootfs_system_dirs[i], host, sizeof host - 1);
            assert_true(n > 0 && m == n);
            assert_memory_equal(target, host, (size_t)n);
        } else {
            assert_true(S_ISDIR(rs.st_mode));
        }
    }
    struct stat st;
    snprintf(path, sizeof path, "%s/tmp", root);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 01777);
    snprintf(path, sizeof path, "%s/etc/passwd", root);
    assert_int_equal(access(path, R_OK), 0);
    /* Populating twice is harmless: the cache may hold a layout already. */
    assert_int_equal(rootfs_populate(root, &eb), 0);
}

static void oci_config_runs_the_action_with_its_mounts_in_order(void **state)
{
    (void)state;
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/oci-out", scratch);
    assert_int_equal(mkdir(out, 0755), 0);
    char *argv[] = {"/usr/bin/sh", "-c", "exit 3", NULL};
    char *envp[] = {"LANG=C", NULL};
    const char *rw[] = {out};
    struct action a = {.argv = argv, .envp = envp, .cwd = out, .rw_paths = rw, .n_rw_paths = 1};
    struct bind_list l;
    struct errbuf eb = {{0}};
    assert_int_equal(binds_for_action(&a, &l, &eb), 0);
    json_t *c = oci_config(&a, &l, "/some/rootfs");
    binds_free(&l);
    assert_non_null(c);
    json_t *proc = json_object_get(c, "process");
    json_t *args = json_object_get(proc, "args");
    assert_int_equal(json_array_size(args), 3);
    assert_string_equal(json_string_value(json_array_get(args, 2)), "exit 3");
    assert_string_equal(json_string_value(json_object_get(proc, "cwd")), out);
    json_t *env = json_object_get(proc, "env");
    assert_int_equal(json_array_size(env), 2);
    assert_int_equal(strncmp(json_string_value(json_array_get(env, 0)), "PATH=", 5), 0);
    assert_string_equal(json_string_value(json_array_get(env, 1)), "LANG=C");
    assert_true(json_is_true(json_object_get(proc, "noNewPrivileges")));
    json_t *root = json_object_get(c, "root");
    assert_string_equal(json_string_value(json_object_get(root, "path")), "/some/rootfs");
    assert_true(json_is_true(json_object_get(root, "readonly")));

    /* /tmp's tmpfs and /usr come before the writable output; the output is rw, /usr ro. */
    json_t *mounts = json_object_get(c, "mounts");
    size_t i, tmp_at = SIZE_MAX, usr_at = SIZE_MAX, out_at = SIZE_MAX;
    json_t *m;
    json_array_foreach(mounts, i, m)
    {
        const char *dest = json_string_value(json_object_get(m, "destination"));
        json_t *opts = json_object_get(m, "options");
        if (strcmp(dest, "/tmp") == 0)
            tmp_at = i;
        if (strcmp(dest, "/usr") == 0) {
            usr_at = i;
            assert_string_equal(json_string_value(json_array_get(opts, 1)), "ro");
        }
        if (strcmp(dest, out) == 0) {
            out_at = i;
            assert_string_equal(json_string_value(json_object_get(m, "type")), "bind");
            assert_string_equal(json_string_value(json_array_get(opts, 1)), "rw");
        }
    }
    assert_true(tmp_at < out_at && usr_at < out_at && out_at != SIZE_MAX);
    json_t *ns = json_object_get(json_object_get(c, "linux"), "namespaces");
    assert_int_equal(json_array_size(ns), 5);
    json_decref(c);
}

static void container_names_are_unique_and_fixed_width(void **state)
{
    (void)state;
    char *a = container_name_new();
    assert_non_null(a);
    size_t len = strlen(a);
    char first[128];
    container_name_next(a);
    snprintf(first, sizeof first, "%s", a);
    container_name_next(a);
    assert_int_equal(strlen(a), len);
    assert_string_not_equal(a, first);
    assert_int_equal(strncmp(a, "sbxbench-", 9), 0);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(system_dirs_are_bound_read_only),
        cmocka_unit_test(action_paths_are_bound_parents_first),
        cmocka_unit_test(missing_or_relative_paths_are_refused_by_name),
        cmocka_unit_test(path_within_compares_whole_components),
        cmocka_unit_test(rootfs_mirrors_the_hosts_symlinks),
        cmocka_unit_test(oci_config_runs_the_action_with_its_mounts_in_order),
        cmocka_unit_test(container_names_are_unique_and_fixed_width),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
