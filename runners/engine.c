#include "runners/engine.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* Whether the container was found (and killed or removed): false when the engine knows no
 * container of that name, or did not answer. */
static bool stop_container(struct engine *e, const char *name)
{
    char line[256];
    char *kill_args[] = {"kill", (char *)name, NULL};
    char *rm_args[] = {"rm", "--force", (char *)name, NULL};
    int killed = engine_command(e, kill_args, line, sizeof line, STOP_TIMEOUT);
    if (killed < 0) {
        e->unresponsive = true;
        return false;
    }
    int removed = engine_command(e, rm_args, line, sizeof line, STOP_TIMEOUT);
    if (removed < 0)
        e->unresponsive = true;
    return killed == 0 || removed == 0;
}

/* How long a container the client had asked for, but the engine did not know yet when the sample
 * was stopped, is waited for: the create completes without the client, and the container would
 * stay, never started, for ever. */
#define LATE_CREATE_S 2.0

static void remove_late(struct engine *e, const char *name)
{
    char line[256];
    char *rm_args[] = {"rm", "--force", (char *)name, NULL};
    struct timespec pause = {0, 200 * 1000 * 1000};
    for (double waited = 0; waited < LATE_CREATE_S && !e->unresponsive; waited += 0.2) {
        nanosleep(&pause, NULL);
        int rc = engine_command(e, rm_args, line, sizeof line, STOP_TIMEOUT);
        if (rc < 0)
            e->unresponsive = true;
        if (rc == 0)
            return;
    }
}

/* Whether /proc/PID/cmdline holds "-n NAME": podman's conmon, watching the container NAME. */
static bool watches(const char *pid, const char *name)
{
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%s/cmdline", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (size_t at = 0; at < n; at += strlen(buf + at) + 1)
        if (strcmp(buf + at, "-n") == 0 && at + 3 < n && strcmp(buf + at + 3, name) == 0)
            return true;
    return false;
}

/* A podman client killed while it was starting the container can leave podman without a record of
 * it while its conmon and the container keep running (seen here: `podman rm --force` succeeded, the
 * sleep ran on). The conmon that names the container is found and its child, the container's pid
 * 1, killed: the whole pid namespace goes, and conmon, seeing it exit, runs its clean-up and exits.
 * Docker's shims do not name containers. */
static void kill_orphaned(const char *name)
{
    DIR *proc = opendir("/proc");
    struct dirent *d;
    while (proc && (d = readdir(proc))) {
        if (d->d_name[0] < '1' || d->d_name[0] > '9' || !watches(d->d_name, name))
            continue;
        char path[96];
        long child;
        snprintf(path, sizeof path, "/proc/%s/task/%s/children", d->d_name, d->d_name);
        FILE *f = fopen(path, "re");
        while (f && fscanf(f, "%ld", &child) == 1)
            kill((pid_t)child, SIGKILL);
        if (f)
            fclose(f);
    }
    if (proc)
        closedir(proc);
}

void engine_kill(struct runner_job *job, pid_t pid)
{
    struct engine_job *ej = job->priv;
    const char *name = job->argv[ej->name_index];
    /* The container outlives its client, so the daemon is asked first; then the client goes. */
    bool found = !ej->engine->unresponsive && stop_container(ej->engine, name);
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    /* Stopped while the client was still asking for its container: it may yet appear. */
    if (!found && !ej->engine->unresponsive)
        remove_late(ej->engine, name);
    kill_orphaned(name);
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
