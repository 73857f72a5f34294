/*
 * runs.c — the runs and what they found (runs.h): conclusion transactions, a run's results,
 * findings, and what judging a run reads back.
 */
#include "store/runs.h"
#include "base/util.h"
#include "store/database.h"

#include <stdlib.h>

/* ---- transactions ---- */

void store_begin(sqlite3 *db)
{
    database_exec(db, "BEGIN IMMEDIATE");
}

void store_commit(sqlite3 *db)
{
    database_exec(db, "COMMIT");
}

void store_conclusion_begin(sqlite3 *db)
{
    database_exec(db, "SAVEPOINT conclude");
}

void store_conclusion_end(sqlite3 *db)
{
    database_exec(db, "RELEASE conclude");
}

/* ---- the campaign as a whole ---- */

bool store_campaign_unfinished(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT wall_ms IS NULL FROM campaign");
    bool unfinished = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int(statement, 0);
    database_finalize(statement);
    return unfinished;
}

void store_campaign_add_wall_ms(sqlite3 *db, int64_t ms)
{
    sqlite3_stmt *statement =
        database_prepare(db, "UPDATE campaign SET wall_ms = coalesce(wall_ms, 0) + ?");
    sqlite3_bind_int64(statement, 1, ms);
    database_step_done(statement);
    database_finalize(statement);
}

void store_fault_run_counts(sqlite3 *db, int64_t *total, int64_t *done, int64_t *findings)
{
    sqlite3_stmt *count = database_prepare(
        db, "SELECT count(*), coalesce(sum(state = 'done'), 0),"
            " (SELECT count(*) FROM findings) FROM runs WHERE kind = 'fault'");
    sqlite3_step(count);
    *total = sqlite3_column_int64(count, 0);
    *done = sqlite3_column_int64(count, 1);
    *findings = sqlite3_column_int64(count, 2);
    database_finalize(count);
}

/* ---- runs ---- */

bool store_run_next_planned(sqlite3 *db, int64_t after, struct store_planned_run *out)
{
    sqlite3_stmt *next = database_prepare(
        db, "SELECT id, site, chain, plan, owner FROM runs WHERE state = 'planned'"
            " AND id > ? ORDER BY id LIMIT 1");
    sqlite3_bind_int64(next, 1, after);
    bool found = sqlite3_step(next) == SQLITE_ROW;
    if (found) {
        out->id = sqlite3_column_int64(next, 0);
        out->site = column_text(next, 1);
        out->chain = column_text(next, 2);
        out->plan = column_text(next, 3);
        out->owner = sqlite3_column_int64(next, 4);
    }
    database_finalize(next);
    return found;
}

char *store_run_dir(sqlite3 *db, int64_t run)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT dir FROM runs WHERE id = ?");
    sqlite3_bind_int64(statement, 1, run);
    char *dir = sqlite3_step(statement) == SQLITE_ROW ? column_text(statement, 0) : NULL;
    database_finalize(statement);
    return dir;
}

char *store_baseline_dir(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT dir FROM runs WHERE kind = 'baseline'");
    char *dir = sqlite3_step(statement) == SQLITE_ROW ? column_text(statement, 0) : NULL;
    database_finalize(statement);
    return dir;
}

void store_kept_runs_each(sqlite3 *db, int64_t except, void (*each)(int64_t run, void *data),
                          void *data)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT id FROM runs WHERE kind = 'fault' AND state = 'done'"
            " AND finding IS NULL AND dir IS NOT NULL AND id <> ? ORDER BY id");
    sqlite3_bind_int64(statement, 1, except);
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(sqlite3_column_int64(statement, 0), data);
    database_finalize(statement);
}

