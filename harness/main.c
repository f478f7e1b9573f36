/* sbxbench: what does it cost to run each build action in a sandbox, and which sandbox? */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/commands.h"
#include "harness/usage.h"
#include "version.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"run", cmd_run, "measure workloads under sandboxing mechanisms"},
    {"list", cmd_list, "list mechanisms and workloads and whether they can run here"},
    {"compare", cmd_compare, "judge a run against a baseline: regressed, improved or unchanged"},
    {"reproduce", cmd_reproduce, "re-measure the published sandboxing table, side by side"},
    {"exec", cmd_exec, "run a command in sbxbench's own sandbox"},
    {NULL, NULL, NULL},
};

static void print_help(void)
{
    printf("Usage: sbxbench COMMAND [OPTIONS]\n\n"
           "Measures what it costs to run a build action in a sandbox, and which sandbox.\n\n"
           "Commands:\n");
    for (const struct command *c = commands; c->name; c++)
        printf("  %-10s %s\n", c->name, c->summary);
    printf("\nOptions:\n"
           "  -h, --help     this help; 'sbxbench COMMAND --help' for a command's\n"
           "  -V, --version  the version and the git commit it was built from\n");
}

int main(int argc, char **argv)
{
    stderr_color = isatty(2);
    /* A closed stdout (sbxbench run | head) must not kill a run before it writes its results. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        print_help();
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        print_help();
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("sbxbench %s (git %s)\n", SBXBENCH_VERSION, SBXBENCH_GIT_COMMIT);
        return 0;
    }
    for (const struct command *c = commands; c->name; c++)
        if (strcmp(argv[1], c->name) == 0)
            return c->run(argc - 1, argv + 1);
    usage_error("unknown command '%s' (see 'sbxbench --help')", argv[1]);
    return EXIT_USAGE;
}
