#include "harness/hostinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "runners/runner.h"

/* The value after "key" and the colon on the first matching line of a /proc-style file. */
static char *proc_field(const char *path, const char *key)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    char *line = NULL, *value = NULL;
    size_t cap = 0;
    size_t klen = strlen(key);
    while (!value && getline(&line, &cap, f) > 0) {
        if (strncmp(line, key, klen) != 0)
            continue;
        char *colon = strchr(line + klen, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        v += strspn(v, " \t");
        v[strcspn(v, "\n")] = '\0';
        value = strdup(v);
    }
    free(line);
    fclose(f);
    return value;
}

static char *os_release(void)
{
    FILE *f = fopen("/etc/os-release", "re");
    if (!f)
        return NULL;
    char *line = NULL, *value = NULL;
    size_t cap = 0;
    while (!value && getline(&line, &cap, f) > 0) {
        if (strncmp(line, "PRETTY_NAME=", 12) != 0)
            continue;
        char *v = line + 12;
        v[strcspn(v, "\n")] = '\0';
        if (*v == '"') {
            v++;
            char *end = strrchr(v, '"');
            if (end)
                *end = '\0';
        }
        value = strdup(v);
    }
    free(line);
    fclose(f);
    return value;
}

static void set_owned_string(json_t *obj, const char *key, char *value)
{
    json_object_set_new(obj, key, value ? json_string(value) : json_null());
    free(value);
}

/* "program --version"'s first line, or null when the program is missing. */
static json_t *tool_version(const char *program)
{
    char *path = find_program(program);
    if (!path)
        return json_null();
    char *const argv[] = {path, "--version", NULL};
    char line[256];
    int rc = run_capture(argv, line, sizeof line, 5.0);
    json_t *v = json_object();
    json_object_set_new(v, "path", json_string(path));
    json_object_set_new(v, "version", rc == 0 && line[0] ? json_string(line) : json_null());
    free(path);
    return v;
}

static json_t *tools_json(void)
{
    static const char *const tools[] = {"bwrap",  "unshare", "docker",    "podman", "runc",
                                        "crun",   "hyperfine", "firejail", "systemd-nspawn", NULL};
    json_t *obj = json_object();
    for (size_t i = 0; tools[i]; i++)
        json_object_set_new(obj, tools[i], tool_version(tools[i]));
    /* Which shell `sh -c` starts matters more than its version: dash and bash differ by 2x. */
    char *sh = find_program("sh");
    char *real = sh ? realpath(sh, NULL) : NULL;
    json_t *shv = json_object();
    json_object_set_new(shv, "path", sh ? json_string(sh) : json_null());
    json_object_set_new(shv, "resolves_to", real ? json_string(real) : json_null());
    json_object_set_new(obj, "sh", shv);
    free(sh);
    free(real);
    return obj;
}

json_t *hostinfo_json(void)
{
    json_t *h = json_object();
    struct utsname u;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_object_set_new(h, "host", json_string(host));
    if (uname(&u) == 0) {
        json_object_set_new(h, "kernel", json_string(u.release));
        json_object_set_new(h, "kernel_version", json_string(u.version));
        json_object_set_new(h, "arch", json_string(u.machine));
    }
    set_owned_string(h, "os", os_release());
    set_owned_string(h, "cpu_model", proc_field("/proc/cpuinfo", "model name"));
    set_owned_string(h, "cpu_flags", proc_field("/proc/cpuinfo", "flags"));
    json_object_set_new(h, "cores", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
    char *mem = proc_field("/proc/meminfo", "MemTotal");
    json_object_set_new(h, "memory_kb", json_integer(mem ? atoll(mem) : 0));
    free(mem);
    json_object_set_new(h, "uid", json_integer(getuid()));
    json_object_set_new(h, "time_namespaces", json_boolean(access("/proc/self/ns/time", F_OK) == 0));
    json_object_set_new(h, "tools", tools_json());
    return h;
}
