/*
 * runs.h — the runs and what they found: the transactions runs are concluded in, a run's
 * results (its folder, its call into the code under test, its hashes), the findings they add
 * to, and what judging a run reads back (the baseline's processes, learned conventions).
 */
#ifndef FAILRUN_RUNS_H
#define FAILRUN_RUNS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- transactions ---- */

/* BEGIN IMMEDIATE, and COMMIT. */
void store_begin(sqlite3 *db);
void store_commit(sqlite3 *db);
/* One run's conclusion inside the open transaction of a batch (conclude.c): a savepoint. */
void store_conclusion_begin(sqlite3 *db);
void store_conclusion_end(sqlite3 *db);

/* ---- the campaign as a whole ---- */

/* Has the stored campaign never ended (its wall time not yet added)? */
bool store_campaign_unfinished(sqlite3 *db);
/* Adds a failrun's time to the campaign's wall time. */
void store_campaign_add_wall_ms(sqlite3 *db, int64_t ms);
/* The fault runs, those done, and the findings. */
void store_fault_run_counts(sqlite3 *db, int64_t *total, int64_t *done, int64_t *findings);

/* ---- runs ---- */

/* The next planned run after run `after` (runs are taken in id order); its strings are the
   caller's to free. False when none is left. */
struct store_planned_run {
    int64_t id;
    char *site, *chain, *plan;
    int64_t owner; /* 0: none */
};
bool store_run_next_planned(sqlite3 *db, int64_t after, struct store_planned_run *out);
/* The folder of a run as stored, or NULL; malloc'ed. */
char *store_run_dir(sqlite3 *db, int64_t run);
/* The baseline's folder, or NULL; malloc'ed. */
char *store_baseline_dir(sqlite3 *db);
/* Each fault run done without a finding whose folder is kept, but `except`, by id. */
void store_kept_runs_each(sqlite3 *db, int64_t except, void (*each)(int64_t run, void *data),
                          void *data);
/* What a run's faulted call returned to its caller (verdict_name: boundary.h's name). */
void store_run_api(sqlite3 *db, int64_t run, const char *function, uint64_t value,
                   uint64_t value2, const char *verdict_name, const char *reaction);
void store_run_leak_bytes(sqlite3 *db, int64_t run, uint64_t bytes);
void store_run_stdout_hash(sqlite3 *db, int64_t run, uint64_t hash);
void store_run_test_case(sqlite3 *db, int64_t run, const char *test_case);
/* The program a run started alone; 0: the whole command. */
void store_run_owner(sqlite3 *db, int64_t run, int64_t program);
/* Did a done run of the chain `chain` (its first `length` bytes) end with this status, signal
   and standard output? */
bool store_chain_ended_alike(sqlite3 *db, const char *chain, size_t length, int exit_code,
                             int signal, uint64_t stdout_hash);

/* ---- what judging reads ---- */

/* A module named only by a sanitizer's report, under its id (16 hex digits). */
void store_module_add(sqlite3 *db, const char *id, const char *path);
/* The exit status most processes of run `run` (the baseline) with this executable, command
   line (16 hex digits) and fork state ended with; false when none exited. */
bool store_process_exit_code(sqlite3 *db, int64_t run, const char *exe, const char *command_line,
                             bool forked, int *exit_code);
/* The classes a library function returned in the unfailed runs (conventions), or with
   `at_call` at the call from caller_module+caller_offset (call_conventions); 0: unknown. */
uint64_t store_learned_classes(sqlite3 *db, uint64_t module, const char *function, bool at_call,
                               uint64_t caller_module, uint64_t caller_offset);
/* Blocks live at the exit of run `run` per site (16 hex digits). */
void store_live_each(sqlite3 *db, int64_t run,
                     void (*each)(const char *site, uint64_t blocks, void *data), void *data);
/* Did the command load a sanitizer's runtime (ASan, LSan, TSan)? */
bool store_sanitizer_runtime_loaded(sqlite3 *db);

/* ---- findings ---- */

/* The run that represents the finding of `key` (its replay's: the earliest of its smallest
   site), 0 when there is no such finding yet; whether run `run` represents any finding. */
int64_t store_finding_run_of_key(sqlite3 *db, const char *key);
bool store_run_represents_finding(sqlite3 *db, int64_t run);

/* A bug seen in run `run`: a new finding under `key`, or one more run of the stored one (the
   run of the smallest site represents it: FINDING_REPLACES, database.h). Its id. `detail` may
   be NULL; `bytes` 0 leaves it NULL. */
int64_t store_finding_add(sqlite3 *db, const char *key, const char *outcome, int signal,
                          const char *site, const char *frames, int64_t run, const char *detail,
                          uint64_t bytes);

#endif
