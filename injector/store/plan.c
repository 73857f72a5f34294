/*
 * plan.c — the baseline and the plan of runs as stored (plan.h).
 */
#include "store/plan.h"
#include "base/util.h"
#include "store/database.h"

#include <stdlib.h>

/* ---- the baseline ---- */

void store_runs_clear(sqlite3 *db)
{
    database_exec(db, "DELETE FROM runs; DELETE FROM sites; DELETE FROM live;"
                      " DELETE FROM processes; DELETE FROM findings; DELETE FROM modules;"
                      " DELETE FROM programs; DELETE FROM unpreloaded;" DATABASE_CLEAR_KERNEL_RUNS);
}

bool store_baseline_done(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT count(*) FROM runs WHERE kind = 'baseline' AND state = 'done'");
    bool done = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int(statement, 0) > 0;
    database_finalize(statement);
    return done;
}

void store_baseline_set(sqlite3 *db, int exit_code, int signal, uint64_t stdout_hash,
                        uint64_t stderr_hash, int64_t wall_ms)
{
    sqlite3_stmt *statement = database_prepare(
        db, "UPDATE campaign SET baseline_exit = ?, baseline_signal = ?, baseline_stdout = ?,"
            " baseline_stderr = ?, baseline_wall_ms = ?");
    sqlite3_bind_int(statement, 1, exit_code);
    sqlite3_bind_int(statement, 2, signal);
    if (stdout_hash)
        sqlite3_bind_int64(statement, 3, (sqlite3_int64)stdout_hash);
    if (stderr_hash)
        sqlite3_bind_int64(statement, 4, (sqlite3_int64)stderr_hash);
    sqlite3_bind_int64(statement, 5, wall_ms);
    database_step_done(statement);
    database_finalize(statement);
}

void store_baseline_output_set(sqlite3 *db, uint64_t stdout_hash, uint64_t stderr_hash)
{
    sqlite3_stmt *statement =
        database_prepare(db, "UPDATE campaign SET baseline_stdout = ?, baseline_stderr = ?");
    if (stdout_hash)
        sqlite3_bind_int64(statement, 1, (sqlite3_int64)stdout_hash);
    if (stderr_hash)
        sqlite3_bind_int64(statement, 2, (sqlite3_int64)stderr_hash);
    database_step_done(statement);
    database_finalize(statement);
}

bool store_baseline_load(sqlite3 *db, struct store_baseline *out)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT baseline_exit, baseline_signal, baseline_stdout, baseline_stderr,"
            " baseline_wall_ms, (SELECT id FROM runs WHERE kind = 'baseline')"
            " FROM campaign");
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    if (found) {
        out->exit_code = sqlite3_column_int(statement, 0);
        out->signal = sqlite3_column_int(statement, 1);
        out->stdout_hash = (uint64_t)sqlite3_column_int64(statement, 2);
        out->stderr_hash = (uint64_t)sqlite3_column_int64(statement, 3);
        out->wall_ms = sqlite3_column_int64(statement, 4);
        out->run = sqlite3_column_int64(statement, 5);
    }
    database_finalize(statement);
    return found;
}

void store_campaign_set_scope(sqlite3 *db, const char *scope)
{
    sqlite3_stmt *statement = database_prepare(db, "UPDATE campaign SET scope = ?");
    sqlite3_bind_text(statement, 1, scope, -1, SQLITE_TRANSIENT);
    database_step_done(statement);
    database_finalize(statement);
}

void store_fixtures_replace(sqlite3 *db, json_t *fixtures)
{
    database_exec(db, "DELETE FROM fixtures");
    sqlite3_stmt *insert = database_prepare(db, "INSERT INTO fixtures(exe, why) VALUES (?, ?)");
    const char *exe;
    json_t *why;
    json_object_foreach(fixtures, exe, why) {
        sqlite3_bind_text(insert, 1, exe, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 2, json_string_value(why), -1, SQLITE_TRANSIENT);
        database_step_done(insert);
    }
    database_finalize(insert);
}

void store_campaign_note_set(sqlite3 *db, const char *kind, const char *text)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT OR REPLACE INTO campaign_notes(kind, text) VALUES (?, ?)");
    sqlite3_bind_text(statement, 1, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(statement, 2, text, -1, SQLITE_TRANSIENT);
    database_step_done(statement);
    database_finalize(statement);
}

