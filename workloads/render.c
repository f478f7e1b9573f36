/* render: one sample is one sbx-render process drawing an image (the built-in scene, or
 * --render-vm) to stdout. The image's SHA-256 is the sample's digest, so a mechanism that changes
 * what the renderer computes shows up as a run whose digest differs. */
#include "workloads/workload.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workloads/sha256.h"

struct render_case {
    char *exe;
    char *vm; /* absolute, or NULL for the built-in scene */
    int size;
    const char *ro_paths[2];
};

/* sbx-render next to the running binary (the harness passes its own directory). */
static char *renderer_path(const struct workload_options *opts)
{
    char self[PATH_MAX], *path = NULL;
    const char *dir = opts->exe_dir;
    if (!dir) {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0)
            return NULL;
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        dir = self;
    }
    if (asprintf(&path, "%s/sbx-render", dir) < 0)
        return NULL;
    return path;
}

static bool render_available(const struct workload_options *opts, char *why, size_t whylen)
{
    char *exe = renderer_path(opts);
    bool ok = exe && access(exe, X_OK) == 0;
    if (!ok)
        snprintf(why, whylen, "%s: %s", exe ? exe : "sbx-render", strerror(exe ? errno : ENOMEM));
    else if (opts->render_vm && access(opts->render_vm, R_OK) < 0) {
        snprintf(why, whylen, "--render-vm: %s: %s", opts->render_vm, strerror(errno));
        ok = false;
    }
    free(exe);
    return ok;
}

static void render_case_free(struct render_case *rc)
{
    if (!rc)
        return;
    free(rc->exe);
    free(rc->vm);
    free(rc);
}

/* Checks that stdout is the P5 image of the case's size and digests it. */
static int render_check(const struct workload_case *c, int fd, char *digest, size_t digestlen,
                        char *why, size_t whylen)
{
    const struct render_case *rc = c->priv;
    char header[64];
    int header_len = snprintf(header, sizeof header, "P5\n%d %d\n255\n", rc->size, rc->size);
    unsigned long long expected = (unsigned long long)header_len * 1ull +
                                  (unsigned long long)rc->size * (unsigned long long)rc->size;
    struct sha256 s;
    sha256_init(&s);
    unsigned long long total = 0;
    bool header_ok = true;
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(why, whylen, "reading the image: %s", strerror(errno));
            return -1;
        }
        if (n == 0)
            break;
        for (ssize_t i = 0; i < n && total + (unsigned long long)i < (unsigned long long)header_len;
             i++)
            header_ok &= buf[i] == header[total + (unsigned long long)i];
        sha256_update(&s, buf, (size_t)n);
        total += (unsigned long long)n;
    }
    if (!header_ok || total != expected) {
        snprintf(why, whylen, "not a %dx%d PGM (%llu bytes, expected %llu)", rc->size, rc->size,
                 total, expected);
        return -1;
    }
    uint8_t d[SHA256_BYTES];
    char hex[SHA256_HEX_BYTES];
    sha256_final(&s, d);
    sha256_hex(d, hex);
    snprintf(digest, digestlen, "%s", hex);
    return 0;
}

static int render_prepare(const struct workload_options *opts, struct workload_case **cases,
                          size_t *n, struct errbuf *eb)
{
    struct render_case *rc = calloc(1, sizeof *rc);
    if (!rc || !(rc->exe = renderer_path(opts)))
        goto oom;
    rc->size = opts->render_size;
    if (opts->render_vm && !(rc->vm = realpath(opts->render_vm, NULL))) {
        int saved = errno;
        render_case_free(rc);
        return err_sys(eb, "--render-vm", opts->render_vm, saved);
    }
    struct workload_case *c = workload_case_add(cases, n);
    if (!c)
        goto oom;
    c->priv = rc;
    if (asprintf(&c->label, "render/%d", rc->size) < 0) {
        c->label = NULL;
        return err_sys(eb, "prepare", "render", ENOMEM);
    }
    char **argv = strv_new();
    c->action.argv = argv;
    if (!argv || strv_push(&c->action.argv, rc->exe) < 0 ||
        strv_pushf(&c->action.argv, "--size=%d", rc->size) < 0 ||
        (opts->render_threads > 0 &&
         strv_pushf(&c->action.argv, "--threads=%d", opts->render_threads) < 0) ||
        (rc->vm && strv_pushf(&c->action.argv, "--vm=%s", rc->vm) < 0))
        return err_sys(eb, "prepare", "render", ENOMEM);
    c->action.name = "sbx-render";
    /* A sandbox must see the renderer and its program; the image goes to stdout. */
    rc->ro_paths[0] = rc->exe;
    rc->ro_paths[1] = rc->vm;
    c->action.ro_paths = rc->ro_paths;
    c->action.n_ro_paths = rc->vm ? 2 : 1;
    c->params[c->n_params++] = (struct param){"size", rc->size, NULL};
    c->params[c->n_params++] = (struct param){"threads", opts->render_threads, NULL};
    c->params[c->n_params++] = (struct param){"vm", 0, rc->vm ? rc->vm : "built-in"};
    c->capture_stdout = true;
    c->check = render_check;
    return 0;
oom:
    render_case_free(rc);
    return err_sys(eb, "prepare", "render", ENOMEM);
}

static void render_cleanup(struct workload_case *c)
{
    render_case_free(c->priv);
    c->priv = NULL;
}

const struct workload workload_render = {
    .name = "render",
    .summary = "sbx-render: JIT-renders a Prospero VM image (compute-bound)",
    .available = render_available,
    .prepare = render_prepare,
    .cleanup = render_cleanup,
};
