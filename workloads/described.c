/* Finding, reading and checking description files, and the list of those loaded. */
#include "workloads/described.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runners/action.h"

static struct described **loaded;
static size_t n_loaded;

const char *described_exe_dir(const struct workload_options *opts)
{
    static char dir[4096];
    if (opts && opts->exe_dir)
        return opts->exe_dir;
    if (!dir[0]) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
        if (n <= 0) {
            strcpy(dir, ".");
        } else {
            dir[n] = '\0';
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = '\0';
        }
    }
    return dir;
}

void described_vars(const struct described *dw, const struct workload_options *opts,
                    struct option_strings *bufs, struct wl_vars *vars)
{
    memset(vars, 0, sizeof *vars);
    snprintf(bufs->pipe_bytes, sizeof bufs->pipe_bytes, "%lld", opts->pipe_bytes);
    snprintf(bufs->render_size, sizeof bufs->render_size, "%d", opts->render_size);
    snprintf(bufs->render_threads, sizeof bufs->render_threads, "%d", opts->render_threads);
    wl_vars_set(vars, "dir", dw->dir);
    wl_vars_set(vars, "exe_dir", described_exe_dir(opts));
    wl_vars_set(vars, "pipe_bytes", bufs->pipe_bytes);
    wl_vars_set(vars, "render_size", bufs->render_size);
    wl_vars_set(vars, "render_threads", bufs->render_threads);
    /* Options without a value are left out: using one is an "unknown variable" error. */
    if (opts->pipe_sizes)
        wl_vars_set(vars, "pipe_sizes", opts->pipe_sizes);
    if (opts->inputs)
        wl_vars_set(vars, "inputs", opts->inputs);
    if (opts->render_vm)
        wl_vars_set(vars, "render_vm", opts->render_vm);
}

bool described_needs_helper(const struct wl_instance *inst)
{
    return inst->pipeline.n_stages > 1 || inst->pipeline.stages[0].n_redirs > 0;
}

char **workload_search_dirs(void)
{
    char **dirs = strv_new();
    const char *env = getenv("SBXBENCH_WORKLOADS_DIR");
    if (dirs && env && *env)
        strv_push(&dirs, env);
    /* From the build tree, the sources' descriptions are the current ones. */
    char *build = realpath(SBXBENCH_BUILD_DIR, NULL);
    bool in_build_tree = build && strcmp(build, described_exe_dir(NULL)) == 0;
    free(build);
    if (dirs && in_build_tree)
        strv_push(&dirs, SBXBENCH_SOURCE_DIR "/workloads");
    if (dirs)
        strv_push(&dirs, SBXBENCH_DATA_DIR "/workloads");
    if (dirs && !in_build_tree)
        strv_push(&dirs, SBXBENCH_SOURCE_DIR "/workloads");
    return dirs;
}

/* NAME.wl in the first search directory that has it; caller frees. */
static char *find_description(const char *name)
{
    char **dirs = workload_search_dirs();
    char *found = NULL;
    for (size_t i = 0; dirs && dirs[i] && !found; i++) {
        if (asprintf(&found, "%s/%s.wl", dirs[i], name) < 0)
            found = NULL;
        else if (access(found, F_OK) < 0) {
            free(found);
            found = NULL;
        }
    }
    strv_free(dirs);
    return found;
}

static char *read_text(const char *path, struct errbuf *eb)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        err_sys(eb, "workload", path, errno);
        return NULL;
    }
    char *text = malloc(WL_MAX_FILE_SIZE + 1);
    size_t n = text ? fread(text, 1, WL_MAX_FILE_SIZE + 1, f) : 0;
    int read_errno = ferror(f) ? errno : 0;
    fclose(f);
    if (!text || read_errno) {
        err_sys(eb, "workload", path, text ? (read_errno ? read_errno : EIO) : ENOMEM);
    } else if (n > WL_MAX_FILE_SIZE) {
        err_msg(eb, "workload: %s: larger than %d bytes: not a description", path,
                WL_MAX_FILE_SIZE);
    } else if (memchr(text, '\0', n)) {
        err_msg(eb, "workload: %s: contains a NUL byte: not a description", path);
    } else {
        text[n] = '\0';
        return text;
    }
    free(text);
    return NULL;
}

