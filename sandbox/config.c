/* The sandbox's description: setters that check what they are given, the options of `sbxbench exec`
 * that fill it, and the same options written back out (for results that show what ran). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/internal.h"

static const char *const layer_names[] = {
    [SBX_NAMESPACES] = "inproc-ns",
    [SBX_FILESYSTEM] = "inproc-fs",
    [SBX_FULL] = "inproc",
};

int sbx_layer_from_name(const char *name)
{
    for (int l = SBX_NAMESPACES; l <= SBX_FULL; l++)
        if (strcmp(name, layer_names[l]) == 0)
            return l;
    return -1;
}

const char *sbx_layer_name(enum sbx_layer layer)
{
    return layer <= SBX_FULL ? layer_names[layer] : "?";
}

void sbx_config_init(struct sbx_config *c)
{
    memset(c, 0, sizeof *c);
    c->layer = SBX_FULL;
}

void sbx_config_free(struct sbx_config *c)
{
    for (size_t i = 0; i < c->n_binds; i++) {
        free(c->binds[i].src);
        free(c->binds[i].dst);
    }
    free(c->binds);
    vec_free(c->tmpfs);
    vec_free(c->setenv);
    vec_free(c->cap_add);
    vec_free(c->argv);
    free(c->chdir);
    free(c->hostname);
    free(c->seccomp);
    free(c->inputs.root);
    vec_free(c->inputs.files);
    free(c->inputs.lower);
    free(c->inputs.from);
    memset(c, 0, sizeof *c);
}

/* An absolute path with no "." or ".." components, single slashes and no trailing slash; NULL with
 * e filled otherwise. "/" itself is refused: nothing may be mounted over the sandbox's root. */
static char *sandbox_path(const char *what, const char *path, struct sbx_error *e)
{
    if (path[0] != '/') {
        sbx_errf(e, "%s: %s: must be an absolute path", what, path);
        return NULL;
    }
    char *out = malloc(strlen(path) + 1), *o = out;
    if (!out) {
        sbx_err(e, what, path, ENOMEM);
        return NULL;
    }
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 0)
            break;
        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
            sbx_errf(e, "%s: %s: '.' and '..' are not allowed", what, path);
            free(out);
            return NULL;
        }
        *o++ = '/';
        memcpy(o, p, n);
        o += n;
        p += n;
    }
    *o = '\0';
    if (o == out) {
        sbx_errf(e, "%s: %s: cannot mount over the sandbox's root", what, path);
        free(out);
        return NULL;
    }
    return out;
}

int sbx_config_add_bind(struct sbx_config *c, const char *src, const char *dst, bool rw,
                        struct sbx_error *e)
{
    const char *what = rw ? "--bind" : "--ro-bind";
    if (!src[0])
        return sbx_errf(e, "%s: the source is empty", what);
    if (!dst && src[0] != '/')
        return sbx_errf(e, "%s: %s: a relative source needs a destination (SRC:DST)", what, src);
    char *src_copy = strdup(src);
    char *dst_norm = src_copy ? sandbox_path(what, dst ? dst : src, e) : NULL;
    struct sbx_bind *grown = dst_norm ? realloc(c->binds, (c->n_binds + 1) * sizeof *grown) : NULL;
    if (!grown) {
        if (!src_copy || dst_norm)
            sbx_err(e, what, src, ENOMEM);
        free(src_copy);
        free(dst_norm);
        return -1;
    }
    c->binds = grown;
    c->binds[c->n_binds++] = (struct sbx_bind){src_copy, dst_norm, rw};
    return 0;
}

/* SRC[:DST]: the destination follows the last colon that starts an absolute path, so that a source
 * with a colon in it can still be named (give it as SRC:DST). */
int sbx_config_bind(struct sbx_config *c, const char *spec, bool rw, struct sbx_error *e)
{
    const char *colon = NULL;
    for (const char *p = strchr(spec, ':'); p; p = strchr(p + 1, ':'))
        if (p[1] == '/')
            colon = p;
    if (!colon)
        return sbx_config_add_bind(c, spec, NULL, rw, e);
    char *src = strndup(spec, (size_t)(colon - spec));
    if (!src)
        return sbx_err(e, rw ? "--bind" : "--ro-bind", spec, ENOMEM);
    int rc = sbx_config_add_bind(c, src, colon + 1, rw, e);
    free(src);
    return rc;
}

int sbx_config_tmpfs(struct sbx_config *c, const char *dst, struct sbx_error *e)
{
    char *path = sandbox_path("--tmpfs", dst, e);
    if (!path)
        return -1;
    int rc = vec_push(&c->tmpfs, path);
    free(path);
    return rc < 0 ? sbx_err(e, "--tmpfs", dst, ENOMEM) : 0;
}

int sbx_config_setenv(struct sbx_config *c, const char *assignment, struct sbx_error *e)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return sbx_errf(e, "--setenv: '%s': expected KEY=VALUE", assignment);
    return vec_push(&c->setenv, assignment) < 0 ? sbx_err(e, "--setenv", assignment, ENOMEM) : 0;
}

