#include "runners/binds.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runners/fsutil.h"
#include "runners/rootfs.h"

/* The loader's cache (a dynamic program starts without it, but slowly searching) and the targets of
 * Debian's alternatives symlinks (/usr/bin/cc -> /etc/alternatives/cc -> /usr/bin/gcc). */
const char *const binds_etc_extras[] = {"/etc/ld.so.cache", "/etc/alternatives", NULL};

static int add(struct bind_list *l, const char *source, const char *target, bool writable,
               struct errbuf *eb)
{
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->v[i].target, target) == 0) {
            /* The same path asked twice: one mount, writable if either asked for it. */
            l->v[i].writable |= writable;
            return 0;
        }
    }
    struct bind *grown = realloc(l->v, (l->n + 1) * sizeof *grown);
    if (!grown)
        return err_sys(eb, "container mounts", target, ENOMEM);
    l->v = grown;
    struct bind *b = &l->v[l->n];
    b->source = strdup(source);
    b->target = strdup(target);
    b->writable = writable;
    if (!b->source || !b->target) {
        free(b->source);
        free(b->target);
        return err_sys(eb, "container mounts", target, ENOMEM);
    }
    l->n++;
    return 0;
}

static int add_system(struct bind_list *l, struct errbuf *eb)
{
    struct stat st;
    for (size_t i = 0; rootfs_system_dirs[i]; i++) {
        const char *d = rootfs_system_dirs[i];
        if (lstat(d, &st) == 0 && S_ISDIR(st.st_mode) && add(l, d, d, false, eb) < 0)
            return -1;
    }
    for (size_t i = 0; binds_etc_extras[i]; i++)
        if (access(binds_etc_extras[i], F_OK) == 0 &&
            add(l, binds_etc_extras[i], binds_etc_extras[i], false, eb) < 0)
            return -1;
    return 0;
}

static bool covered(const struct bind_list *l, const char *resolved)
{
    for (size_t i = 0; i < l->n; i++)
        if (path_within(resolved, l->v[i].target))
            return true;
    return false;
}

/* The program is bound at the path the action execs; its real location decides whether the
 * system directories already hold it (/bin/true is /usr/bin/true on a merged-/usr host). */
static int add_program(struct bind_list *l, const char *program, struct errbuf *eb)
{
    if (!program || program[0] != '/')
        return err_msg(eb, "container mounts: the program must be an absolute path: %s",
                       program ? program : "(none)");
    char resolved[PATH_MAX];
    if (!realpath(program, resolved))
        return err_sys(eb, "container mounts: program", program, errno);
    if (covered(l, resolved))
        return 0;
    return add(l, resolved, program, false, eb);
}

static int add_paths(struct bind_list *l, const char **paths, size_t n, bool writable,
                     struct errbuf *eb)
{
    struct stat st;
    for (size_t i = 0; i < n; i++) {
        if (paths[i][0] != '/')
            return err_msg(eb, "container mounts: not an absolute path: %s", paths[i]);
        if (stat(paths[i], &st) < 0)
            return err_sys(eb, "container mounts: bind source", paths[i], errno);
        if (add(l, paths[i], paths[i], writable, eb) < 0)
            return -1;
    }
    return 0;
}

static size_t depth(const char *path)
{
    size_t d = 0;
    for (const char *p = path; *p; p++)
        d += *p == '/' && p[1] != '\0' && p[1] != '/';
    return d;
}

/* Insertion sort by depth: stable, and the lists are a handful of entries. */
static void sort_by_depth(struct bind_list *l)
{
    for (size_t i = 1; i < l->n; i++) {
        struct bind b = l->v[i];
        size_t j = i, d = depth(b.target);
        while (j > 0 && depth(l->v[j - 1].target) > d) {
            l->v[j] = l->v[j - 1];
            j--;
        }
        l->v[j] = b;
    }
}

int binds_for_action(const struct action *a, struct bind_list *out, struct errbuf *eb)
{
    memset(out, 0, sizeof *out);
    if (add_system(out, eb) < 0 || add_program(out, a->argv ? a->argv[0] : NULL, eb) < 0 ||
        add_paths(out, a->ro_paths, a->n_ro_paths, false, eb) < 0 ||
        add_paths(out, a->rw_paths, a->n_rw_paths, true, eb) < 0) {
        binds_free(out);
        return -1;
    }
    sort_by_depth(out);
    return 0;
}

void binds_free(struct bind_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].source);
        free(l->v[i].target);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}
