/*
 * forks.h — the programs of the baseline and their runs alone (owner.c: a program's start, the
 * sites it reached, the check's verdict), and the fork phase's view of the planned runs: which
 * of them a fork can answer, lent to programs that fork at their start, tried, noted.
 */
#ifndef FAILRUN_FORKS_H
#define FAILRUN_FORKS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- programs ---- */

/* How a program was started in the baseline: argv and environment as recorded (NUL-terminated
   strings one after another), stdin: what to give it again (NULL: nothing can). */
struct store_program_start {
    const char *exe, *cwd;
    const void *argv;
    size_t argv_length;
    const void *environment;
    size_t environment_length;
    const char *stdin_kind, *stdin_path;
};
/* The row of this start in programs, inserted when new; its id. */
int64_t store_program_row(sqlite3 *db, const struct store_program_start *start);
/* What a baseline process of program `program` tells of it: whether it is the command's own
   process (`top`), and how it ended (the first ending stored stays). */
void store_program_ending(sqlite3 *db, int64_t program, bool top, bool exited, int exit_code,
                          int signal);
/* A site (16 hex digits) program `program` reached in the baseline: in program_sites when it
   is in the campaign's scope, else in program_known (the sites its start's children need not
   record). */
void store_program_site_add(sqlite3 *db, int64_t program, const char *site, bool in_scope);

/* A program's row; strings and blobs live until the callback returns. */
struct store_program {
    const char *exe, *cwd;
    const void *argv, *environment; /* as stored (strings_from_blob reads them) */
    int argv_length, environment_length;
    const char *stdin_kind, *stdin_path;
    bool top;
    int exit_code, signal;
    const char *alone; /* "yes", why not, or NULL: not checked */
    uint64_t alone_stdout, alone_stderr;
    int64_t alone_wall_ms;
    const char *alone_live; /* JSON of its live blocks alone, or NULL */
};
/* Calls `each` with program `id`'s row; false when there is none. */
bool store_program_load(sqlite3 *db, int64_t id,
                        void (*each)(const struct store_program *program, void *data), void *data);
/* Each program started as `exe` in the folder `cwd`, by id, until `each` returns true. */
void store_programs_at_each(sqlite3 *db, const char *exe, const char *cwd,
                            bool (*each)(const void *argv, int argv_length,
                                         const void *environment, int environment_length,
                                         void *data),
                            void *data);
/* The owner of the site whose id is the first `length` characters of `site` (0: none). */
int64_t store_site_owner(sqlite3 *db, const char *site, size_t length);

/* The check's verdict on a program alone: "yes" or why not; what it did alone (hashes 0 are
   stored as none, `live` and `alone_dir` may be NULL). */
void store_program_verdict(sqlite3 *db, int64_t program, const char *alone, uint64_t stdout_hash,
                           uint64_t stderr_hash, int64_t wall_ms, const char *live,
                           const char *alone_dir);
/* Program `program`'s planned runs go back to the whole command. */
void store_program_runs_release(sqlite3 *db, int64_t program);
/* The runs --every-start added: a site failed in another program than its owner. */
int64_t store_every_start_runs_count(sqlite3 *db);
/* Each program that planned runs would start alone and that was not checked, by id. */
void store_programs_unchecked_each(sqlite3 *db, void (*each)(int64_t program, void *data),
                                   void *data);
/* The sites program `program` reached in the baseline (or owns) that have runs. */
/* Every site `program` reached in the baseline (or owns), with the largest request seen there
   (-1: any, a site out of scope): the sites a fork child of its start need not record again
   (forkphase.c, write_start_file). */
void store_program_known_sites_each(sqlite3 *db, int64_t program,
                                    void (*each)(const char *site, int64_t max_size, void *data),
                                    void *data);
void store_program_expected_sites_each(sqlite3 *db, int64_t program,
                                       void (*each)(const char *site, void *data), void *data);
/* Each program checked that does not run alone, by id. */
void store_programs_not_alone_each(sqlite3 *db, void (*each)(int64_t program, void *data),
                                   void *data);

/* ---- the baseline's processes ---- */

/* How many baseline processes (not forked) of executable `exe` started before the first of
   program `program`: its place among them; -1 when unknown. */
int64_t store_program_start_ordinal(sqlite3 *db, const char *exe, int64_t program);
/* The command line hash (hex) of program `program`'s first start in the baseline, NULL when
   none; malloc'ed. */
char *store_program_command_line(sqlite3 *db, int64_t program);
/* The baseline's wall time (0: unknown). */
int64_t store_baseline_wall_ms(sqlite3 *db);
/* The command's output varies from run to run: forget the baseline's hash. */
void store_baseline_stdout_forget(sqlite3 *db);
void store_baseline_stderr_forget(sqlite3 *db);

/* ---- the fork phase ---- */

/* The forkable runs are planned first runs of a single site at its first call, or any run
   lent to a program that forks at its start inside the command (temp.start_programs, while it
   does: its child runs the plan from the start, as a re-run would). A `selector` takes those
   a fork run of program `selector` answers (its owner runs); 0 any left (owner runs not
   answered by their program's fork run are marked tried by then); STORE_UNOWNED those of no
   program alone. */
#define STORE_UNOWNED (-1)

/* The table of the programs forking at their start now, for this connection. */
void store_start_programs_create(sqlite3 *db);
void store_start_program_mark(sqlite3 *db, int64_t program);
void store_start_program_unmark(sqlite3 *db, int64_t program);
/* Lends program `program` the planned runs whose first site it reached in the baseline and
   that no program has; how many. */
int64_t store_fork_runs_lend(sqlite3 *db, int64_t program);

int64_t store_fork_runs_count(sqlite3 *db, int64_t selector);
/* The forkable runs of `selector` by id; the strings live until `each` returns. */
struct store_fork_run {
    int64_t id;
    const char *site, *chain, *plan;
};
void store_fork_runs_each(sqlite3 *db, int64_t selector,
                          void (*each)(const struct store_fork_run *run, void *data), void *data);
/* The sites of the forkable runs of `selector` (in the table's order). */
void store_fork_run_sites_each(sqlite3 *db, int64_t selector,
                               void (*each)(const char *site, void *data), void *data);
/* The owners of forkable runs, by id. */
void store_fork_run_owners_each(sqlite3 *db, void (*each)(int64_t program, void *data),
                                void *data);
/* Each known site that is not a forkable run's of `selector`. */
void store_sites_not_forkable_each(sqlite3 *db, int64_t selector,
                                   void (*each)(const char *site, void *data), void *data);
/* The forkable runs of `selector` still planned were tried by the fork run in `dir`. */
void store_fork_runs_tried(sqlite3 *db, int64_t selector, const char *dir);
/* Is the folder (the first `length` bytes of `path`) no run's? */
bool store_dir_of_no_run(sqlite3 *db, const char *path, size_t length);
/* A line of the campaign's fork note, once. */
void store_fork_note_add(sqlite3 *db, const char *note);

#endif
