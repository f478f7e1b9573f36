/* Parsing a description: lines, directives, params. Instantiation is in wl_instance.c. */
#include "workloads/wl_desc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runners/action.h"
#include "workloads/wl_lex.h"

/* Names a param may not take: they are the built-in variables. */
static const char *const reserved[] = {"dir",        "exe_dir",     "tmp",       "pipe_sizes",
                                       "pipe_bytes", "render_size", "render_vm", "render_threads",
                                       "inputs",     NULL};

void wl_vars_set(struct wl_vars *vars, const char *name, const char *value)
{
    for (size_t i = 0; i < vars->n; i++) {
        if (strcmp(vars->v[i].name, name) == 0) {
            vars->v[i].value = value;
            return;
        }
    }
    if (vars->n < sizeof vars->v / sizeof vars->v[0])
        vars->v[vars->n++] = (struct wl_var){name, value};
}

const char *wl_vars_get(const struct wl_vars *vars, const char *name)
{
    for (size_t i = 0; i < vars->n; i++)
        if (strcmp(vars->v[i].name, name) == 0)
            return vars->v[i].value;
    return NULL;
}

static const char *lookup(void *ctx, const char *name)
{
    return wl_vars_get(ctx, name);
}

struct parser {
    const char *path;
    unsigned lineno;
    const struct wl_vars *vars;
    struct wl_desc *d;
    struct errbuf *eb;
    char origin[64]; /* " (from --pipe-sizes)": where a param's values came from, for messages */
};

static int perr(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(struct parser *ps, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return err_msg(ps->eb, "%s:%u: %s%s", ps->path, ps->lineno, what, ps->origin);
}

/* The options a param line's values come from, so that a bad --pipe-sizes is reported as such. */
static void note_origin(struct parser *ps, const char *rest)
{
    static const char *const options[] = {"pipe_sizes",     "pipe_bytes", "render_size",
                                          "render_threads", "inputs",     "render_vm"};
    ps->origin[0] = '\0';
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        char ref[32];
        snprintf(ref, sizeof ref, "${%s}", options[i]);
        if (!strstr(rest, ref))
            continue;
        size_t n = strlen(ps->origin);
        snprintf(ps->origin + n, sizeof ps->origin - n, "%s--%s", n ? ", " : " (from ", options[i]);
        for (char *c = ps->origin + n; *c; c++)
            if (*c == '_')
                *c = '-';
    }
    if (ps->origin[0])
        strncat(ps->origin, ")", sizeof ps->origin - strlen(ps->origin) - 1);
}

static int oom(struct parser *ps)
{
    return perr(ps, "%s", strerror(ENOMEM));
}

