/*
 * plan.h — the baseline and the plan of runs as stored: what the baseline learnt (its ending
 * and output, its scope, fixtures and notes on running the command), the planned runs, and the
 * sites planning reads and marks (which get a run, which stay unexplored and why).
 *
 * Which sites a run may fail is the NOFAIL policy's (verdict/policy.h): the functions taking
 * `failable` are given its rule (failable_sites), which the store turns into its condition on
 * a site.
 */
#ifndef FAILRUN_PLAN_H
#define FAILRUN_PLAN_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* The sites a campaign may plan failures at: never the NOFAIL ones (they cannot fail) nor those
   outside --source (recorded, never failed); with `nofail`, no allocation site whose largest
   request is `nofail_below` bytes or less either. */
struct store_failable {
    bool nofail;
    uint64_t nofail_below;
};

/* ---- the baseline ---- */

/* A new baseline: every run and what runs found goes (kernel rows too). */
void store_runs_clear(sqlite3 *db);
/* Was the baseline run to its end? */
bool store_baseline_done(sqlite3 *db);

/* How the baseline ended; a hash 0 is stored as none (that output is not compared). */
void store_baseline_set(sqlite3 *db, int exit_code, int signal, uint64_t stdout_hash,
                        uint64_t stderr_hash, int64_t wall_ms);
/* The output hashes once the check that they are stable was made (0: none). */
void store_baseline_output_set(sqlite3 *db, uint64_t stdout_hash, uint64_t stderr_hash);
struct store_baseline {
    int exit_code, signal;
    uint64_t stdout_hash, stderr_hash; /* 0: not compared */
    int64_t wall_ms;
    int64_t run; /* the baseline's run id */
};
/* False when the campaign has no row. */
bool store_baseline_load(sqlite3 *db, struct store_baseline *out);

/* The scope of the runs (campaign.h, campaign_settings.scope). */
void store_campaign_set_scope(sqlite3 *db, const char *scope);
/* The fixtures the scope left out: {exe: why}, replacing those stored. */
void store_fixtures_replace(sqlite3 *db, json_t *fixtures);
/* What the baseline learnt about running the command (campaign_notes), kept for a resumed
   campaign: "jobs" (why runs go one at a time), "baseline_cpu_ms". */
void store_campaign_note_set(sqlite3 *db, const char *kind, const char *text);
/* The note of that kind ("jobs": why runs go one at a time; "jobs_checked": two runs at once
   were compared with the baseline) in *text, malloc'ed (NULL when the row holds none); false
   when there is none. */
bool store_campaign_note(sqlite3 *db, const char *kind, char **text);
/* The baseline's CPU time (the "baseline_cpu_ms" note); false when not kept. */
bool store_baseline_cpu_ms(sqlite3 *db, int64_t *cpu_ms);
/* Did the baseline learn no convention of a library call (conventions empty)? */
bool store_conventions_empty(sqlite3 *db);

/* Each program run `run` started without the preload, by program and reason. */
void store_unpreloaded_each(sqlite3 *db, int64_t run,
                            void (*each)(const char *program, const char *reason, int64_t count,
                                         void *data),
                            void *data);
/* The sites inside --source, all sites, and the source file of the first that has one
   (*example: NULL when none; malloc'ed). False when unknown. */
bool store_source_scope_counts(sqlite3 *db, int64_t *inside, int64_t *total, char **example);
/* Is a fault run of the whole command planned (no owner, or one that does not run alone)? */
bool store_whole_command_runs_planned(sqlite3 *db);

/* ---- runs planned ---- */

/* A planned run into the runs table (`owner` 0: the whole command); its id. */
int64_t store_run_plan(sqlite3 *db, const char *kind, const char *site, const char *chain,
                       const char *plan, int64_t owner);
/* Run `run` is one --every-start added (a site in another program than its owner). */
void store_run_mark_every_start(sqlite3 *db, int64_t run);
/* The fault runs planned or made so far. */
int64_t store_fault_run_count(sqlite3 *db);

/* ---- sites ---- */

/* The first frame of the site whose id is the 16 characters at `site`: its module (hex,
   malloc'ed) and offset. False when the site or its frames are unknown. */
bool store_site_top_frame(sqlite3 *db, const char *site, char **module, int64_t *offset);
/* --once-per-syscall: the campaign's first failable site of each system call stays; the
   others are marked unexplored ('same-syscall'). */
void store_sites_mark_same_syscall(sqlite3 *db, const struct store_failable *failable);
/* Each failable site not marked 'same-syscall', in the order first seen. */
void store_sites_to_plan_each(sqlite3 *db, const struct store_failable *failable,
                              void (*each)(const char *site, void *data), void *data);
/* --every-start: each failable site that has its first run, with each other program (than the
   one the run starts) that reached it in the baseline, by site in the order first seen. */
void store_site_other_programs_each(sqlite3 *db, const struct store_failable *failable,
                                    void (*each)(const char *site, int64_t program, void *data),
                                    void *data);
/* Each failable site run `run` revealed first, in the order seen. */
void store_sites_first_seen_each(sqlite3 *db, const struct store_failable *failable, int64_t run,
                                 void (*each)(const char *site, void *data), void *data);
/* Each site that had a run: the baseline's (each has one, in this shard or another) and every
   site a fault run was planned for. */
void store_sites_explored_each(sqlite3 *db, void (*each)(const char *site, void *data),
                               void *data);
/* The failable sites run `run` revealed first (or only `site`, when not NULL) that are not
   marked yet get no run of their own, for `reason` (a static string). */
void store_sites_leave_unexplored(sqlite3 *db, const struct store_failable *failable, int64_t run,
                                  const char *site, const char *reason);

#endif
