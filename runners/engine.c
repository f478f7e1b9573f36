#include "runners/engine.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runners/argvb.h"
#include "runners/binds.h"
#include "runners/command.h"
#include "runners/container_name.h"
#include "runners/rootfs.h"

extern char **environ;

/* How long a stop request (kill, rm) may take before the daemon counts as unresponsive. */
#define STOP_TIMEOUT 5.0

struct engine_job {
    struct engine *engine;
    size_t name_index; /* job->argv[name_index] is the container's name, renewed per sample */
};

int engine_command(const struct engine *e, char *const args[], char *line, size_t linelen,
                   double timeout)
{
    struct argvb b = {0};
    argvb_add(&b, e->program);
    argvb_extend(&b, e->global_flags);
    argvb_extend(&b, args);
    char **argv = argvb_finish(&b);
    if (!argv) {
        snprintf(line, linelen, "out of memory");
        return -1;
    }
    int rc = run_capture(argv, line, linelen, timeout);
    strv_free(argv);
    return rc;
}

int engine_ensure_image(const struct engine *e, const char *cache_dir, double timeout,
                        struct errbuf *eb)
{
    char line[512];
    char *inspect[] = {"image", "inspect", "--format", "{{.Id}}", (char *)rootfs_image_tag(), NULL};
    if (engine_command(e, inspect, line, sizeof line, timeout) == 0)
        return 0;
    char *tar = NULL;
    if (rootfs_tarball(cache_dir, &tar, eb) < 0)
        return -1;
    struct argvb b = {0};
    argvb_add(&b, "import");
    argvb_extend(&b, e->import_flags);
    argvb_add(&b, tar);
    argvb_add(&b, rootfs_image_tag());
    char **import = argvb_finish(&b);
    int rc = import ? engine_command(e, import, line, sizeof line, timeout) : -1;
    strv_free(import);
    free(tar);
    if (rc < 0)
        return err_msg(eb, "%s import: did not finish in time", e->name);
    if (rc > 0)
        return err_msg(eb, "%s import: %s", e->name, line[0] ? line : "failed");
    return 0;
}

/* --mount takes comma-separated fields; a path with a comma would need quoting that not every
 * client parses alike, so it is refused with a clear message instead. */
static int add_mounts(struct argvb *b, const struct action *a, struct errbuf *eb)
{
    struct bind_list binds;
    if (binds_for_action(a, &binds, eb) < 0)
        return -1;
    for (size_t i = 0; i < binds.n; i++) {
        const struct bind *m = &binds.v[i];
        if (strchr(m->source, ',') || strchr(m->target, ',')) {
            err_msg(eb, "container mounts: a path with a comma cannot be bound: %s", m->target);
            binds_free(&binds);
            return -1;
        }
        argvb_add(b, "--mount");
        argvb_addf(b, "type=bind,source=%s,target=%s%s", m->source, m->target,
                   m->writable ? "" : ",readonly");
    }
    binds_free(&binds);
    return 0;
}

static bool has_path(char *const *envp)
{
    for (size_t i = 0; envp && envp[i]; i++)
        if (strncmp(envp[i], "PATH=", 5) == 0)
            return true;
    return false;
}

/* The container gets the action's environment, not the harness's: only PATH unless the action
 * sets its own. */
static void add_env(struct argvb *b, const struct action *a)
{
    if (!has_path(a->envp)) {
        argvb_add(b, "--env");
        argvb_add(b, ROOTFS_DEFAULT_PATH);
    }
    for (size_t i = 0; a->envp && a->envp[i]; i++) {
        argvb_add(b, "--env");
        argvb_add(b, a->envp[i]);
    }
}

int engine_prepare(struct runner_job *job, struct engine *e, struct errbuf *eb)
{
    const struct action *a = job->action;
    struct engine_job *ej = calloc(1, sizeof *ej);
    if (!ej)
        return err_sys(eb, "prepare", e->name, ENOMEM);
    struct argvb b = {0};
    argvb_add(&b, e->program);
    argvb_extend(&b, e->global_flags);
    argvb_add(&b, "run");
    argvb_add(&b, "--rm");
    argvb_add(&b, "--network=none");
    argvb_add(&b, "--pull=never");
    argvb_add(&b, "--name");
    ej->name_index = strv_len(b.v);
    char *name = container_name_new();
    argvb_add(&b, name ? name : "");
    b.failed |= !name;
    free(name);
    argvb_extend(&b, e->run_flags);
    if (e->set_user && getuid() != 0)
        argvb_addf(&b, "--user=%u:%u", (unsigned)getuid(), (unsigned)getgid());
    if (a->cwd)
        argvb_addf(&b, "--workdir=%s", a->cwd);
    if (add_mounts(&b, a, eb) < 0) {
        strv_free(argvb_finish(&b));
        free(ej);
        return -1;
    }
    add_env(&b, a);
    argvb_add(&b, rootfs_image_tag());
    argvb_extend(&b, a->argv);
    job->argv = argvb_finish(&b);
    /* The client runs with the harness's environment (DOCKER_HOST, XDG_RUNTIME_DIR...). */
    job->envp = job->argv ? strv_dup(environ) : NULL;
    if (!job->argv || !job->envp) {
        free(ej);
        return err_sys(eb, "prepare", e->name, ENOMEM);
    }
    job->path = job->argv[0];
    ej->engine = e;
    job->priv = ej;
    return 0;
}

pid_t engine_spawn(struct runner_job *job, const struct stdio_fds *fds)
{
    struct engine_job *ej = job->priv;
    if (ej->engine->unresponsive) {
        errno = ETIMEDOUT;
        return -1;
    }
    container_name_next(job->argv[ej->name_index]);
    return spawn_command(job, fds);
}

static void stop_container(struct engine *e, const char *name)
{
    char line[256];
    char *kill_args[] = {"kill", (char *)name, NULL};
    char *rm_args[] = {"rm", "--force", (char *)name, NULL};
    if (engine_command(e, kill_args, line, sizeof line, STOP_TIMEOUT) < 0)
        e->unresponsive = true;
    else if (engine_command(e, rm_args, line, sizeof line, STOP_TIMEOUT) < 0)
        e->unresponsive = true;
}

void engine_kill(struct runner_job *job, pid_t pid)
{
    struct engine_job *ej = job->priv;
    /* The container outlives its client, so the daemon is asked first; then the client goes. */
    if (!ej->engine->unresponsive)
        stop_container(ej->engine, job->argv[ej->name_index]);
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

void engine_cleanup(struct runner_job *job)
{
    free(job->priv);
    job->priv = NULL;
}

int engine_probe(struct engine *e, const struct runner_options *opts, char *line, size_t linelen)
{
    char *true_argv[] = {(char *)true_path(), NULL};
    struct action probe = {.argv = true_argv, .name = "true"};
    struct runner_job job = {.opts = opts, .action = &probe};
    struct errbuf eb = {{0}};
    if (engine_prepare(&job, e, &eb) < 0) {
        snprintf(line, linelen, "%s", eb.msg);
        return -1;
    }
    struct engine_job *ej = job.priv;
    container_name_next(job.argv[ej->name_index]);
    double timeout = opts && opts->timeout > 0 ? opts->timeout : 60.0;
    int rc = run_capture(job.argv, line, linelen, timeout);
    if (rc < 0)
        stop_container(e, job.argv[ej->name_index]);
    engine_cleanup(&job);
    strv_free(job.argv);
    strv_free(job.envp);
    return rc;
}
