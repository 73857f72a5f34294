/*
 * forkrun.h — what the fork phase (forkphase.c) uses of the fork runs (forkrun.c): which planned
 * runs a fork can answer, and one fork run of a program or of the command.
 */
#ifndef FAILRUN_FORKRUN_H
#define FAILRUN_FORKRUN_H

#include "engine/campaign_run.h"
#include "store/forks.h"

#include <stdatomic.h>
#include <stdio.h>

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
/* Sites a fork run answered and was given beyond what its folder shows: the starts' rounds
   (startrounds.c) conclude children while it runs, and give more. */
struct fork_progress {
    atomic_llong answered, given;
};
/* A child of a start that did not answer (its site not reached, or out of time) may go to the
   start's next round (forkphase.c) instead of a re-run: `take` says whether it does. */
struct child_retries {
    bool (*take)(const struct job *job, void *data);
    void *data;
};
/* Conclude the planned run of each site a child answered; returns how many. `retries` (may be
   NULL) is offered each child of a start that did not answer; without it they are said on
   stderr. */
int64_t conclude_children(struct campaign_context *context, const char *root,
                          const char *command_dir, const struct spawn_result *command,
                          struct program *program, int64_t selector, bool at_start,
                          const struct child_retries *retries);
/* "SITE PLAN", a line of a start file or of a start's round (forkstart.c): the plan with the
   CPU limit of `program`'s runs (plan_with_program_cpu_limit: a program alone, its own time
   alone's; else, or with no program, the campaign's). A child that spins after its fault then
   ends as a hang at that limit, as its re-run would, not at its start's wall-clock bound. */
void write_site_line(FILE *out, const struct campaign_settings *settings,
                     const struct program *program, const char *site, const char *plan);
/* startrounds.c. Whether a start's unfailed children vouch for its children (the first ended as
   the program does there, the second and the one after the first round as the first): NULL
   when so, else why not. `name` is its start file's. */
const char *start_differs(const char *root, const char *name, const struct program *program);
/* conclude_children for the children of `program`'s start `name`: judged against its unfailed
   child when it runs inside the command (in_command), else against the program alone. */
int64_t conclude_start(struct campaign_context *context, const char *root,
                       const char *command_dir, const struct spawn_result *command,
                       struct program *program, const char *name,
                       const struct child_retries *retries);
/* The rounds of the starts of a fork run in `root` (each start whose file says "rounds="):
   begin, add each start with the runs its file gave it, serve while the command runs, end
   after it (returns the sites the rounds answered, and in *given the chains they gave beyond the
   start files'; the note goes to stderr and the report). */
struct start_rounds;
struct start_rounds *start_rounds_begin(struct campaign_context *context, const char *root,
                                        const char *command_dir);
void start_rounds_add(struct start_rounds *rounds, struct program *program, const char *name,
                      const int64_t *given, size_t count);
void start_rounds_serve(struct start_rounds *rounds);
/* What the rounds answered and gave so far, for the fork run's progress. */
const struct fork_progress *start_rounds_progress(const struct start_rounds *rounds);
int64_t start_rounds_end(struct start_rounds *rounds, int64_t *given);
/* Run the command (or `program` alone) once in fork mode in `root`, with progress on stderr. */
struct spawn_result execute_fork_run(struct campaign_context *context, const char *root,
                                     const char *dir, int64_t forkable,
                                     const struct program *program, int64_t start_timeout_ms,
                                     const struct fork_progress *progress);
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