static void described_free(struct described *dw)
{
    if (!dw)
        return;
    wl_desc_free(&dw->desc);
    free(dw->spec);
    free(dw->dir);
    free(dw);
}

/* Every case expanded once now, so that a mistake stops the run before it starts. */
static int check_cases(struct described *dw, const struct workload_options *opts, struct errbuf *eb)
{
    struct option_strings bufs;
    struct wl_vars vars;
    described_vars(dw, opts, &bufs, &vars);
    char **labels = strv_new();
    int rc = labels ? 0 : err_sys(eb, "load", dw->desc.path, ENOMEM);
    for (size_t i = 0; i < dw->desc.n_cases && rc == 0; i++) {
        struct wl_instance inst;
        bool host_missing;
        struct errbuf why = {{0}};
        if (wl_instantiate(&dw->desc, i, &vars, &inst, &host_missing, &why) < 0) {
            if (!host_missing) {
                rc = err_msg(eb, "%s", why.msg);
            } else if (!dw->unavailable[0]) {
                snprintf(dw->unavailable, sizeof dw->unavailable, "%s", why.msg);
            }
            continue;
        }
        for (size_t j = 0; labels[j] && rc == 0; j++)
            if (strcmp(labels[j], inst.label) == 0)
                rc = err_msg(eb,
                             "%s:%u: two cases are both labelled '%s': the label must tell "
                             "every case apart (use each param that varies)",
                             dw->desc.path, dw->desc.label.lineno, inst.label);
        if (rc == 0 && strv_push(&labels, inst.label) < 0)
            rc = err_sys(eb, "load", dw->desc.path, ENOMEM);
        dw->needs_helper |= described_needs_helper(&inst);
        wl_instance_free(&inst);
    }
    strv_free(labels);
    return rc;
}

/* sbx-action must be next to sbxbench for the cases that need it. */
static void check_helper(struct described *dw, const struct workload_options *opts)
{
    if (!dw->needs_helper || dw->unavailable[0])
        return;
    char path[4200];
    snprintf(path, sizeof path, "%s/sbx-action", described_exe_dir(opts));
    if (access(path, X_OK) < 0)
        snprintf(dw->unavailable, sizeof dw->unavailable,
                 "%s: its pipeline or redirections need %s: %s", dw->desc.path, path,
                 strerror(errno));
}

static struct described *load(const char *spec, const char *path,
                              const struct workload_options *opts, struct errbuf *eb)
{
    struct described *dw = calloc(1, sizeof *dw);
    char *text = NULL, *real = NULL;
    if (!dw || !(dw->spec = strdup(spec))) {
        err_sys(eb, "load", path, ENOMEM);
        goto fail;
    }
    if (!(text = read_text(path, eb)))
        goto fail;
    if (!(real = realpath(path, NULL))) {
        err_sys(eb, "workload", path, errno);
        goto fail;
    }
    *strrchr(real, '/') = '\0';
    dw->dir = real[0] ? real : strcpy(real, "/");
    struct option_strings bufs;
    struct wl_vars vars;
    described_vars(dw, opts, &bufs, &vars);
    if (wl_desc_parse(path, text, &vars, &dw->desc, eb) < 0 || check_cases(dw, opts, eb) < 0)
        goto fail;
    check_helper(dw, opts);
    free(text);
    dw->w.name = dw->desc.name;
    dw->w.summary = dw->desc.summary ? dw->desc.summary : dw->desc.run.text;
    dw->w.cleanup = described_cleanup;
    dw->w.described = dw;
    return dw;
fail:
    free(text);
    described_free(dw);
    return NULL;
}

static const struct workload *find_in_table(const char *name)
{
    for (size_t i = 0; workload_table[i]; i++)
        if (strcmp(workload_table[i]->name, name) == 0)
            return workload_table[i];
    return NULL;
}

const struct workload *workload_find(const char *name)
{
    const struct workload *w = find_in_table(name);
    for (size_t i = 0; i < n_loaded && !w; i++)
        if (strcmp(loaded[i]->spec, name) == 0)
            w = &loaded[i]->w;
    return w;
}