static bool is_name(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* A whole number: optional '-', digits, nothing else, within long long. */
static bool whole_number(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) || errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

/* "MIN..MAX" */
static int parse_range(struct parser *ps, const char *s, long long *lo, long long *hi)
{
    const char *dots = strstr(s, "..");
    char left[32];
    if (!dots || (size_t)(dots - s) >= sizeof left)
        return perr(ps, "param: expected a range MIN..MAX after 'in', got '%s'", s);
    memcpy(left, s, (size_t)(dots - s));
    left[dots - s] = '\0';
    if (!whole_number(left, lo) || !whole_number(dots + 2, hi) || *lo > *hi)
        return perr(ps, "param: expected a range MIN..MAX of whole numbers, MIN <= MAX, got '%s'",
                    s);
    return 0;
}

/* Splits the list words at commas into p->values. */
static int split_values(struct parser *ps, struct wl_param *p, const struct wl_tokens *t,
                        size_t first, size_t end)
{
    p->values = strv_new();
    if (!p->values)
        return oom(ps);
    for (size_t i = first; i < end; i++) {
        const char *s = t->v[i].text;
        for (;;) {
            size_t n = strcspn(s, ",");
            if (n == 0)
                return perr(ps, "param %s: empty value in list '%s'", p->name, t->v[i].text);
            if (strv_pushf(&p->values, "%.*s", (int)n, s) < 0)
                return oom(ps);
            if (!s[n])
                break;
            s += n + 1;
        }
    }
    p->n_values = strv_len(p->values);
    for (size_t i = 0; i < p->n_values; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(p->values[i], p->values[j]) == 0)
                return perr(ps, "param %s: value '%s' is listed twice", p->name, p->values[i]);
    return 0;
}

static int check_values(struct parser *ps, struct wl_param *p, bool ranged, long long lo,
                        long long hi)
{
    p->numeric = true;
    for (size_t i = 0; i < p->n_values; i++) {
        long long v;
        bool num = whole_number(p->values[i], &v);
        p->numeric &= num;
        if (ranged && !num)
            return perr(ps, "param %s: '%s' is not a whole number", p->name, p->values[i]);
        if (ranged && (v < lo || v > hi))
            return perr(ps, "param %s: %s is outside %lld..%lld", p->name, p->values[i], lo, hi);
    }
    return 0;
}

/* param NAME LIST... [in MIN..MAX] */
static int parse_param(struct parser *ps, const char *rest)
{
    struct wl_desc *d = ps->d;
    if (d->n_params == WL_MAX_PARAMS)
        return perr(ps, "too many params: at most %d", WL_MAX_PARAMS);
    struct wl_tokens t;
    char why[512];
    if (wl_lex(rest, lookup, (void *)ps->vars, &t, why, sizeof why) < 0)
        return perr(ps, "param: %s%s", why,
                    strstr(why, "unknown variable") ? " (a param may use the options, dir and "
                                                      "exe_dir, not other params or tmp)"
                                                    : "");
    struct wl_param *p = &d->params[d->n_params++];
    p->lineno = ps->lineno;
    int rc = -1;
    for (size_t i = 0; i < t.n; i++)
        if (t.v[i].kind != WL_WORD) {
            perr(ps, "param: '|' and redirections belong on the run line only");
            goto out;
        }
    if (t.n < 2) {
        perr(ps, "param: expected 'param NAME VALUE[,VALUE...] [in MIN..MAX]'");
        goto out;
    }
    if (!is_name(t.v[0].text)) {
        perr(ps, "param: '%s' is not a name (lower-case letters, digits, '_')", t.v[0].text);
        goto out;
    }
    for (size_t i = 0; reserved[i]; i++)
        if (strcmp(t.v[0].text, reserved[i]) == 0) {
            perr(ps, "param: '%s' is a built-in variable's name", t.v[0].text);
            goto out;
        }
    for (size_t i = 0; i + 1 < d->n_params; i++)
        if (strcmp(d->params[i].name, t.v[0].text) == 0) {
            perr(ps, "param %s: already defined on line %u", t.v[0].text, d->params[i].lineno);
            goto out;
        }
    if (!(p->name = strdup(t.v[0].text))) {
        oom(ps);
        goto out;
    }
    size_t end = t.n;
    long long lo = 0, hi = 0;
    bool ranged = t.n >= 4 && strcmp(t.v[t.n - 2].text, "in") == 0;
    for (size_t i = 1; i < t.n; i++)
        if (strcmp(t.v[i].text, "in") == 0 && !(ranged && i == t.n - 2)) {
            perr(ps, "param %s: 'in MIN..MAX' comes last, after at least one value", p->name);
            goto out;
        }
    if (ranged) {
        end = t.n - 2;
        if (parse_range(ps, t.v[t.n - 1].text, &lo, &hi) < 0)
            goto out;
    }
    note_origin(ps, rest);
    if (split_values(ps, p, &t, 1, end) < 0 || check_values(ps, p, ranged, lo, hi) < 0)
        goto out;
    rc = 0;
out:
    ps->origin[0] = '\0';
    wl_tokens_free(&t);
    return rc;
}

static int set_once(struct parser *ps, const char *keyword, struct wl_line *slot, const char *rest)
{
    if (slot->lineno)
        return perr(ps, "'%s' given twice (first on line %u)", keyword, slot->lineno);
    while (*rest == ' ' || *rest == '\t')
        rest++;
    if (!*rest)
        return perr(ps, "'%s' needs a value", keyword);
    if (!(slot->text = strdup(rest)))
        return oom(ps);
    slot->lineno = ps->lineno;
    return 0;
}

static int append_line(struct parser *ps, const char *keyword, struct wl_lines *l, const char *rest)
{
    struct wl_line *grown = realloc(l->v, (l->n + 1) * sizeof *grown);
    if (!grown)
        return oom(ps);
    l->v = grown;
    grown[l->n] = (struct wl_line){0, NULL};
    if (set_once(ps, keyword, &grown[l->n], rest) < 0)
        return -1;
    l->n++;
    return 0;
}

static int parse_summary(struct parser *ps, const char *rest)
{
    struct wl_desc *d = ps->d;
    if (d->summary)
        return perr(ps, "'summary' given twice");
    while (*rest == ' ' || *rest == '\t')
        rest++;
    size_t n = strlen(rest);
    while (n && (rest[n - 1] == ' ' || rest[n - 1] == '\t'))
        n--;
    if (!n)
        return perr(ps, "'summary' needs a value");
    return (d->summary = strndup(rest, n)) ? 0 : oom(ps);
}

static int directive(struct parser *ps, const char *keyword, const char *rest)
{
    struct wl_desc *d = ps->d;
    if (strcmp(keyword, "summary") == 0)
        return parse_summary(ps, rest);
    if (strcmp(keyword, "param") == 0)
        return parse_param(ps, rest);
    struct {
        const char *keyword;
        struct wl_line *once;
        struct wl_lines *many;
    } table[] = {
        {"run", &d->run, NULL},
        {"label", &d->label, NULL},
        {"cwd", &d->cwd, NULL},
        {"expect-stdout", &d->expect_stdout, NULL},
        {"throughput", &d->throughput, NULL},
        {"ro", NULL, &d->ro},
        {"rw", NULL, &d->rw},
        {"env", NULL, &d->env},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(keyword, table[i].keyword) != 0)
            continue;
        return table[i].once ? set_once(ps, keyword, table[i].once, rest)
                             : append_line(ps, keyword, table[i].many, rest);
    }
    return perr(ps,
                "unknown directive '%s' (expected summary, param, label, run, ro, rw, env, cwd, "
                "expect-stdout or throughput)",
                keyword);
}

