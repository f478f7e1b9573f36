#include "runners/oci_bundle.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runners/fsutil.h"
#include "runners/rootfs.h"

static json_t *strings(const char *const *v)
{
    json_t *a = json_array();
    for (size_t i = 0; a && v[i]; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *env_json(const struct action *a)
{
    json_t *env = json_array();
    bool has_path = false;
    for (size_t i = 0; a->envp && a->envp[i]; i++) {
        has_path |= strncmp(a->envp[i], "PATH=", 5) == 0;
        json_array_append_new(env, json_string(a->envp[i]));
    }
    if (!has_path)
        json_array_insert_new(env, 0, json_string(ROOTFS_DEFAULT_PATH));
    return env;
}

static json_t *process_json(const struct action *a)
{
    static const char *const caps[] = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE", NULL};
    json_t *args = json_array();
    for (size_t i = 0; a->argv && a->argv[i]; i++)
        json_array_append_new(args, json_string(a->argv[i]));
    return json_pack("{s:b,s:{s:I,s:I},s:o,s:o,s:s,s:{s:o,s:o,s:o},s:b}", "terminal", 0, "user",
                     "uid", (json_int_t)getuid(), "gid", (json_int_t)getgid(), "args", args, "env",
                     env_json(a), "cwd", a->cwd ? a->cwd : "/", "capabilities", "bounding",
                     strings(caps), "effective", strings(caps), "permitted", strings(caps),
                     "noNewPrivileges", 1);
}

static json_t *mount_json(const char *dest, const char *type, const char *source,
                          const char *const *options)
{
    return json_pack("{s:s,s:s,s:s,s:o}", "destination", dest, "type", type, "source", source,
                     "options", strings(options));
}

/* The kernel file systems every container gets, then the binds in their order. */
static json_t *mounts_json(const struct bind_list *binds)
{
    static const char *const proc[] = {"nosuid", "noexec", "nodev", NULL};
    static const char *const dev[] = {"nosuid", "strictatime", "mode=755", "size=65536k", NULL};
    static const char *const pts[] = {"nosuid",        "noexec",    "newinstance",
                                      "ptmxmode=0666", "mode=0620", NULL};
    static const char *const shm[] = {"nosuid",    "noexec",      "nodev",
                                      "mode=1777", "size=65536k", NULL};
    static const char *const sys[] = {"nosuid", "noexec", "nodev", "ro", NULL};
    static const char *const tmp[] = {"nosuid", "nodev", "mode=1777", NULL};
    static const char *const ro[] = {"rbind", "ro", NULL};
    static const char *const rw[] = {"rbind", "rw", NULL};
    json_t *m = json_array();
    json_array_append_new(m, mount_json("/proc", "proc", "proc", proc));
    json_array_append_new(m, mount_json("/dev", "tmpfs", "tmpfs", dev));
    json_array_append_new(m, mount_json("/dev/pts", "devpts", "devpts", pts));
    json_array_append_new(m, mount_json("/dev/shm", "tmpfs", "shm", shm));
    json_array_append_new(m, mount_json("/dev/mqueue", "mqueue", "mqueue", proc));
    json_array_append_new(m, mount_json("/sys", "sysfs", "sysfs", sys));
    json_array_append_new(m, mount_json("/tmp", "tmpfs", "tmpfs", tmp));
    for (size_t i = 0; i < binds->n; i++)
        json_array_append_new(m, mount_json(binds->v[i].target, "bind", binds->v[i].source,
                                            binds->v[i].writable ? rw : ro));
    return m;
}

static json_t *linux_json(void)
{
    static const char *const masked[] = {"/proc/acpi",
                                         "/proc/asound",
                                         "/proc/kcore",
                                         "/proc/keys",
                                         "/proc/latency_stats",
                                         "/proc/timer_list",
                                         "/proc/timer_stats",
                                         "/proc/sched_debug",
                                         "/sys/firmware",
                                         "/proc/scsi",
                                         NULL};
    static const char *const readonly[] = {
        "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger", NULL};
    static const char *const namespaces[] = {"pid", "network", "ipc", "uts", "mount", NULL};
    json_t *ns = json_array();
    for (size_t i = 0; namespaces[i]; i++)
        json_array_append_new(ns, json_pack("{s:s}", "type", namespaces[i]));
    return json_pack("{s:{s:[{s:b,s:s}]},s:o,s:o,s:o}", "resources", "devices", "allow", 0,
                     "access", "rwm", "namespaces", ns, "maskedPaths", strings(masked),
                     "readonlyPaths", strings(readonly));
}

json_t *oci_config(const struct action *a, const struct bind_list *binds, const char *rootfs)
{
    return json_pack("{s:s,s:o,s:{s:s,s:b},s:s,s:o,s:o}", "ociVersion", "1.0.2", "process",
                     process_json(a), "root", "path", rootfs, "readonly", 1, "hostname", "sbxbench",
                     "mounts", mounts_json(binds), "linux", linux_json());
}

static int write_config(const struct oci_bundle *b, const struct action *a, struct errbuf *eb)
{
    struct bind_list binds;
    if (binds_for_action(a, &binds, eb) < 0)
        return -1;
    json_t *config = oci_config(a, &binds, b->rootfs);
    binds_free(&binds);
    if (!config)
        return err_sys(eb, "OCI bundle", "config.json", ENOMEM);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/config.json", b->dir);
    int rc = json_dump_file(config, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(config);
    return rc < 0 ? err_sys(eb, "OCI bundle: write", path, errno ? errno : EIO) : 0;
}

int oci_bundle_create(const char *cache_dir, const char *prefix, const struct action *a,
                      struct oci_bundle *out, struct errbuf *eb)
{
    memset(out, 0, sizeof *out);
    char *base = rootfs_cache_subdir(cache_dir, eb);
    if (!base)
        return -1;
    char bundles[PATH_MAX];
    snprintf(bundles, sizeof bundles, "%s/bundles", base);
    free(base);
    if (mkdir_parents(bundles, 0700) < 0)
        return err_sys(eb, "OCI bundle: mkdir", bundles, errno);
    if (asprintf(&out->dir, "%s/%s-XXXXXX", bundles, prefix) < 0) {
        out->dir = NULL;
        return err_sys(eb, "OCI bundle", bundles, ENOMEM);
    }
    if (!mkdtemp(out->dir)) {
        err_sys(eb, "OCI bundle: mkdtemp", out->dir, errno);
        free(out->dir);
        out->dir = NULL;
        return -1;
    }
    /* mkdtemp makes it 0700; the container's processes need to reach their root. */
    chmod(out->dir, 0755);
    if (asprintf(&out->rootfs, "%s/rootfs", out->dir) < 0) {
        out->rootfs = NULL;
        oci_bundle_remove(out);
        return err_sys(eb, "OCI bundle", "rootfs", ENOMEM);
    }
    if (mkdir(out->rootfs, 0755) < 0) {
        err_sys(eb, "OCI bundle: mkdir", out->rootfs, errno);
        oci_bundle_remove(out);
        return -1;
    }
    if (rootfs_populate(out->rootfs, eb) < 0 || write_config(out, a, eb) < 0) {
        oci_bundle_remove(out);
        return -1;
    }
    return 0;
}

void oci_bundle_remove(struct oci_bundle *b)
{
    if (b->dir)
        remove_tree(b->dir);
    free(b->dir);
    free(b->rootfs);
    memset(b, 0, sizeof *b);
}
