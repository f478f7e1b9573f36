#include "runners/rootfs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runners/fsutil.h"
#include "runners/runner.h"

#ifndef SBXBENCH_VERSION
#define SBXBENCH_VERSION "unknown"
#endif

const char *const rootfs_system_dirs[] = {"/usr",   "/bin",   "/sbin",   "/lib",
                                          "/lib32", "/lib64", "/libx32", NULL};

/* Mount points every runtime expects, and /tmp for programs that write scratch files. */
static const struct {
    const char *name;
    mode_t mode;
} rootfs_dirs[] = {
    {"dev", 0755}, {"proc", 0555}, {"sys", 0555},  {"etc", 0755},
    {"run", 0755}, {"root", 0700}, {"tmp", 01777},
};

static const char passwd[] = "root:x:0:0:root:/root:/bin/sh\n"
                             "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
static const char group[] = "root:x:0:\nnogroup:x:65534:\n";

/* /bin -> usr/bin stays a symlink; a real /lib64 becomes an empty mount point. */
static int mirror_system_dir(const char *root, const char *host_dir, struct errbuf *eb)
{
    char inside[PATH_MAX], target[PATH_MAX];
    struct stat st;
    if (lstat(host_dir, &st) < 0)
        return 0;
    snprintf(inside, sizeof inside, "%s%s", root, host_dir);
    if (S_ISLNK(st.st_mode)) {
        ssize_t n = readlink(host_dir, target, sizeof target - 1);
        if (n < 0)
            return err_sys(eb, "container rootfs: readlink", host_dir, errno);
        target[n] = '\0';
        if (symlink(target, inside) < 0 && errno != EEXIST)
            return err_sys(eb, "container rootfs: symlink", inside, errno);
    } else if (S_ISDIR(st.st_mode)) {
        if (mkdir(inside, 0755) < 0 && errno != EEXIST)
            return err_sys(eb, "container rootfs: mkdir", inside, errno);
    }
    return 0;
}

int rootfs_populate(const char *dir, struct errbuf *eb)
{
    char path[PATH_MAX];
    for (size_t i = 0; rootfs_system_dirs[i]; i++)
        if (mirror_system_dir(dir, rootfs_system_dirs[i], eb) < 0)
            return -1;
    for (size_t i = 0; i < sizeof rootfs_dirs / sizeof rootfs_dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, rootfs_dirs[i].name);
        if ((mkdir(path, rootfs_dirs[i].mode) < 0 && errno != EEXIST) ||
            chmod(path, rootfs_dirs[i].mode) < 0)
            return err_sys(eb, "container rootfs: mkdir", path, errno);
    }
    snprintf(path, sizeof path, "%s/etc/passwd", dir);
    if (write_file(path, passwd, 0644) < 0)
        return err_sys(eb, "container rootfs: write", path, errno);
    snprintf(path, sizeof path, "%s/etc/group", dir);
    if (write_file(path, group, 0644) < 0)
        return err_sys(eb, "container rootfs: write", path, errno);
    return 0;
}

char *rootfs_cache_subdir(const char *cache_dir, struct errbuf *eb)
{
    char *dir = NULL;
    if (!cache_dir || !*cache_dir) {
        err_msg(eb, "container rootfs: no cache directory (--cache-dir)");
        return NULL;
    }
    if (asprintf(&dir, "%s/containers/%s", cache_dir, SBXBENCH_VERSION) < 0) {
        err_sys(eb, "container rootfs", cache_dir, ENOMEM);
        return NULL;
    }
    if (mkdir_parents(dir, 0755) < 0) {
        err_sys(eb, "container rootfs: mkdir", dir, errno);
        free(dir);
        return NULL;
    }
    return dir;
}

/* tar with fixed owners, order and times, so the same layout always gives the same image. */
static int make_tarball(const char *rootfs, const char *tar_path, struct errbuf *eb)
{
    char *file_opt = NULL, *dir_opt = NULL;
    if (asprintf(&file_opt, "--file=%s", tar_path) < 0 ||
        asprintf(&dir_opt, "--directory=%s", rootfs) < 0) {
        free(file_opt);
        return err_sys(eb, "container rootfs", "tar", ENOMEM);
    }
    char *argv[] = {"tar",       "--create",  file_opt,      dir_opt,      "--numeric-owner",
                    "--owner=0", "--group=0", "--sort=name", "--mtime=@0", ".",
                    NULL};
    char line[256];
    int rc = run_capture(argv, line, sizeof line, 60.0);
    free(file_opt);
    free(dir_opt);
    if (rc != 0)
        return err_msg(eb, "container rootfs: tar: %s", rc < 0 ? "did not run" : line);
    return 0;
}

int rootfs_tarball(const char *cache_dir, char **path, struct errbuf *eb)
{
    char *dir = rootfs_cache_subdir(cache_dir, eb);
    if (!dir)
        return -1;
    char final[PATH_MAX], build[PATH_MAX], rootfs[PATH_MAX], tar[PATH_MAX];
    snprintf(final, sizeof final, "%s/rootfs.tar", dir);
    snprintf(build, sizeof build, "%s/.build-XXXXXX", dir);
    free(dir);
    if (access(final, R_OK) == 0)
        goto done;
    if (!mkdtemp(build))
        return err_sys(eb, "container rootfs: mkdtemp", build, errno);
    snprintf(rootfs, sizeof rootfs, "%s/rootfs", build);
    snprintf(tar, sizeof tar, "%s/rootfs.tar", build);
    int rc = mkdir(rootfs, 0755) < 0 ? err_sys(eb, "container rootfs: mkdir", rootfs, errno)
                                     : rootfs_populate(rootfs, eb);
    if (rc == 0)
        rc = make_tarball(rootfs, tar, eb);
    if (rc == 0 && rename(tar, final) < 0)
        rc = err_sys(eb, "container rootfs: rename", final, errno);
    remove_tree(build);
    if (rc < 0)
        return -1;
done:
    *path = strdup(final);
    return *path ? 0 : err_sys(eb, "container rootfs", final, ENOMEM);
}

const char *rootfs_image_tag(void)
{
    return "localhost/sbxbench-rootfs:" SBXBENCH_VERSION;
}