/* One logical line: the directive keyword, then its text. */
static int parse_line(struct parser *ps, char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (!*line || *line == '#')
        return 0;
    size_t n = strcspn(line, " \t");
    char keyword[32];
    if (n >= sizeof keyword)
        return perr(ps, "unknown directive '%.*s...'", 16, line);
    memcpy(keyword, line, n);
    keyword[n] = '\0';
    return directive(ps, keyword, line + n);
}

/* The name a description's file gives its workload: the base name without ".wl". */
static int name_from_path(struct parser *ps, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n >= 3 && strcmp(base + n - 3, ".wl") == 0)
        n -= 3;
    if (n == 0)
        return err_msg(ps->eb, "%s: a workload file needs a name before '.wl'", path);
    for (size_t i = 0; i < n; i++) {
        char c = base[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '.';
        if (!ok)
            return err_msg(ps->eb,
                           "%s: the file name makes the workload's name; use letters, digits, "
                           "'_', '-' and '.' only",
                           path);
    }
    return (ps->d->name = strndup(base, n)) ? 0 : err_sys(ps->eb, "load", path, ENOMEM);
}

static bool mentions_tmp(const struct wl_desc *d)
{
    const struct wl_line *once[] = {&d->label, &d->run, &d->cwd, &d->expect_stdout, &d->throughput};
    for (size_t i = 0; i < sizeof once / sizeof once[0]; i++)
        if (once[i]->text && strstr(once[i]->text, "${tmp}"))
            return true;
    const struct wl_lines *many[] = {&d->ro, &d->rw, &d->env};
    for (size_t i = 0; i < sizeof many / sizeof many[0]; i++)
        for (size_t j = 0; j < many[i]->n; j++)
            if (strstr(many[i]->v[j].text, "${tmp}"))
                return true;
    return false;
}

