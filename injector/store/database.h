/*
 * database.h — the campaign database (SQLite): the single source of truth of a campaign.
 * Every run is planned as a row first and completed in one transaction with everything it found,
 * so a campaign killed at any moment resumes where it stopped.
 */
#ifndef FAILRUN_DATABASE_H
#define FAILRUN_DATABASE_H

#include "store/ingest.h"

#include <sqlite3.h>
#include <stdbool.h>

#define DATABASE_APPLICATION_ID 0x6c666169 /* "lfai" */
#define DATABASE_SCHEMA_VERSION 15 /* 2: NOFAIL sites, failpoint names, policy, coverage;
                                     3: confirmed leaks, unexplored sites;
                                     4: kinds of fault (--faults io);
                                     5: programs and the sites they own (runs alone);
                                     6: coverage counts per data file, functions;
                                     7: --source, --wrapper and each site's source file;
                                     8: each program's coverage alone (programs.alone_dir);
                                     9: programs run without the preload (unpreloaded),
                                        the library boundary (conventions, runs.api_*);
                                     10: conventions per call (call_conventions);
                                     11: fork children ended with their test case;
                                     12: failrun kernel's options in the campaign;
                                     13: --once-per-syscall, the kernel's build-id;
                                     14: --every-start;
                                     15: wrappers' bookkeeping (sites.bookkeeping) */

/* Open (creating when `create`) and check that the file is a failrun database of our schema.
   On any problem: one clear line and exit status 2. */
sqlite3 *database_open(const char *path, bool create);
void database_close(sqlite3 *db);
void database_exec(sqlite3 *db, const char *sql);
sqlite3_stmt *database_prepare(sqlite3 *db, const char *sql);
/* Give back a statement of database_prepare for reuse (sqlite3_finalize also works, without
   reuse). NULL is ignored. */
void database_finalize(sqlite3_stmt *statement);
/* Step a statement that returns no rows, then reset it. */
void database_step_done(sqlite3_stmt *statement);
/* Empty every table (a new campaign in the same file). */
void database_reset(sqlite3 *db);

/* Store modules and sites a run revealed; new sites get first_run = run_id. A new site for which
   `not_a_site` (when given) is true is not stored: it is called after the run's modules are
   stored, with the site's stack (the engine passes frames_are_instrumentation, policy.h).
   Returns what was new to the database, DATABASE_NEW_SITES and DATABASE_NEW_MODULES or'ed: most
   runs store neither, and what is looked up per site or module is then left as it is. */
typedef bool database_site_filter(sqlite3 *db, const struct frame_list *frames);
enum { DATABASE_NEW_SITES = 1, DATABASE_NEW_MODULES = 2 };
unsigned database_store_records(sqlite3 *db, int64_t run_id, const struct run_records *records,
                                database_site_filter *not_a_site);

/* The programs a run started without the preload, counted per program and reason. */
void database_store_unpreloaded(sqlite3 *db, int64_t run_id, const struct run_records *records);

/* The rows failrun kernel keeps per run: cleared with the runs (run ids start again at 1). */
#define DATABASE_CLEAR_KERNEL_RUNS                                                                \
    " DELETE FROM kernel_faults; DELETE FROM kernel_allocs; DELETE FROM kernel_cov;"               \
    " DELETE FROM kernel_legs; DELETE FROM kernel_cov_done;"

/* Frames as JSON text: [["<module id hex>", offset], ...] and back. */
char *frames_to_json(const struct frame_list *frames);
bool frames_from_json(const char *text, struct frame_list *out);
/* The stored frames of a site (none when unknown). */
void site_frames(sqlite3 *db, const char *site, struct frame_list *frames);

/* Bind text, or leave the parameter NULL when `text` is NULL. */
void bind_text_or_null(sqlite3_stmt *statement, int index, const char *text);

/* Text column helper: a copy of column i or NULL. */
char *column_text(sqlite3_stmt *statement, int i);

/* The runs table (for a run's folder and end; struct spawn_result is spawn.h's). */
struct spawn_result;
void set_run_directory(sqlite3 *db, int64_t run_id, const char *dir);
void finish_run(sqlite3 *db, int64_t run_id, const char *site, const struct spawn_result *result,
                const char *outcome, const char *crash_frames, int problems, int64_t finding);

/* In an upsert of findings (ON CONFLICT(key)): whether the new row represents the finding
   instead of the stored one: its site was stored first (sites are planned in that order, so
   this is the run a campaign makes first), or the same site's run came earlier. Unlike run
   ids, the site order is the same in a whole campaign and in shards merged (each shard's
   baseline stores the same sites in the same order). */
#define FINDING_SITE_ORDER(site) "coalesce((SELECT rowid FROM sites WHERE id = " site "), 0)"
#define FINDING_REPLACES                                                                           \
    "(" FINDING_SITE_ORDER("excluded.site") " < " FINDING_SITE_ORDER("site") " OR ("              \
    FINDING_SITE_ORDER("excluded.site") " = " FINDING_SITE_ORDER("site")                          \
    " AND excluded.first_run < first_run))"

#endif