void store_run_api(sqlite3 *db, int64_t run, const char *function, uint64_t value,
                   uint64_t value2, const char *verdict_name, const char *reaction)
{
    sqlite3_stmt *statement = database_prepare(
        db, "UPDATE runs SET api = ?, api_value = ?, api_errno = ?, api_verdict = ?, reaction = ?"
            " WHERE id = ?");
    sqlite3_bind_text(statement, 1, function, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 2, (sqlite3_int64)value);
    sqlite3_bind_int64(statement, 3, (sqlite3_int64)value2);
    sqlite3_bind_text(statement, 4, verdict_name, -1, SQLITE_STATIC);
    bind_text_or_null(statement, 5, reaction);
    sqlite3_bind_int64(statement, 6, run);
    database_step_done(statement);
    database_finalize(statement);
}

/* One value into a column of the run's row (`column`: a name of ours, never the user's). */
static void set_run_value(sqlite3 *db, int64_t run_id, const char *column, uint64_t value)
{
    char *sql = sqlite3_mprintf("UPDATE runs SET \"%w\" = ? WHERE id = ?", column);
    sqlite3_stmt *statement = database_prepare(db, sql);
    sqlite3_free(sql);
    sqlite3_bind_int64(statement, 1, (sqlite3_int64)value);
    sqlite3_bind_int64(statement, 2, run_id);
    database_step_done(statement);
    database_finalize(statement);
}

static void set_run_text(sqlite3 *db, int64_t run_id, const char *column, const char *value)
{
    char *sql = sqlite3_mprintf("UPDATE runs SET \"%w\" = ? WHERE id = ?", column);
    sqlite3_stmt *statement = database_prepare(db, sql);
    sqlite3_free(sql);
    sqlite3_bind_text(statement, 1, value, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 2, run_id);
    database_step_done(statement);
    database_finalize(statement);
}

void store_run_leak_bytes(sqlite3 *db, int64_t run, uint64_t bytes)
{
    set_run_value(db, run, "leak_bytes", bytes);
}

void store_run_stdout_hash(sqlite3 *db, int64_t run, uint64_t hash)
{
    set_run_value(db, run, "stdout_hash", hash);
}

void store_run_test_case(sqlite3 *db, int64_t run, const char *test_case)
{
    set_run_text(db, run, "test_case", test_case);
}

void store_run_owner(sqlite3 *db, int64_t run, int64_t program)
{
    sqlite3_stmt *statement = database_prepare(db, "UPDATE runs SET owner = ? WHERE id = ?");
    if (program)
        sqlite3_bind_int64(statement, 1, program);
    sqlite3_bind_int64(statement, 2, run);
    database_step_done(statement);
    database_finalize(statement);
}

bool store_chain_ended_alike(sqlite3 *db, const char *chain, size_t length, int exit_code,
                             int signal, uint64_t stdout_hash)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT count(*) FROM runs WHERE chain = ? AND state = 'done' AND exit_code = ?"
            " AND signal = ? AND stdout_hash = ?");
    sqlite3_bind_text(statement, 1, chain, (int)length, SQLITE_TRANSIENT);
    sqlite3_bind_int(statement, 2, exit_code);
    sqlite3_bind_int(statement, 3, signal);
    sqlite3_bind_int64(statement, 4, (sqlite3_int64)stdout_hash);
    bool same = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int(statement, 0) > 0;
    database_finalize(statement);
    return same;
}

/* ---- what judging reads ---- */

void store_module_add(sqlite3 *db, const char *id, const char *path)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT OR IGNORE INTO modules(id, path, build_id) VALUES (?, ?, '')");
    sqlite3_bind_text(statement, 1, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 2, path, -1, SQLITE_TRANSIENT);
    database_step_done(statement);
    database_finalize(statement);
}

bool store_process_exit_code(sqlite3 *db, int64_t run, const char *exe, const char *command_line,
                             bool forked, int *exit_code)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT exit_code FROM processes WHERE run = ? AND exe = ? AND"
            " command_line = ? AND forked = ? AND exit_code IS NOT NULL"
            " GROUP BY exit_code ORDER BY count(*) DESC LIMIT 1");
    sqlite3_bind_int64(statement, 1, run);
    sqlite3_bind_text(statement, 2, exe, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 3, command_line, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(statement, 4, forked);
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    if (found)
        *exit_code = sqlite3_column_int(statement, 0);
    database_finalize(statement);
    return found;
}

