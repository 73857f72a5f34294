/*
 * covrows.h — failrun cov's tables as coverage.c fills them (doc/guide/coverage.md): source files
 * and data files by path, the instrumented lines, branches and functions, each run's counts and
 * which run's rows answer each of its data files. Plain values in and out; reading gcov data
 * and deciding what to store stays in coverage/.
 */
#ifndef FAILRUN_STORE_COVROWS_H
#define FAILRUN_STORE_COVROWS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- what is stored already ---- */

/* The first finished baseline run, 0 when none. */
int64_t store_cov_done_baseline(sqlite3 *db);
/* Every count row of `run`: lines (branch -1), then branches. */
void store_cov_hits_each(sqlite3 *db, int64_t run,
                         void (*each)(void *context, int64_t data, int64_t file, int line,
                                      int branch, int64_t count),
                         void *context);
/* The data files `run` has a copy of (cov_run_data). */
void store_cov_run_data_each(sqlite3 *db, int64_t run,
                             void (*each)(void *context, int64_t data), void *context);
/* Every data file known, by build path. */
void store_cov_data_each(sqlite3 *db,
                         void (*each)(void *context, const char *path, int64_t id),
                         void *context);
/* The copies whose rows are their own run's (read with gcov), with the folder of that run (a
   program's run alone: its alone_dir) when it is known. */
void store_cov_own_copies_each(sqlite3 *db,
                               void (*each)(void *context, int64_t hash, const char *build_path,
                                            int64_t run, const char *dir),
                               void *context);
/* The finished runs (and programs' runs alone, as -program) whose coverage is not read yet:
   the baseline first, then by id. */
void store_cov_unread_runs_each(sqlite3 *db,
                                void (*each)(void *context, int64_t run, const char *dir,
                                             bool baseline),
                                void *context);
/* Does the database hold any instrumented line? */
bool store_cov_has_lines(sqlite3 *db);

/* ---- storing ---- */

/* A batch of runs is read in one transaction (BEGIN IMMEDIATE ... COMMIT). */
void store_cov_begin(sqlite3 *db);
void store_cov_commit(sqlite3 *db);
/* A run read again (its cov_runs row removed by hand) starts from nothing: its rows go. */
void store_cov_forget_run(sqlite3 *db, int64_t run);
/* The id of a source file (its path as stored), added when new. */
int64_t store_cov_file_id(sqlite3 *db, const char *path);

/* The statements of the rows a batch stores, prepared once. */
struct store_cov_writer;
struct store_cov_writer *store_cov_writer_open(sqlite3 *db);
void store_cov_writer_close(struct store_cov_writer *writer);
/* A new data file (by build path): its id. */
int64_t store_cov_data_add(struct store_cov_writer *writer, const char *build_path);
/* The layout, each row once. */
void store_cov_line(struct store_cov_writer *writer, int64_t file, int line);
void store_cov_branch(struct store_cov_writer *writer, int64_t file, int line, int branch);
void store_cov_function(struct store_cov_writer *writer, int64_t file, int start_line,
                        int end_line, const char *name);
/* A run's count of a line or a branch of data file `data`. */
void store_cov_line_hit(struct store_cov_writer *writer, int64_t run, int64_t data, int64_t file,
                        int line, int64_t count);
void store_cov_branch_hit(struct store_cov_writer *writer, int64_t run, int64_t data,
                          int64_t file, int line, int branch, int64_t count);
/* A run's copy of a data file: the run whose rows hold its counts (`source`), the hash of its
   bytes, and whether its rows are differences from the baseline's copy. */
void store_cov_run_data(struct store_cov_writer *writer, int64_t run, int64_t data,
                        int64_t source, int64_t hash, bool delta);
/* A run read: its data files, of them read with gcov, and the time it took. */
void store_cov_run_read(struct store_cov_writer *writer, int64_t run, int64_t data_files,
                        int64_t gcov_files, int64_t read_ms);

#endif
