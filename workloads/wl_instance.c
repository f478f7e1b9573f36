/* Instantiating a description: one case's commands, paths and settings, every variable expanded. */
#include "workloads/wl_desc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runners/action.h"
#include "runners/runner.h"
#include "workloads/wl_lex.h"

struct inst {
    const struct wl_desc *d;
    struct wl_vars vars;
    struct wl_instance *out;
    struct errbuf *eb;
    bool *host_missing;
    unsigned lineno;
};

static int verr(struct inst *in, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static int verr(struct inst *in, const char *fmt, va_list ap)
{
    char what[768];
    vsnprintf(what, sizeof what, fmt, ap);
    return err_msg(in->eb, "%s:%u: %s", in->d->path, in->lineno, what);
}

static int ierr(struct inst *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int missing(struct inst *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int ierr(struct inst *in, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(in, fmt, ap);
    va_end(ap);
    return -1;
}

/* What this host lacks, rather than what the description gets wrong. */
static int missing(struct inst *in, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(in, fmt, ap);
    va_end(ap);
    *in->host_missing = true;
    return -1;
}

static const char *lookup(void *ctx, const char *name)
{
    return wl_vars_get(ctx, name);
}

/* Keeps s (a copy) for the life of the instance and returns the kept copy. */
static char *keep(struct inst *in, const char *s)
{
    if (strv_push(&in->out->strings, s) < 0) {
        ierr(in, "%s", strerror(ENOMEM));
        return NULL;
    }
    return in->out->strings[strv_len(in->out->strings) - 1];
}

static int lex(struct inst *in, const struct wl_line *l, struct wl_tokens *t)
{
    char why[512];
    in->lineno = l->lineno;
    if (wl_lex(l->text, lookup, &in->vars, t, why, sizeof why) < 0)
        return ierr(in, "%s", why);
    return 0;
}

/* The words of a directive that takes words only; exactly `want` of them unless want is 0. */
static int lex_words(struct inst *in, const char *keyword, const struct wl_line *l, size_t want,
                     struct wl_tokens *t)
{
    if (lex(in, l, t) < 0)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        if (t->v[i].kind != WL_WORD) {
            wl_tokens_free(t);
            return ierr(in,
                        "%s: '|' and redirections belong on the run line only; quote them to "
                        "mean the characters",
                        keyword);
        }
    }
    if ((want && t->n != want) || t->n == 0) {
        size_t got = t->n;
        wl_tokens_free(t);
        if (want == 1)
            return ierr(in, "%s: expected one word, got %zu (quote a value with blanks)", keyword,
                        got);
        return ierr(in, "%s: expected at least one word", keyword);
    }
    return 0;
}

static bool under_tmp(const struct inst *in, const char *path)
{
    const char *tmp = wl_vars_get(&in->vars, "tmp");
    size_t n = tmp ? strlen(tmp) : 0;
    return n && strncmp(path, tmp, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* An absolute path that, unless it lives in ${tmp} (made per run), exists here. */
static int existing_path(struct inst *in, const char *what, const char *path, bool must_exist)
{
    if (path[0] != '/')
        return ierr(in,
                    "%s: '%s' is not an absolute path (use ${dir}/... for a file next to the "
                    "description, ${tmp}/... for scratch space)",
                    what, path);
    struct stat st;
    if (must_exist && !under_tmp(in, path) && stat(path, &st) < 0)
        return missing(in, "%s: %s: %s", what, path, strerror(errno));
    return 0;
}

/* argv[0]: a bare name looked up in PATH now, or an absolute path. */
static int resolve_program(struct inst *in, char **argv0)
{
    const char *prog = *argv0;
    if (strchr(prog, '/')) {
        if (prog[0] != '/')
            return ierr(in,
                        "run: program '%s' must be a bare name looked up in PATH or an "
                        "absolute path (${dir}/... for one next to the description)",
                        prog);
        if (access(prog, X_OK) < 0)
            return missing(in, "run: program %s: %s", prog, strerror(errno));
        return 0;
    }
    char *found = find_program(prog);
    if (!found)
        return missing(in, "run: program '%s' not found in PATH", prog);
    *argv0 = keep(in, found);
    free(found);
    return *argv0 ? 0 : -1;
}

struct stage_builder {
    char **argv; /* borrowed words */
    size_t argc;
    struct pl_redir *redirs;
    size_t n_redirs;
};

static int stage_add_word(struct inst *in, struct stage_builder *sb, char *word)
{
    char **grown = realloc(sb->argv, (sb->argc + 2) * sizeof *grown);
    if (!grown)
        return ierr(in, "%s", strerror(ENOMEM));
    sb->argv = grown;
    grown[sb->argc++] = word;
    grown[sb->argc] = NULL;
    return 0;
}

static int stage_add_redir(struct inst *in, struct stage_builder *sb, enum pl_redir_kind kind,
                           const char *path)
{
    struct pl_redir *grown = realloc(sb->redirs, (sb->n_redirs + 1) * sizeof *grown);
    if (!grown)
        return ierr(in, "%s", strerror(ENOMEM));
    sb->redirs = grown;
    grown[sb->n_redirs++] = (struct pl_redir){kind, path};
    return 0;
}

/* Moves the finished stage into the pipeline. */
static int stage_close(struct inst *in, struct stage_builder *sb)
{
    struct pl_pipeline *p = &in->out->pipeline;
    if (sb->argc == 0)
        return ierr(in, p->n_stages ? "run: a '|' has no command after it"
                                    : "run: no command (only redirections)");
    if (p->n_stages == 0)
        in->out->typed_program = sb->argv[0];
    if (resolve_program(in, &sb->argv[0]) < 0)
        return -1;
    struct pl_stage *grown = realloc(p->stages, (p->n_stages + 1) * sizeof *grown);
    if (!grown)
        return ierr(in, "%s", strerror(ENOMEM));
    p->stages = grown;
    grown[p->n_stages++] = (struct pl_stage){sb->argv, sb->argc, sb->redirs, sb->n_redirs};
    memset(sb, 0, sizeof *sb);
    return 0;
}

static int redir_target(struct inst *in, enum pl_redir_kind kind, const struct wl_token *t,
                        const char **path)
{
    if (!t || t->kind != WL_WORD)
        return ierr(in, "run: '%s' needs a file name after it", pl_redir_op(kind));
    char what[16];
    snprintf(what, sizeof what, "run: '%s'", pl_redir_op(kind));
    if (existing_path(in, what, t->text, kind == PL_IN) < 0)
        return -1;
    return (*path = keep(in, t->text)) ? 0 : -1;
}

static int build_pipeline(struct inst *in, const struct wl_tokens *t)
{
    struct stage_builder sb = {0};
    int rc = 0;
    for (size_t i = 0; i < t->n && rc == 0; i++) {
        const struct wl_token *tok = &t->v[i];
        if (tok->kind == WL_PIPE) {
            if (sb.argc == 0)
                rc = ierr(in, "run: a '|' has no command before it");
            else
                rc = stage_close(in, &sb);
        } else if (tok->kind == WL_REDIR) {
            const char *path = NULL;
            if (tok->redir != PL_ERR_TO_OUT)
                rc = redir_target(in, tok->redir, i + 1 < t->n ? &t->v[++i] : NULL, &path);
            if (rc == 0)
                rc = stage_add_redir(in, &sb, tok->redir, path);
        } else {
            char *word = keep(in, tok->text);
            rc = word ? stage_add_word(in, &sb, word) : -1;
        }
    }
    if (rc == 0)
        rc = stage_close(in, &sb);
    free(sb.argv);
    free(sb.redirs);
    return rc;
}

static int expand_run(struct inst *in)
{
    struct wl_tokens t;
    if (lex(in, &in->d->run, &t) < 0)
        return -1;
    int rc = build_pipeline(in, &t);
    wl_tokens_free(&t);
    return rc;
}

static int expand_paths(struct inst *in, const char *keyword, const struct wl_lines *lines,
                        char ***out)
{
    if (!(*out = strv_new()))
        return ierr(in, "%s", strerror(ENOMEM));
    for (size_t i = 0; i < lines->n; i++) {
        struct wl_tokens t;
        if (lex_words(in, keyword, &lines->v[i], 0, &t) < 0)
            return -1;
        int rc = 0;
        for (size_t w = 0; w < t.n && rc == 0; w++) {
            rc = existing_path(in, keyword, t.v[w].text, true);
            if (rc == 0 && strv_push(out, t.v[w].text) < 0)
                rc = ierr(in, "%s", strerror(ENOMEM));
        }
        wl_tokens_free(&t);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static bool env_name(const char *s, size_t n)
{
    if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return true;
}

static int expand_env(struct inst *in)
{
    if (!(in->out->env = strv_new()))
        return ierr(in, "%s", strerror(ENOMEM));
    for (size_t i = 0; i < in->d->env.n; i++) {
        struct wl_tokens t;
        if (lex_words(in, "env", &in->d->env.v[i], 0, &t) < 0)
            return -1;
        int rc = 0;
        for (size_t w = 0; w < t.n && rc == 0; w++) {
            const char *s = t.v[w].text, *eq = strchr(s, '=');
            if (!eq || !env_name(s, (size_t)(eq - s)))
                rc = ierr(in,
                          "env: expected NAME=VALUE with a name of letters, digits and '_', "
                          "got '%s'",
                          s);
            else if (strv_push(&in->out->env, s) < 0)
                rc = ierr(in, "%s", strerror(ENOMEM));
        }
        wl_tokens_free(&t);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* A directive with exactly one word; *out gets a copy, or stays NULL when the line is absent. */
static int expand_one(struct inst *in, const char *keyword, const struct wl_line *l, char **out)
{
    if (!l->lineno)
        return 0;
    struct wl_tokens t;
    if (lex_words(in, keyword, l, 1, &t) < 0)
        return -1;
    *out = strdup(t.v[0].text);
    wl_tokens_free(&t);
    return *out ? 0 : ierr(in, "%s", strerror(ENOMEM));
}

static int expand_label(struct inst *in)
{
    const struct wl_desc *d = in->d;
    if (d->label.lineno) {
        if (expand_one(in, "label", &d->label, &in->out->label) < 0)
            return -1;
        if (!in->out->label[0])
            return ierr(in, "label: empty after expansion");
        return 0;
    }
    /* By default a case is named by its params' values: pipe/4096/16777216. */
    size_t len = 1;
    for (size_t i = 0; i < d->n_params; i++)
        len += strlen(in->out->values[i]) + 1;
    if (!(in->out->label = calloc(1, len)))
        return ierr(in, "%s", strerror(ENOMEM));
    for (size_t i = 0; i < d->n_params; i++) {
        if (i)
            strcat(in->out->label, "/");
        strcat(in->out->label, in->out->values[i]);
    }
    return 0;
}

static int expand_settings(struct inst *in)
{
    const struct wl_desc *d = in->d;
    struct wl_instance *out = in->out;
    if (expand_one(in, "cwd", &d->cwd, &out->cwd) < 0 ||
        (out->cwd && existing_path(in, "cwd", out->cwd, true) < 0))
        return -1;
    if (expand_one(in, "expect-stdout", &d->expect_stdout, &out->expect_stdout) < 0)
        return -1;
    if (out->expect_stdout) {
        const struct pl_stage *last = &out->pipeline.stages[out->pipeline.n_stages - 1];
        for (size_t r = 0; r < last->n_redirs; r++)
            if (pl_redir_target_fd(last->redirs[r].kind) == 1)
                return ierr(in,
                            "expect-stdout: the last command's stdout is redirected (run "
                            "line %u), so there is nothing to check",
                            d->run.lineno);
    }
    char *volume = NULL;
    if (expand_one(in, "throughput", &d->throughput, &volume) < 0)
        return -1;
    if (volume) {
        char *end;
        errno = 0;
        long long v = strtoll(volume, &end, 10);
        bool ok = volume[0] >= '0' && volume[0] <= '9' && !errno && !*end && v >= 1;
        free(volume);
        if (!ok)
            return ierr(in, "throughput: expected the bytes a run moves, a whole number from 1");
        out->volume = v;
    }
    return 0;
}

int wl_instantiate(const struct wl_desc *d, size_t index, const struct wl_vars *vars,
                   struct wl_instance *out, bool *host_missing, struct errbuf *eb)
{
    memset(out, 0, sizeof *out);
    *host_missing = false;
    struct inst in = {d, *vars, out, eb, host_missing, 0};
    for (size_t i = d->n_params; i-- > 0;) {
        const struct wl_param *p = &d->params[i];
        out->values[i] = p->values[index % p->n_values];
        index /= p->n_values;
        wl_vars_set(&in.vars, p->name, out->values[i]);
    }
    if (d->uses_tmp && !wl_vars_get(&in.vars, "tmp"))
        wl_vars_set(&in.vars, "tmp", "/nonexistent/sbxbench-tmp");
    if (!(out->strings = strv_new())) {
        err_sys(eb, "load", d->path, ENOMEM);
    } else if (expand_label(&in) == 0 && expand_run(&in) == 0 &&
               expand_paths(&in, "ro", &d->ro, &out->ro) == 0 &&
               expand_paths(&in, "rw", &d->rw, &out->rw) == 0 && expand_env(&in) == 0 &&
               expand_settings(&in) == 0) {
        return 0;
    }
    wl_instance_free(out);
    return -1;
}

void wl_instance_free(struct wl_instance *inst)
{
    free(inst->label);
    pl_free(&inst->pipeline);
    strv_free(inst->ro);
    strv_free(inst->rw);
    strv_free(inst->env);
    free(inst->cwd);
    free(inst->expect_stdout);
    strv_free(inst->strings);
    memset(inst, 0, sizeof *inst);
}