static bool is_path(const char *spec)
{
    size_t n = strlen(spec);
    return strchr(spec, '/') || (n > 3 && strcmp(spec + n - 3, ".wl") == 0);
}

static int not_found(const char *spec, struct errbuf *eb)
{
    char **dirs = workload_search_dirs();
    char *list = dirs ? strv_join_shell(dirs) : NULL;
    err_msg(eb,
            "unknown workload '%s': not built in, and no %s.wl in %s (see 'sbxbench list'; a "
            "description file is named by a path: ./%s.wl)",
            spec, spec, list ? list : "the workloads directories", spec);
    free(list);
    strv_free(dirs);
    return -1;
}

static int add_loaded(struct described *dw, struct errbuf *eb)
{
    const char *name = dw->desc.name;
    const struct workload *clash = find_in_table(name);
    for (size_t i = 0; i < n_loaded && !clash; i++)
        if (strcmp(loaded[i]->desc.name, name) == 0)
            clash = &loaded[i]->w;
    if (clash)
        return err_msg(eb, "%s: a workload named '%s' is already in this run%s%s%s", dw->desc.path,
                       name, clash->described ? " (from " : "",
                       clash->described ? clash->described->desc.path : "",
                       clash->described ? ")" : "");
    struct described **grown = realloc(loaded, (n_loaded + 1) * sizeof *grown);
    if (!grown)
        return err_sys(eb, "load", dw->desc.path, ENOMEM);
    loaded = grown;
    loaded[n_loaded++] = dw;
    return 0;
}

const struct workload *workload_resolve(const char *spec, const struct workload_options *opts,
                                        struct errbuf *eb)
{
    const struct workload *known = workload_find(spec);
    if (known)
        return known;
    char *path = is_path(spec) ? strdup(spec) : find_description(spec);
    if (!path) {
        if (is_path(spec))
            err_sys(eb, "load", spec, ENOMEM);
        else
            not_found(spec, eb);
        return NULL;
    }
    struct described *dw = load(spec, path, opts, eb);
    free(path);
    if (!dw)
        return NULL;
    if (add_loaded(dw, eb) < 0) {
        described_free(dw);
        return NULL;
    }
    return &dw->w;
}

void workloads_unload(void)
{
    for (size_t i = 0; i < n_loaded; i++)
        described_free(loaded[i]);
    free(loaded);
    loaded = NULL;
    n_loaded = 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names NAME of every NAME.wl in dir that names is still missing. */
static void add_dir_names(char ***names, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t first = strv_len(*names);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n <= 3 || strcmp(e->d_name + n - 3, ".wl") != 0)
            continue;
        bool seen = false;
        for (size_t i = 0; (*names)[i] && !seen; i++)
            seen = strncmp((*names)[i], e->d_name, n - 3) == 0 && (*names)[i][n - 3] == '\0';
        if (!seen)
            strv_pushf(names, "%.*s", (int)(n - 3), e->d_name);
    }
    closedir(d);
    qsort(*names + first, strv_len(*names) - first, sizeof **names, compare_names);
}

char **workload_builtin_names(void)
{
    char **names = strv_new();
    for (size_t i = 0; names && workload_table[i]; i++)
        strv_push(&names, workload_table[i]->name);
    char **dirs = workload_search_dirs();
    for (size_t i = 0; names && dirs && dirs[i]; i++)
        add_dir_names(&names, dirs[i]);
    strv_free(dirs);
    return names;
}

bool workload_available(const struct workload *w, const struct workload_options *opts, char *why,
                        size_t whylen)
{
    if (!w->described)
        return w->available(opts, why, whylen);
    if (w->described->unavailable[0])
        snprintf(why, whylen, "%s", w->described->unavailable);
    return !w->described->unavailable[0];
}

int workload_prepare(const struct workload *w, const struct workload_options *opts,
                     struct workload_case **cases, size_t *n, struct errbuf *eb)
{
    if (!w->described)
        return w->prepare(opts, cases, n, eb);
    return described_prepare(w->described, opts, cases, n, eb);
}
