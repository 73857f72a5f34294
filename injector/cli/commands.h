/*
 * commands.h — the failrun subcommands, one file each (git's builtin/ layout).
 * Each returns the process exit status: 0 fine, 1 bugs found, 2 usage or environment error.
 */
#ifndef FAILRUN_COMMANDS_H
#define FAILRUN_COMMANDS_H

#include <stdbool.h>

int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_cov(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
/* `failrun run`, or with kernel set `failrun kernel` after its checks (cmd_run.c); wrappers:
   `failrun kernel --wrappers`; `usage`: the command's help text, for --help. */
int run_campaign(int argc, char **argv, bool kernel, bool wrappers, const char *usage);

extern const char run_usage[];
extern const char report_usage[];
extern const char replay_usage[];
extern const char merge_usage[];
extern const char cov_usage[];
extern const char kernel_usage[];

#endif
