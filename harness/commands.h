/* The subcommands of sbxbench; each takes its own argv (argv[0] is the subcommand) and returns the
 * process's exit code. */
#pragma once

#define EXIT_REGRESSION 1
#define EXIT_USAGE 2
#define EXIT_SANDBOX 125
#define EXIT_INTERRUPTED 130

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_exec(int argc, char **argv);
