/*
 * commands.h — the failrun subcommands, one file each (git's builtin/ layout).
 * Each returns the process exit status: 0 fine, 1 bugs found, 2 usage or environment error.
 */
#ifndef FAILRUN_COMMANDS_H
#define FAILRUN_COMMANDS_H

#include "cli/options.h"

#include <stdbool.h>

#include "engine/campaign_run.h"
#include "report/report.h"

int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_cov(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
/* What failrun run's and failrun kernel's options fill (their tables' target): the engine's
   options, and the report's outputs. */
struct run_command {
    struct run_options options;
    struct report_outputs outputs;
};

/* `failrun run`, or with kernel set `failrun kernel` (cmd_run.c): its options parsed by
   `table` (which may take failrun run's too), then `before` (may be NULL) sees them before the
   campaign starts (failrun kernel checks the kernel there, and notes which kernel it is), and
   `after` (may be NULL) sees the campaign when its runs are done, before the report (failrun
   kernel reads kmemleak there). */
int run_campaign(int argc, char **argv, const struct option_table *table, bool kernel,
                 void (*before)(struct run_options *options),
                 void (*after)(struct campaign_context *context));

/* Each command's option table (options.h): its parser and its usage are made from it. */
extern const struct option_table run_options_table;
extern const struct option_table kernel_options_table;
extern const struct option_table report_options_table;
extern const struct option_table replay_options_table;
extern const struct option_table merge_options_table;
extern const struct option_table cov_options_table;

#endif
