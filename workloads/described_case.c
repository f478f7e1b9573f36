/* A description's cases as the harness runs them: one action each, with its scratch directory,
 * its visible paths and its output check. */
#include "workloads/described.h"

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "runners/action.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

extern char **environ;

/* What a case keeps beyond its action: the action's fields point into it. */
struct described_case {
    struct wl_instance inst;
    char *tmpdir; /* ${tmp}, removed at cleanup; NULL when unused */
    char **ro, **rw, **envp;
};

/* ${tmp} lives on a tmpfs where there is one, so that a workload's output costs no disk I/O. */
static const char *scratch_base(void)
{
    struct statfs fs;
    if (statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC && access("/dev/shm", W_OK) == 0)
        return "/dev/shm";
    const char *tmp = getenv("TMPDIR");
    return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void case_state_free(struct described_case *st)
{
    if (!st)
        return;
    if (st->tmpdir) {
        remove_tree(st->tmpdir);
        free(st->tmpdir);
    }
    wl_instance_free(&st->inst);
    strv_free(st->ro);
    strv_free(st->rw);
    strv_free(st->envp);
    free(st);
}

void described_cleanup(struct workload_case *c)
{
    case_state_free(c->priv);
    c->priv = NULL;
}

/* The harness's environment with the description's env lines laid over it. */
static char **environment(char *const *overrides)
{
    char **env = strv_new();
    int rc = env ? 0 : -1;
    for (size_t i = 0; rc == 0 && environ[i]; i++) {
        size_t n = strcspn(environ[i], "=");
        bool replaced = false;
        for (size_t o = 0; overrides[o] && !replaced; o++)
            replaced = strncmp(overrides[o], environ[i], n) == 0 && overrides[o][n] == '=';
        if (!replaced)
            rc = strv_push(&env, environ[i]);
    }
    if (rc == 0)
        rc = strv_extend(&env, overrides);
    if (rc < 0) {
        strv_free(env);
        return NULL;
    }
    return env;
}

/* The action's argv: the command itself, or sbx-action running the pipeline. */
static int action_argv(const struct wl_instance *inst, const char *helper, struct action *a)
{
    a->argv = strv_new();
    if (!a->argv)
        return -1;
    if (!described_needs_helper(inst)) {
        a->name = strchr(inst->typed_program, '/') ? NULL : inst->typed_program;
        return strv_extend(&a->argv, inst->pipeline.stages[0].argv);
    }
    size_t n = pl_encoded_len(&inst->pipeline);
    const char **words = calloc(n + 1, sizeof *words);
    char *numbers = calloc(inst->pipeline.n_stages, 24);
    int rc = words && numbers ? strv_push(&a->argv, helper) : -1;
    if (rc == 0) {
        pl_encode(&inst->pipeline, words, numbers);
        rc = strv_extend(&a->argv, (char **)words);
    }
    free(words);
    free(numbers);
    return rc;
}

static int build_action(struct described_case *st, const struct workload_options *opts,
                        struct action *a)
{
    char helper[4200];
    snprintf(helper, sizeof helper, "%s/sbx-action", described_exe_dir(opts));
    if (action_argv(&st->inst, helper, a) < 0)
        return -1;
    if (!(st->ro = strv_dup(st->inst.ro)) || !(st->rw = strv_dup(st->inst.rw)))
        return -1;
    if (described_needs_helper(&st->inst) && strv_push(&st->ro, helper) < 0)
        return -1;
    if (st->tmpdir && strv_push(&st->rw, st->tmpdir) < 0)
        return -1;
    if (st->inst.env[0] && !(st->envp = environment(st->inst.env)))
        return -1;
    a->envp = st->envp;
    a->cwd = st->inst.cwd;
    a->ro_paths = (const char **)st->ro;
    a->n_ro_paths = strv_len(st->ro);
    a->rw_paths = (const char **)st->rw;
    a->n_rw_paths = strv_len(st->rw);
    return 0;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h;
}

/* expect-stdout: the whole output is the expected text (a final newline aside). */
static int check_stdout(const struct workload_case *c, int fd, char *digest, size_t digestlen,
                        char *why, size_t whylen)
{
    const struct described_case *st = c->priv;
    const char *want = st->inst.expect_stdout;
    size_t want_len = strlen(want), cap = want_len + 2, got = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        snprintf(why, whylen, "%s", strerror(ENOMEM));
        return -1;
    }
    ssize_t n;
    while (got < cap && (n = read(fd, buf + got, cap - got)) > 0)
        got += (size_t)n;
    buf[got] = '\0';
    snprintf(digest, digestlen, "%016" PRIx64, fnv1a(0xcbf29ce484222325ULL, buf, got));
    size_t body = got && buf[got - 1] == '\n' ? got - 1 : got;
    int rc = 0;
    if (body != want_len || memcmp(buf, want, want_len) != 0) {
        buf[strcspn(buf, "\n")] = '\0';
        snprintf(why, whylen, "expected \"%s\" on stdout, got \"%.200s\"%s", want, buf,
                 got == cap ? "..." : "");
        rc = -1;
    }
    free(buf);
    return rc;
}

