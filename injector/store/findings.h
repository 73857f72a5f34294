/*
 * findings.h — what the report reads from the campaign database: the campaign's counts, the
 * findings and the runs behind them, the programs and fixtures, the library boundary's calls.
 * Rows are handed over as plain values (a callback per row, or JSON where the report shows them
 * as they are); symbolising and judging them is the report's.
 */
#ifndef FAILRUN_STORE_FINDINGS_H
#define FAILRUN_STORE_FINDINGS_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- the campaign ---- */

/* The campaign row and the counts of sites and runs the report's summary shows. Texts are
   copies (NULL when the column is); free with store_campaign_counts_free. */
struct store_campaign_counts {
    int64_t sites;            /* sites in --source the baseline reached */
    int64_t runs, runs_pending;
    bool has_wall_ms;
    int64_t wall_ms, baseline_exit;
    int64_t error_path_sites; /* sites in --source only fault runs reached */
    int64_t io_sites;         /* I/O sites the baseline reached */
    char *faults;
    int64_t outside_source_sites;
    char *source;
    int64_t bookkeeping_sites; /* allocate for a wrapper's bookkeeping: never failed (source.h) */
    char *bookkeeping;         /* the functions that do, ", "-separated ("" when none) */
    bool fail_bookkeeping;     /* --fail-bookkeeping: they are failed like the others */
};
/* False when the database holds no campaign row. */
bool store_campaign_counts(sqlite3 *db, struct store_campaign_counts *out);
void store_campaign_counts_free(struct store_campaign_counts *counts);
/* The sites marked as an allocation wrapper's bookkeeping (sites.bookkeeping), and the functions
   that allocate there, ", "-separated in name order (allocated; "" when none). */
int64_t store_bookkeeping_sites(sqlite3 *db);
char *store_bookkeeping_functions(sqlite3 *db);

/* Error-path sites that got no run of their own: {"reason": count}, by reason. */
json_t *store_unexplored_counts(sqlite3 *db);
/* First fault runs (a chain of one) of sites the baseline reached whose fault never fired, in a
   campaign that fails every site (policy all, not failrun kernel). */
int64_t store_unreached_count(sqlite3 *db);

/* Each program a fault run may start alone (programs.alone decided), by id: `alone` is "yes"
   or why it stays within the whole command; argv as stored (strings_from_blob). */
struct store_program_alone {
    const char *exe;
    const void *argv;
    int argv_bytes;
    const char *alone;
};
void store_programs_alone_each(sqlite3 *db,
                               void (*each)(void *context, const struct store_program_alone *row),
                               void *context);

/* The program a run started alone (runs.owner), as the campaign recorded it; false when `id` is
   0 or unknown. Free with store_program_command_free. */
struct store_program_command {
    char *exe, *cwd;
    char *stdin_path; /* NULL: none */
    char **argv;      /* NULL-terminated (strings_from_blob) */
};
bool store_program_command(sqlite3 *db, int64_t id, struct store_program_command *out);
void store_program_command_free(struct store_program_command *start);

/* The baseline's programs started without the preload: [{"program", "reason", "count"}]. */
json_t *store_unpreloaded_rows(sqlite3 *db);
/* The suite's fixtures left out of the default scope: [{"exe", "why"}], by exe. */
json_t *store_fixture_rows(sqlite3 *db);
/* Sites per executable: [{"exe", "sites"}], most first. */
json_t *store_sites_per_exe(sqlite3 *db);

/* The campaign's fork note (forkrun.c), a copy; NULL when none. */
char *store_fork_note(sqlite3 *db);
/* The runs that ended with their test case, per verdict ("passed", "failed") and function,
   ordered by function. */
void store_test_cases_each(sqlite3 *db,
                           void (*each)(void *context, const char *verdict, const char *function,
                                        int64_t runs),
                           void *context);

/* ---- findings and runs ---- */

/* A finding with its first run's chain, plan and owner. Texts may be NULL. */
struct store_finding {
    int64_t id;
    const char *outcome;
    int signal;
    const char *site;
    const char *frames; /* frames_to_json's text */
    int64_t runs;
    const char *chain, *plan, *detail;
    int64_t first_run;
    bool has_bytes;
    int64_t bytes;
    int64_t owner; /* 0: the whole command's run */
};
/* Every finding, by first run. */
void store_findings_each(sqlite3 *db,
                         void (*each)(void *context, const struct store_finding *row),
                         void *context);

/* Done fault runs per outcome. */
void store_outcome_counts_each(sqlite3 *db,
                               void (*each)(void *context, const char *outcome, int64_t runs),
                               void *context);
/* Done fault runs whose leak LeakSanitizer confirmed, and their bytes. */
void store_leak_totals(sqlite3 *db, int64_t *runs, int64_t *bytes);

/* A function of the code under test a fault fired in (runs.api): the classes its conventions
   learned, the runs' verdicts, and their reactions as a JSON array text. */
struct store_api_calls {
    const char *function;
    uint64_t seen;
    int64_t reported, swallowed, unknown;
    const char *reactions;
};
void store_api_calls_each(sqlite3 *db,
                          void (*each)(void *context, const struct store_api_calls *row),
                          void *context);

/* Done fault runs judged caller-crash, by id: their crash frames (JSON text) and site. */
void store_caller_crashes_each(sqlite3 *db,
                               void (*each)(void *context, const char *frames, const char *site),
                               void *context);
/* The distinct sites fault runs failed. */
void store_fault_sites_each(sqlite3 *db, void (*each)(void *context, const char *site),
                            void *context);

/* A done fault run with its site's function, size and kind. Texts may be NULL. */
struct store_fault_run {
    int64_t id;
    const char *site, *chain, *plan, *outcome;
    int64_t wall_ms;
    int exit_code, signal;
    bool has_finding;
    int64_t finding;
    const char *function;
    int64_t max_size;
    const char *kind;
};
/* Every done fault run, by id. */
void store_fault_runs_each(sqlite3 *db,
                           void (*each)(void *context, const struct store_fault_run *row),
                           void *context);

#endif