uint64_t store_learned_classes(sqlite3 *db, uint64_t module, const char *function, bool at_call,
                               uint64_t caller_module, uint64_t caller_offset)
{
    sqlite3_stmt *statement = database_prepare(
        db, at_call ? "SELECT classes FROM call_conventions WHERE module = ? AND function = ?"
                      " AND caller_module = ? AND caller_offset = ?"
                    : "SELECT classes FROM conventions WHERE module = ? AND function = ?");
    sqlite3_bind_int64(statement, 1, (sqlite3_int64)module);
    sqlite3_bind_text(statement, 2, function, -1, SQLITE_TRANSIENT);
    if (at_call) {
        sqlite3_bind_int64(statement, 3, (sqlite3_int64)caller_module);
        sqlite3_bind_int64(statement, 4, (sqlite3_int64)caller_offset);
    }
    uint64_t classes =
        sqlite3_step(statement) == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return classes;
}

void store_live_each(sqlite3 *db, int64_t run,
                     void (*each)(const char *site, uint64_t blocks, void *data), void *data)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT site, blocks FROM live WHERE run = ?");
    sqlite3_bind_int64(statement, 1, run);
    while (sqlite3_step(statement) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(statement, 0),
             (uint64_t)sqlite3_column_int64(statement, 1), data);
    database_finalize(statement);
}

bool store_sanitizer_runtime_loaded(sqlite3 *db)
{
    sqlite3_stmt *modules = database_prepare(
        db, "SELECT count(*) FROM modules WHERE path LIKE '%/libasan.so%'"
            " OR path LIKE '%/liblsan.so%' OR path LIKE '%/libtsan.so%'");
    bool loaded = sqlite3_step(modules) == SQLITE_ROW && sqlite3_column_int(modules, 0) > 0;
    database_finalize(modules);
    return loaded;
}

/* ---- findings ---- */

int64_t store_finding_run_of_key(sqlite3 *db, const char *key)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT first_run FROM findings WHERE key = ?");
    sqlite3_bind_text(statement, 1, key, -1, SQLITE_STATIC);
    int64_t run = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return run;
}

bool store_run_represents_finding(sqlite3 *db, int64_t run)
{
    sqlite3_stmt *statement =
        database_prepare(db, "SELECT 1 FROM findings WHERE first_run = ? LIMIT 1");
    sqlite3_bind_int64(statement, 1, run);
    bool represents = sqlite3_step(statement) == SQLITE_ROW;
    database_finalize(statement);
    return represents;
}

int64_t store_finding_add(sqlite3 *db, const char *key, const char *outcome, int signal,
                          const char *site, const char *frames, int64_t run, const char *detail,
                          uint64_t bytes)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT INTO findings(key, outcome, signal, site, frames, first_run, runs,"
            " detail, bytes) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)"
            " ON CONFLICT(key) DO UPDATE SET runs = runs + 1,"
            /* The run of the smallest site id represents it (the earliest of that site's): the
               same whatever order -j finishes runs in, and whether the campaign ran whole or
               as shards merged later (cmd_merge.c). */
            "  site = iif(" FINDING_REPLACES ", excluded.site, site),"
            "  frames = iif(" FINDING_REPLACES ", excluded.frames, frames),"
            "  detail = iif(" FINDING_REPLACES ", excluded.detail, detail),"
            "  bytes = iif(" FINDING_REPLACES ", excluded.bytes, bytes),"
            "  first_run = iif(" FINDING_REPLACES ", excluded.first_run, first_run)"
            " RETURNING id");
    sqlite3_bind_text(statement, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 2, outcome, -1, SQLITE_STATIC);
    sqlite3_bind_int(statement, 3, signal);
    sqlite3_bind_text(statement, 4, site, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 5, frames, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 6, run);
    bind_text_or_null(statement, 7, detail);
    if (bytes)
        sqlite3_bind_int64(statement, 8, (sqlite3_int64)bytes);
    int64_t id = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return id;
}