static int finish(struct parser *ps)
{
    struct wl_desc *d = ps->d;
    if (!d->run.lineno)
        return err_msg(ps->eb, "%s: no 'run' line: a description needs the command to run",
                       ps->path);
    d->n_cases = 1;
    for (size_t i = 0; i < d->n_params; i++) {
        d->n_cases *= d->params[i].n_values;
        if (d->n_cases > WL_MAX_CASES) {
            ps->lineno = d->params[i].lineno;
            return perr(ps, "the params make more than %d cases", WL_MAX_CASES);
        }
    }
    d->uses_tmp = mentions_tmp(d);
    return 0;
}

/* The next logical line from *p into *buf: physical lines joined where one ends with a backslash,
 * as in a shell; a final carriage return (CRLF files) is dropped. Returns the physical lines used.
 */
static unsigned next_line(const char **p, char **buf, size_t *cap)
{
    size_t len = 0;
    unsigned used = 0;
    for (;;) {
        const char *nl = strchr(*p, '\n');
        size_t n = nl ? (size_t)(nl - *p) : strlen(*p);
        const char *start = *p;
        *p += n + (nl ? 1 : 0);
        used++;
        if (n && start[n - 1] == '\r')
            n--;
        bool continued = n && start[n - 1] == '\\' && nl;
        if (continued)
            n--;
        if (len + n + 1 > *cap) {
            size_t grown_cap = 2 * (len + n + 1);
            char *grown = realloc(*buf, grown_cap);
            if (!grown)
                return 0;
            *buf = grown;
            *cap = grown_cap;
        }
        memcpy(*buf + len, start, n);
        len += n;
        (*buf)[len] = '\0';
        if (!continued)
            return used;
    }
}

static int parse_text(struct parser *ps, const char *text)
{
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 1;
    int rc = 0;
    for (const char *p = text; *p && rc == 0;) {
        unsigned used = next_line(&p, &line, &cap);
        if (!used) {
            rc = err_sys(ps->eb, "load", ps->path, ENOMEM);
            break;
        }
        ps->lineno = lineno;
        lineno += used;
        rc = parse_line(ps, line);
    }
    free(line);
    return rc < 0 ? -1 : finish(ps);
}

int wl_desc_parse(const char *path, const char *text, const struct wl_vars *vars,
                  struct wl_desc *out, struct errbuf *eb)
{
    memset(out, 0, sizeof *out);
    struct parser ps = {path, 0, vars, out, eb};
    if (!(out->path = strdup(path))) {
        err_sys(eb, "load", path, ENOMEM);
    } else if (name_from_path(&ps, path) == 0 && parse_text(&ps, text) == 0) {
        return 0;
    }
    wl_desc_free(out);
    return -1;
}

static void free_lines(struct wl_lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].text);
    free(l->v);
}

void wl_desc_free(struct wl_desc *d)
{
    free(d->path);
    free(d->name);
    free(d->summary);
    for (size_t i = 0; i < d->n_params; i++) {
        free(d->params[i].name);
        strv_free(d->params[i].values);
    }
    free(d->label.text);
    free(d->run.text);
    free(d->cwd.text);
    free(d->expect_stdout.text);
    free(d->throughput.text);
    free_lines(&d->ro);
    free_lines(&d->rw);
    free_lines(&d->env);
    memset(d, 0, sizeof *d);
}