bool store_campaign_note(sqlite3 *db, const char *kind, char **text)
{
    sqlite3_stmt *statement =
        database_prepare(db, "SELECT text FROM campaign_notes WHERE kind = ?");
    sqlite3_bind_text(statement, 1, kind, -1, SQLITE_STATIC);
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    *text = found ? column_text(statement, 0) : NULL;
    database_finalize(statement);
    return found;
}

bool store_baseline_cpu_ms(sqlite3 *db, int64_t *cpu_ms)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT CAST(text AS INTEGER) FROM campaign_notes WHERE kind = 'baseline_cpu_ms'");
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    if (found)
        *cpu_ms = sqlite3_column_int64(statement, 0);
    database_finalize(statement);
    return found;
}

bool store_conventions_empty(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT count(*) FROM conventions");
    bool empty = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int64(statement, 0) == 0;
    database_finalize(statement);
    return empty;
}

void store_unpreloaded_each(sqlite3 *db, int64_t run,
                            void (*each)(const char *program, const char *reason, int64_t count,
                                         void *data),
                            void *data)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT program, reason, count FROM unpreloaded WHERE run = ?"
            " ORDER BY program, reason");
    sqlite3_bind_int64(statement, 1, run);
    while (sqlite3_step(statement) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(statement, 0),
             (const char *)sqlite3_column_text(statement, 1), sqlite3_column_int64(statement, 2),
             data);
    database_finalize(statement);
}

bool store_source_scope_counts(sqlite3 *db, int64_t *inside, int64_t *total, char **example)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT (SELECT count(*) FROM sites WHERE NOT outside_source),"
            " (SELECT count(*) FROM sites),"
            " (SELECT source FROM sites WHERE source <> '' ORDER BY rowid LIMIT 1)");
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    if (found) {
        *inside = sqlite3_column_int64(statement, 0);
        *total = sqlite3_column_int64(statement, 1);
        *example = column_text(statement, 2);
    }
    database_finalize(statement);
    return found;
}

bool store_whole_command_runs_planned(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT count(*) FROM runs r LEFT JOIN programs p ON p.id = r.owner"
            " WHERE r.kind = 'fault' AND r.state = 'planned'"
            " AND (r.owner IS NULL OR p.alone IS NOT 'yes')");
    bool planned = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int64(statement, 0) > 0;
    database_finalize(statement);
    return planned;
}

/* ---- runs planned ---- */

int64_t store_run_plan(sqlite3 *db, const char *kind, const char *site, const char *chain,
                       const char *plan, int64_t owner)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT INTO runs(kind, site, chain, plan, state, owner)"
            " VALUES (?, ?, ?, ?, 'planned', ?)");
    sqlite3_bind_text(statement, 1, kind, -1, SQLITE_STATIC);
    bind_text_or_null(statement, 2, site);
    bind_text_or_null(statement, 3, chain);
    bind_text_or_null(statement, 4, plan);
    if (owner)
        sqlite3_bind_int64(statement, 5, owner);
    database_step_done(statement);
    database_finalize(statement);
    return sqlite3_last_insert_rowid(db);
}

void store_run_mark_every_start(sqlite3 *db, int64_t run)
{
    sqlite3_stmt *statement = database_prepare(db, "UPDATE runs SET every_start = 1 WHERE id = ?");
    sqlite3_bind_int64(statement, 1, run);
    database_step_done(statement);
    database_finalize(statement);
}

int64_t store_fault_run_count(sqlite3 *db)
{
    sqlite3_stmt *statement =
        database_prepare(db, "SELECT count(*) FROM runs WHERE kind = 'fault'");
    int64_t count = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return count;
}

/* ---- sites ---- */

bool store_site_top_frame(sqlite3 *db, const char *site, char **module, int64_t *offset)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT json_extract(frames, '$[0][0]'), json_extract(frames, '$[0][1]')"
            " FROM sites WHERE id = ?");
    sqlite3_bind_text(statement, 1, site, 16, SQLITE_TRANSIENT);
    bool found = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0);
    if (found) {
        *module = column_text(statement, 0);
        *offset = sqlite3_column_int64(statement, 1);
    }
    database_finalize(statement);
    return found;
}

