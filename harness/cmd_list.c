/* sbxbench list: every mechanism and workload, and whether it can run on this host. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "harness/bench.h"
#include "harness/commands.h"
#include "harness/config.h"
#include "harness/usage.h"
#include "runners/runner.h"
#include "workloads/workload.h"

static void list_help(void)
{
    printf("Usage: sbxbench list [--json]\n\n"
           "Lists every mechanism and workload, whether it can run here, and if not, why.\n");
}

static json_t *entry(const char *name, const char *summary, const char *family, bool ok,
                     const char *why)
{
    json_t *e = json_pack("{s:s,s:s,s:b}", "name", name, "summary", summary, "available", ok);
    if (family)
        json_object_set_new(e, "family", json_string(family));
    json_object_set_new(e, "reason", ok ? json_null() : json_string(why));
    return e;
}

int cmd_list(int argc, char **argv)
{
    bool as_json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            as_json = true;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            list_help();
            return 0;
        } else {
            usage_error("list: unexpected argument '%s'", argv[i]);
            return EXIT_USAGE;
        }
    }
    struct runner_options ropts = {.spawn = SPAWN_POSIX_SPAWN, .seccomp = "default",
                                   .staging = "root", .cache_dir = default_cache_dir(),
                                   .timeout = DEFAULT_TIMEOUT};
    struct run_config defaults;
    run_config_defaults(&defaults);
    const struct workload_options *wopts = &defaults.wopts;
    json_t *mechs = json_array(), *works = json_array();
    for (size_t i = 0; runner_table[i]; i++) {
        const struct runner *r = runner_table[i];
        char why[512] = "";
        bool ok = r->available(&ropts, why, sizeof why);
        json_array_append_new(mechs, entry(r->name, r->summary, r->family, ok, why));
    }
    char **names = workload_builtin_names();
    for (size_t i = 0; names && names[i]; i++) {
        char why[1024] = "";
        struct errbuf eb = {{0}};
        const struct workload *w = workload_resolve(names[i], wopts, &eb);
        bool ok = w && workload_available(w, wopts, why, sizeof why);
        json_array_append_new(works, entry(names[i], w ? w->summary : "", NULL, ok,
                                           w ? why : eb.msg));
    }
    strv_free(names);
    if (as_json) {
        json_t *doc = json_pack("{s:o,s:o}", "mechanisms", mechs, "workloads", works);
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(doc);
        workloads_unload();
        return 0;
    }
    const char *titles[] = {"Mechanisms", "Workloads"};
    json_t *lists[] = {mechs, works};
    for (int l = 0; l < 2; l++) {
        printf("%s%s:\n", l ? "\n" : "", titles[l]);
        size_t i;
        json_t *e;
        json_array_foreach(lists[l], i, e)
        {
            bool ok = json_is_true(json_object_get(e, "available"));
            printf("  %-14s %-10s %s\n", json_string_value(json_object_get(e, "name")),
                   ok ? "ready" : "unavailable",
                   ok ? json_string_value(json_object_get(e, "summary"))
                      : json_string_value(json_object_get(e, "reason")));
        }
    }
    json_decref(mechs);
    json_decref(works);
    workloads_unload();
    return 0;
}