static void set_params(const struct described *dw, const struct wl_instance *inst,
                       struct workload_case *c)
{
    for (size_t i = 0; i < dw->desc.n_params; i++) {
        const struct wl_param *p = &dw->desc.params[i];
        struct param *out = &c->params[c->n_params++];
        out->key = p->name;
        out->str = p->numeric ? NULL : inst->values[i];
        out->num = p->numeric ? strtoll(inst->values[i], NULL, 10) : 0;
    }
}

/* One case; -1 with eb filled. On failure nothing is left in *cases. */
static int prepare_case(const struct described *dw, const struct workload_options *opts,
                        size_t index, struct workload_case **cases, size_t *n, struct errbuf *eb)
{
    struct described_case *st = calloc(1, sizeof *st);
    if (!st)
        return err_sys(eb, "prepare", dw->desc.path, ENOMEM);
    struct option_strings bufs;
    struct wl_vars vars;
    described_vars(dw, opts, &bufs, &vars);
    if (dw->desc.uses_tmp) {
        if (asprintf(&st->tmpdir, "%s/sbxbench-%s-XXXXXX", scratch_base(), dw->desc.name) < 0) {
            st->tmpdir = NULL;
            free(st);
            return err_sys(eb, "prepare", dw->desc.path, ENOMEM);
        }
        if (!mkdtemp(st->tmpdir)) {
            err_sys(eb, "workload: making a scratch directory", st->tmpdir, errno);
            free(st->tmpdir);
            free(st);
            return -1;
        }
        wl_vars_set(&vars, "tmp", st->tmpdir);
    }
    bool host_missing;
    if (wl_instantiate(&dw->desc, index, &vars, &st->inst, &host_missing, eb) < 0) {
        case_state_free(st);
        return -1;
    }
    struct workload_case *c = workload_case_add(cases, n);
    if (!c) {
        case_state_free(st);
        return err_sys(eb, "prepare", dw->desc.path, ENOMEM);
    }
    c->priv = st;
    int rc = st->inst.label[0] ? asprintf(&c->label, "%s/%s", dw->desc.name, st->inst.label)
                               : asprintf(&c->label, "%s", dw->desc.name);
    if (rc < 0 || build_action(st, opts, &c->action) < 0) {
        if (rc < 0)
            c->label = NULL;
        workload_case_free(&dw->w, c);
        (*n)--;
        return err_sys(eb, "prepare", dw->desc.path, ENOMEM);
    }
    set_params(dw, &st->inst, c);
    c->volume_bytes = st->inst.volume;
    if (st->inst.expect_stdout) {
        c->capture_stdout = true;
        c->check = check_stdout;
    }
    return 0;
}

int described_prepare(const struct described *dw, const struct workload_options *opts,
                      struct workload_case **cases, size_t *n, struct errbuf *eb)
{
    size_t before = *n;
    for (size_t i = 0; i < dw->desc.n_cases; i++) {
        if (prepare_case(dw, opts, i, cases, n, eb) < 0) {
            while (*n > before)
                workload_case_free(&dw->w, &(*cases)[--*n]);
            return -1;
        }
    }
    return 0;
}
