/*
 * covquery.h — what failrun cov reads back of its tables (covrows.h writes them) for the
 * analysis and its report: the layout, each run's count rows and copies, the runs with coverage
 * data, and the totals the report shows. Plain values in and out, a callback per row.
 */
#ifndef FAILRUN_STORE_COVQUERY_H
#define FAILRUN_STORE_COVQUERY_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the layout ---- */

/* The order cov_files' rows come in. */
enum store_cov_file_order { STORE_COV_FILES_ANY, STORE_COV_FILES_BY_ID, STORE_COV_FILES_BY_PATH };
/* Every source file; `each` returns false to stop. */
void store_cov_files_each(sqlite3 *db, enum store_cov_file_order order,
                          bool (*each)(void *context, int64_t id, const char *path),
                          void *context);
/* The instrumented lines, by (file, line); branches by (file, line, branch), one row each. */
void store_cov_lines_each(sqlite3 *db, void (*each)(void *context, int64_t file, int line),
                          void *context);
void store_cov_branches_each(sqlite3 *db, void (*each)(void *context, int64_t file, int line),
                             void *context);
/* The functions, each (file, start, end) once with the least of its names, in that order. */
void store_cov_functions_each(sqlite3 *db,
                              void (*each)(void *context, int64_t file, int start, int end,
                                           const char *name),
                              void *context);
/* The largest data file id, 0 when none. */
int64_t store_cov_data_max_id(sqlite3 *db);

/* ---- runs and their counts ---- */

/* The first finished baseline that left coverage data, 0 when none. */
int64_t store_cov_baseline_with_data(sqlite3 *db);
/* Does `run` (a program's run alone: -program) have coverage data? */
bool store_cov_run_has_data(sqlite3 *db, int64_t run);

/* A finished run with coverage data. Texts may be NULL. */
struct store_cov_run {
    int64_t id;
    bool baseline;
    const char *site, *chain;
    bool not_reached; /* its fault never fired */
    bool has_owner;
    int64_t owner; /* the program it started alone (runs.owner) */
};
size_t store_cov_runs_with_data_count(sqlite3 *db);
/* By id. */
void store_cov_runs_with_data_each(sqlite3 *db,
                                   void (*each)(void *context, const struct store_cov_run *row),
                                   void *context);

/* The count rows of one run, with statements prepared once for many runs. */
struct store_cov_reader;
struct store_cov_reader *store_cov_reader_open(sqlite3 *db);
void store_cov_reader_close(struct store_cov_reader *reader);
/* The counts of data file `data` of `run`: its lines, its branches. */
void store_cov_line_hits_each(struct store_cov_reader *reader, int64_t run, int64_t data,
                              void (*each)(void *context, int64_t file, int line, int64_t count),
                              void *context);
void store_cov_branch_hits_each(struct store_cov_reader *reader, int64_t run, int64_t data,
                                void (*each)(void *context, int64_t file, int line, int branch,
                                             int64_t count),
                                void *context);
/* `run`'s copies of data files: the run whose rows hold each one's counts, and whether that
   run's rows are differences from the baseline's copy. */
void store_cov_copies_each(struct store_cov_reader *reader, int64_t run,
                           void (*each)(void *context, int64_t data, int64_t source, bool delta),
                           void *context);

/* ---- the report's totals ---- */

/* {"baseline", "fault", "without_data", "data_files", "gcov_files"}: finished runs by kind,
   runs read without data, data files and of them read with gcov. */
json_t *store_cov_run_totals(sqlite3 *db);
/* Data files the baseline wrote that crashing runs did not (see cmd_cov.c), by path:
   [{"data_file", "runs"}]. */
json_t *store_cov_crash_missing(sqlite3 *db);
/* Finished fault runs. */
int64_t store_cov_fault_runs_done(sqlite3 *db);

#endif
