/*
 * forkrun.h — what the fork phase (forkphase.c) uses of the fork runs (forkrun.c): which planned
 * runs a fork can answer, and one fork run of a program or of the command.
 */
#ifndef FAILRUN_FORKRUN_H
#define FAILRUN_FORKRUN_H

#include "engine/campaign_run.h"
#include "store/forks.h"

/* Planned first runs of a single site at its first call: what a fork can answer (forks.h, the
   forkable runs). A program that forks at its start inside the command answers the runs of
   chains too: its child runs the plan from the start, as a re-run would. Of them a fork run of
   `program` answers its owner runs, the command's with selector 0 any left (owner runs not
   answered by their program's fork run are marked tried by then), with UNOWNED those of no
   program alone (by default the command forks only for them: a program alone that is not worth
   forking keeps its runs alone). */
#define UNOWNED STORE_UNOWNED

typedef VECTOR(struct program *) program_list;

/* A line of the campaign's fork note (the report's), once. */
void add_fork_note(struct campaign_context *context, const char *note);
/* The last part of a path: how stderr and the report name a program. */
const char *base_name(const char *path);
/* Conclude the planned run of each site a child answered; returns how many. */
int64_t conclude_children(struct campaign_context *context, const char *root,
                          const char *command_dir, const struct spawn_result *command,
                          struct program *program, int64_t selector, bool at_start);
/* Run the command (or `program` alone) once in fork mode in `root`, with progress on stderr. */
struct spawn_result execute_fork_run(struct campaign_context *context, const char *root,
                                     const char *dir, int64_t forkable,
                                     const struct program *program, int64_t start_timeout_ms);
/* The sites the fork run left to re-runs, by why (the refused.PID files its processes wrote, or
   never reached by it): said on stderr and kept with the fork note for the report. */
void explain_refusals(struct campaign_context *context, const char *root, const char *name,
                      int64_t selector);
/* What is still planned of `selector`'s forkable runs was tried by the fork run in `root`: it
   is re-run, also after a resume. */
void finish_fork_run(struct campaign_context *context, const char *root, int64_t selector);
/* One fork run: of `program` alone (its owner runs), or of the command (`selector`: 0 whatever
   is left, UNOWNED the runs of no program alone). Adds the sites it was for and those it
   answered to *forkable and *concluded. */
void fork_run(struct campaign_context *context, struct program *program, int64_t selector,
              int64_t *forkable_total, int64_t *concluded_total);
int64_t forkable_count(sqlite3 *db, int64_t program);
/* The `result` line the parent wrote when it reaped the child. False when there is none (the
   parent ended by exec or was killed first) or the program reaped the child itself. */
bool read_result(const char *dir, struct spawn_result *result, int *parent);
/* The fork run's folder goes once its children are concluded. */
void remove_fork_folder(struct campaign_context *context, const char *root);

#endif