int sbx_config_cap_add(struct sbx_config *c, const char *name, struct sbx_error *e)
{
    char lower[64];
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof lower)
        return sbx_errf(e, "--cap-add: '%s': not a capability", name);
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)tolower((unsigned char)name[i]);
    const char *canonical = lower;
    char prefixed[sizeof lower + 4];
    if (strncmp(lower, "cap_", 4) != 0) {
        snprintf(prefixed, sizeof prefixed, "cap_%s", lower);
        canonical = prefixed;
    }
    /* libcap's parser stops at the first byte that cannot be part of a name and accepts what came
     * before (the fuzzer found "net_raw\xff..."): only a name libcap returns unchanged is one. */
    cap_value_t value;
    char *known = cap_from_name(canonical, &value) < 0 ? NULL : cap_to_name(value);
    bool exact = known && strcmp(known, canonical) == 0;
    cap_free(known);
    if (!exact)
        return sbx_errf(e, "--cap-add: '%s': not a capability (see capabilities(7))", name);
    return vec_push(&c->cap_add, canonical) < 0 ? sbx_err(e, "--cap-add", name, ENOMEM) : 0;
}

int sbx_config_string(char **field, const char *value, struct sbx_error *e)
{
    char *copy = strdup(value);
    if (!copy)
        return sbx_err(e, "option", value, ENOMEM);
    free(*field);
    *field = copy;
    return 0;
}

int sbx_config_command(struct sbx_config *c, char *const argv[], struct sbx_error *e)
{
    if (!argv || !argv[0] || !argv[0][0])
        return sbx_errf(e, "no command given");
    char **copy = vec_dup(argv);
    if (!copy)
        return sbx_err(e, "command", argv[0], ENOMEM);
    vec_free(c->argv);
    c->argv = copy;
    return 0;
}

static int set_hostname(struct sbx_config *c, const char *name, struct sbx_error *e)
{
    size_t n = strlen(name);
    if (n == 0 || n > 64)
        return sbx_errf(e, "--hostname: '%s': must be 1 to 64 characters", name);
    return sbx_config_string(&c->hostname, name, e);
}

static int set_chdir(struct sbx_config *c, const char *dir, struct sbx_error *e)
{
    if (dir[0] != '/')
        return sbx_errf(e, "--chdir: %s: must be an absolute path", dir);
    return sbx_config_string(&c->chdir, dir, e);
}

static int set_timeout(struct sbx_config *c, const char *value, struct sbx_error *e)
{
    char *end = NULL;
    errno = 0;
    double t = strtod(value, &end);
    if (errno || end == value || *end || !isfinite(t) || t < 0 || t > 1e7)
        return sbx_errf(e, "--timeout: '%s': expected a number of seconds from 0", value);
    c->timeout = t;
    return 0;
}

static int set_seccomp(struct sbx_config *c, const char *value, struct sbx_error *e)
{
    if (!value[0])
        return sbx_errf(e, "--seccomp: expected none, default or a policy file");
    return sbx_config_string(&c->seccomp, value, e);
}

static int set_mechanism(struct sbx_config *c, const char *value, struct sbx_error *e)
{
    int layer = sbx_layer_from_name(value);
    if (layer < 0)
        return sbx_errf(e, "--mechanism: '%s': expected inproc, inproc-fs or inproc-ns", value);
    c->layer = (enum sbx_layer)layer;
    return 0;
}

static int set_inputs_root(struct sbx_config *c, const char *dir, struct sbx_error *e)
{
    char *path = sandbox_path("--inputs", dir, e);
    if (!path)
        return -1;
    free(c->inputs.root);
    c->inputs.root = path;
    return 0;
}

static int set_staging(struct sbx_config *c, const char *value, struct sbx_error *e)
{
    int how = sbx_staging_from_name(value);
    if (how < 0)
        return sbx_errf(e,
                        "--staging: '%s': expected per-file, bind-each, open-tree, symlinks or "
                        "overlay",
                        value);
    c->inputs.how = (enum sbx_staging)how;
    return 0;
}

static int set_overlay_lower(struct sbx_config *c, const char *dir, struct sbx_error *e)
{
    if (dir[0] != '/')
        return sbx_errf(e, "--overlay-lower: %s: must be an absolute path", dir);
    if (strpbrk(dir, ":,\\"))
        return sbx_errf(e, "--overlay-lower: %s: overlayfs cannot take ':', ',' or '\\' in it",
                        dir);
    return sbx_config_string(&c->inputs.lower, dir, e);
}

struct option_def {
    const char *name;
    bool takes_value;
    int (*apply)(struct sbx_config *c, const char *value, struct sbx_error *e);
};

static int opt_bind(struct sbx_config *c, const char *v, struct sbx_error *e)
{
    return sbx_config_bind(c, v, true, e);
}

static int opt_ro_bind(struct sbx_config *c, const char *v, struct sbx_error *e)
{
    return sbx_config_bind(c, v, false, e);
}