/* The rule as a condition over the `sites` table (allocated). */
static char *failable_condition(const struct store_failable *failable)
{
    if (!failable->nofail)
        return xstrdup("NOT nofail AND NOT outside_source AND bookkeeping IS NULL");
    return xasprintf("NOT nofail AND NOT outside_source AND bookkeeping IS NULL"
                     " AND (kind <> 'alloc' OR max_size > %llu)",
                     (unsigned long long)failable->nofail_below);
}

void store_sites_mark_same_syscall(sqlite3 *db, const struct store_failable *failable)
{
    char *condition = failable_condition(failable);
    char *query = xasprintf(
        "UPDATE sites SET unexplored = 'same-syscall' WHERE unexplored IS NULL AND %s AND"
        " rowid NOT IN (SELECT min(rowid) FROM sites WHERE %s GROUP BY function)",
        condition, condition);
    free(condition);
    database_exec(db, query);
    free(query);
}

/* Each row's site (its first column) of `query`, with `run` bound first when not 0. */
static void sites_each(sqlite3 *db, char *query, int64_t run,
                       void (*each)(const char *site, void *data), void *data)
{
    sqlite3_stmt *sites = database_prepare(db, query);
    free(query);
    if (run)
        sqlite3_bind_int64(sites, 1, run);
    while (sqlite3_step(sites) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(sites, 0), data);
    database_finalize(sites);
}

void store_sites_to_plan_each(sqlite3 *db, const struct store_failable *failable,
                              void (*each)(const char *site, void *data), void *data)
{
    char *condition = failable_condition(failable);
    sites_each(db,
               xasprintf("SELECT id FROM sites WHERE %s AND (unexplored IS NOT 'same-syscall')"
                         " ORDER BY rowid", condition),
               0, each, data);
    free(condition);
}

void store_site_other_programs_each(sqlite3 *db, const struct store_failable *failable,
                                    void (*each)(const char *site, int64_t program, void *data),
                                    void *data)
{
    char *condition = failable_condition(failable);
    char *sql = xasprintf(
        "SELECT s.id, p.program FROM (SELECT id, owner, rowid AS seen FROM sites WHERE %s"
        "  AND unexplored IS NOT 'same-syscall') s"
        " JOIN program_sites p ON p.site = s.id"
        " JOIN runs r ON r.kind = 'fault' AND r.site = s.id AND r.chain NOT LIKE '%%,%%'"
        "  AND NOT r.every_start"
        " WHERE p.program IS NOT coalesce(r.owner, s.owner)"
        " GROUP BY s.id, p.program ORDER BY min(s.seen), p.program",
        condition);
    free(condition);
    sqlite3_stmt *statement = database_prepare(db, sql);
    free(sql);
    while (sqlite3_step(statement) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(statement, 0), sqlite3_column_int64(statement, 1),
             data);
    database_finalize(statement);
}

void store_sites_first_seen_each(sqlite3 *db, const struct store_failable *failable, int64_t run,
                                 void (*each)(const char *site, void *data), void *data)
{
    char *condition = failable_condition(failable);
    sites_each(db,
               xasprintf("SELECT id FROM sites WHERE first_run = ? AND %s ORDER BY rowid",
                         condition),
               run, each, data);
    free(condition);
}

void store_sites_explored_each(sqlite3 *db, void (*each)(const char *site, void *data),
                               void *data)
{
    sites_each(db,
               xstrdup("SELECT id FROM sites WHERE first_run IN"
                       " (SELECT id FROM runs WHERE kind = 'baseline') UNION"
                       " SELECT site FROM runs WHERE kind = 'fault' AND site IS NOT NULL"),
               0, each, data);
}

void store_sites_leave_unexplored(sqlite3 *db, const struct store_failable *failable, int64_t run,
                                  const char *site, const char *reason)
{
    char *condition = failable_condition(failable);
    char *query = xasprintf("UPDATE sites SET unexplored = ? WHERE first_run = ? AND"
                            " unexplored IS NULL AND (?3 IS NULL OR id = ?3) AND %s", condition);
    free(condition);
    sqlite3_stmt *statement = database_prepare(db, query);
    free(query);
    sqlite3_bind_text(statement, 1, reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(statement, 2, run);
    bind_text_or_null(statement, 3, site);
    database_step_done(statement);
    database_finalize(statement);
}