static int opt_clearenv(struct sbx_config *c, const char *v, struct sbx_error *e)
{
    (void)v, (void)e;
    c->clearenv = true;
    return 0;
}

static int opt_share_net(struct sbx_config *c, const char *v, struct sbx_error *e)
{
    (void)v, (void)e;
    c->share_net = true;
    return 0;
}

static const struct option_def options[] = {
    {"bind", true, opt_bind},
    {"ro-bind", true, opt_ro_bind},
    {"tmpfs", true, sbx_config_tmpfs},
    {"chdir", true, set_chdir},
    {"setenv", true, sbx_config_setenv},
    {"clearenv", false, opt_clearenv},
    {"hostname", true, set_hostname},
    {"share-net", false, opt_share_net},
    {"cap-add", true, sbx_config_cap_add},
    {"seccomp", true, set_seccomp},
    {"timeout", true, set_timeout},
    {"mechanism", true, set_mechanism},
    {"inputs", true, set_inputs_root},
    {"input", true, sbx_config_input},
    {"inputs-from", true, sbx_config_inputs_from},
    {"staging", true, set_staging},
    {"overlay-lower", true, set_overlay_lower},
    {NULL, false, NULL},
};

int sbx_parse_option(struct sbx_config *c, int argc, char **argv, int *i, struct sbx_error *e)
{
    const char *arg = argv[*i];
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
        return 0;
    const char *name = arg + 2;
    size_t name_len = strcspn(name, "=");
    for (const struct option_def *o = options; o->name; o++) {
        if (strlen(o->name) != name_len || strncmp(o->name, name, name_len) != 0)
            continue;
        const char *value = NULL;
        if (name[name_len] == '=') {
            if (!o->takes_value)
                return sbx_errf(e, "--%s takes no value", o->name);
            value = name + name_len + 1;
        } else if (o->takes_value) {
            if (*i + 1 >= argc)
                return sbx_errf(e, "--%s needs a value", o->name);
            value = argv[++*i];
        }
        if (o->apply(c, value, e) < 0)
            return -1;
        ++*i;
        return 1;
    }
    return 0;
}

static int push_option(char ***v, const char *name, const char *value)
{
    char *s = NULL;
    if (asprintf(&s, value ? "--%s=%s" : "--%s", name, value) < 0)
        return -1;
    int rc = vec_push(v, s);
    free(s);
    return rc;
}

char **sbx_config_format(const struct sbx_config *c)
{
    char **v = calloc(1, sizeof *v);
    bool ok = v != NULL && push_option(&v, "mechanism", sbx_layer_name(c->layer)) == 0;
    for (size_t i = 0; ok && i < c->n_binds; i++) {
        const struct sbx_bind *b = &c->binds[i];
        char *spec = NULL;
        ok = strcmp(b->src, b->dst) == 0 ? (spec = strdup(b->src)) != NULL
                                         : asprintf(&spec, "%s:%s", b->src, b->dst) >= 0;
        ok = ok && push_option(&v, b->rw ? "bind" : "ro-bind", spec) == 0;
        free(spec);
    }
    for (size_t i = 0; ok && c->tmpfs && c->tmpfs[i]; i++)
        ok = push_option(&v, "tmpfs", c->tmpfs[i]) == 0;
    if (ok && c->chdir)
        ok = push_option(&v, "chdir", c->chdir) == 0;
    if (ok && c->clearenv)
        ok = push_option(&v, "clearenv", NULL) == 0;
    for (size_t i = 0; ok && c->setenv && c->setenv[i]; i++)
        ok = push_option(&v, "setenv", c->setenv[i]) == 0;
    if (ok && c->hostname)
        ok = push_option(&v, "hostname", c->hostname) == 0;
    if (ok && c->share_net)
        ok = push_option(&v, "share-net", NULL) == 0;
    for (size_t i = 0; ok && c->cap_add && c->cap_add[i]; i++)
        ok = push_option(&v, "cap-add", c->cap_add[i]) == 0;
    if (ok && c->seccomp && strcmp(c->seccomp, "default") != 0)
        ok = push_option(&v, "seccomp", c->seccomp) == 0;
    if (ok && c->inputs.root) {
        ok = push_option(&v, "inputs", c->inputs.root) == 0 &&
             push_option(&v, "staging", sbx_staging_name(c->inputs.how)) == 0 &&
             (!c->inputs.lower || push_option(&v, "overlay-lower", c->inputs.lower) == 0);
        if (ok && c->inputs.from)
            ok = push_option(&v, "inputs-from", c->inputs.from) == 0;
        for (size_t i = 0; ok && !c->inputs.from && i < c->inputs.n; i++)
            ok = push_option(&v, "input", c->inputs.files[i]) == 0;
    }
    if (ok && c->timeout > 0) {
        char t[32];
        snprintf(t, sizeof t, "%g", c->timeout);
        ok = push_option(&v, "timeout", t) == 0;
    }
    if (!ok) {
        vec_free(v);
        return NULL;
    }
    return v;
}
