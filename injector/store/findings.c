/*
 * findings.c — the report's reads of the campaign database (findings.h): the campaign's counts,
 * findings, runs, programs and fixtures, the library boundary's calls. The queries only; what the
 * report makes of the rows stays in report.c.
 */
#include "store/findings.h"
#include "base/util.h"
#include "store/campaign.h"
#include "store/database.h"

#include <stdlib.h>
#include <string.h>

/* ---- the campaign ---- */

bool store_campaign_counts(sqlite3 *db, struct store_campaign_counts *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT (SELECT count(*) FROM sites WHERE NOT outside_source AND bookkeeping IS NULL"
            "   AND first_run IN (SELECT id FROM runs WHERE kind = 'baseline')),"
            " (SELECT count(*) FROM runs), (SELECT count(*) FROM runs WHERE state = 'planned'),"
            " wall_ms, baseline_exit, (SELECT count(*) FROM sites WHERE NOT outside_source"
            "   AND bookkeeping IS NULL AND first_run NOT IN"
            "   (SELECT id FROM runs WHERE kind = 'baseline')),"
            " (SELECT count(*) FROM sites WHERE kind = 'io' AND first_run IN"
            "   (SELECT id FROM runs WHERE kind = 'baseline')), faults,"
            " (SELECT count(*) FROM sites WHERE outside_source), source, fail_bookkeeping"
            " FROM campaign");
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    if (found) {
        out->sites = sqlite3_column_int64(statement, 0);
        out->runs = sqlite3_column_int64(statement, 1);
        out->runs_pending = sqlite3_column_int64(statement, 2);
        out->has_wall_ms = sqlite3_column_type(statement, 3) != SQLITE_NULL;
        out->wall_ms = sqlite3_column_int64(statement, 3);
        out->baseline_exit = sqlite3_column_int64(statement, 4);
        out->error_path_sites = sqlite3_column_int64(statement, 5);
        out->io_sites = sqlite3_column_int64(statement, 6);
        out->faults = column_text(statement, 7);
        out->outside_source_sites = sqlite3_column_int64(statement, 8);
        out->source = column_text(statement, 9);
        out->fail_bookkeeping = sqlite3_column_int(statement, 10);
    }
    database_finalize(statement);
    if (found) {
        out->bookkeeping_sites = store_bookkeeping_sites(db);
        out->bookkeeping = store_bookkeeping_functions(db);
    }
    return found;
}

int64_t store_bookkeeping_sites(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT count(*) FROM sites WHERE NOT outside_source AND bookkeeping IS NOT NULL");
    int64_t count = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return count;
}

char *store_bookkeeping_functions(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT group_concat(bookkeeping, ', ') FROM (SELECT DISTINCT bookkeeping FROM sites"
            " WHERE NOT outside_source AND bookkeeping IS NOT NULL ORDER BY bookkeeping)");
    char *names = sqlite3_step(statement) == SQLITE_ROW ? column_text(statement, 0) : NULL;
    database_finalize(statement);
    return names ? names : xstrdup("");
}

void store_campaign_counts_free(struct store_campaign_counts *counts)
{
    free(counts->faults);
    free(counts->source);
    free(counts->bookkeeping);
    memset(counts, 0, sizeof *counts);
}

json_t *store_unexplored_counts(sqlite3 *db)
{
    json_t *unexplored = json_object();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT unexplored, count(*) FROM sites WHERE unexplored IS NOT NULL"
            " GROUP BY 1 ORDER BY 1");
    while (sqlite3_step(statement) == SQLITE_ROW)
        json_object_set_new(unexplored, (const char *)sqlite3_column_text(statement, 0),
                            json_integer(sqlite3_column_int64(statement, 1)));
    database_finalize(statement);
    return unexplored;
}

int64_t store_unreached_count(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site"
            " WHERE r.kind = 'fault' AND r.outcome = 'not-reached' AND r.chain NOT LIKE '%,%'"
            " AND s.first_run IN (SELECT id FROM runs WHERE kind = 'baseline')"
            " AND (SELECT policy FROM campaign) = 'all' AND (SELECT kernel FROM campaign) = 0");
    int64_t count = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return count;
}

void store_programs_alone_each(sqlite3 *db,
                               void (*each)(void *context, const struct store_program_alone *row),
                               void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT exe, argv, alone FROM programs WHERE alone IS NOT NULL ORDER BY id");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        struct store_program_alone row = {
            .exe = (const char *)sqlite3_column_text(statement, 0),
            .argv = sqlite3_column_blob(statement, 1),
            .argv_bytes = sqlite3_column_bytes(statement, 1),
            .alone = (const char *)sqlite3_column_text(statement, 2),
        };
        each(context, &row);
    }
    database_finalize(statement);
}

bool store_program_command(sqlite3 *db, int64_t id, struct store_program_command *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *statement =
        database_prepare(db, "SELECT exe, cwd, argv, stdin FROM programs WHERE id = ?");
    sqlite3_bind_int64(statement, 1, id);
    bool found = id && sqlite3_step(statement) == SQLITE_ROW;
    if (found) {
        out->argv = strings_from_blob(sqlite3_column_blob(statement, 2),
                                      sqlite3_column_bytes(statement, 2));
        out->exe = column_text(statement, 0);
        out->cwd = column_text(statement, 1);
        out->stdin_path = column_text(statement, 3);
    }
    database_finalize(statement);
    return found;
}

void store_program_command_free(struct store_program_command *start)
{
    free(start->exe);
    free(start->cwd);
    free(start->stdin_path);
    if (start->argv)
        environment_free(start->argv);
    memset(start, 0, sizeof *start);
}

json_t *store_unpreloaded_rows(sqlite3 *db)
{
    json_t *list = json_array();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT program, reason, count FROM unpreloaded"
            " WHERE run = (SELECT min(id) FROM runs WHERE kind = 'baseline')"
            " ORDER BY program, reason");
    while (sqlite3_step(statement) == SQLITE_ROW)
        json_array_append_new(
            list, json_pack("{s:s, s:s, s:I}", "program", sqlite3_column_text(statement, 0),
                            "reason", sqlite3_column_text(statement, 1), "count",
                            (json_int_t)sqlite3_column_int64(statement, 2)));
    database_finalize(statement);
    return list;
}

json_t *store_fixture_rows(sqlite3 *db)
{
    json_t *list = json_array();
    sqlite3_stmt *statement = database_prepare(db, "SELECT exe, why FROM fixtures ORDER BY exe");
    while (sqlite3_step(statement) == SQLITE_ROW)
        json_array_append_new(list, json_pack("{s:s, s:s}", "exe",
                                              sqlite3_column_text(statement, 0), "why",
                                              sqlite3_column_text(statement, 1)));
    database_finalize(statement);
    return list;
}

json_t *store_sites_per_exe(sqlite3 *db)
{
    json_t *list = json_array();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT exe, count(*) FROM sites WHERE bookkeeping IS NULL GROUP BY exe"
            " ORDER BY count(*) DESC, exe");
    while (sqlite3_step(statement) == SQLITE_ROW)
        json_array_append_new(list, json_pack("{s:s, s:I}", "exe",
                                              sqlite3_column_text(statement, 0), "sites",
                                              (json_int_t)sqlite3_column_int64(statement, 1)));
    database_finalize(statement);
    return list;
}

char *store_fork_note(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT fork_note FROM campaign");
    char *note = sqlite3_step(statement) == SQLITE_ROW ? column_text(statement, 0) : NULL;
    database_finalize(statement);
    return note;
}

void store_test_cases_each(sqlite3 *db,
                           void (*each)(void *context, const char *verdict, const char *function,
                                        int64_t runs),
                           void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT substr(test_case, 1, 6), substr(test_case, 8), count(*) FROM runs"
            " WHERE test_case IS NOT NULL GROUP BY 1, 2 ORDER BY 2, 1");
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(context, (const char *)sqlite3_column_text(statement, 0),
             (const char *)sqlite3_column_text(statement, 1), sqlite3_column_int64(statement, 2));
    database_finalize(statement);
}

/* ---- findings and runs ---- */

void store_findings_each(sqlite3 *db,
                         void (*each)(void *context, const struct store_finding *row),
                         void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT f.id, f.outcome, f.signal, f.site, f.frames, f.runs, r.chain, r.plan, f.detail,"
            " f.first_run, f.bytes, r.owner FROM findings f LEFT JOIN runs r ON r.id = f.first_run"
            " ORDER BY f.first_run");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        struct store_finding row = {
            .id = sqlite3_column_int64(statement, 0),
            .outcome = (const char *)sqlite3_column_text(statement, 1),
            .signal = sqlite3_column_int(statement, 2),
            .site = (const char *)sqlite3_column_text(statement, 3),
            .frames = (const char *)sqlite3_column_text(statement, 4),
            .runs = sqlite3_column_int64(statement, 5),
            .chain = (const char *)sqlite3_column_text(statement, 6),
            .plan = (const char *)sqlite3_column_text(statement, 7),
            .detail = (const char *)sqlite3_column_text(statement, 8),
            .first_run = sqlite3_column_int64(statement, 9),
            .has_bytes = sqlite3_column_type(statement, 10) != SQLITE_NULL,
            .bytes = sqlite3_column_int64(statement, 10),
            .owner = sqlite3_column_int64(statement, 11),
        };
        each(context, &row);
    }
    database_finalize(statement);
}

void store_outcome_counts_each(sqlite3 *db,
                               void (*each)(void *context, const char *outcome, int64_t runs),
                               void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT outcome, count(*) FROM runs WHERE kind = 'fault' AND state = 'done'"
            " GROUP BY outcome");
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(context, (const char *)sqlite3_column_text(statement, 0),
             sqlite3_column_int64(statement, 1));
    database_finalize(statement);
}

void store_leak_totals(sqlite3 *db, int64_t *runs, int64_t *bytes)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT count(*), coalesce(sum(leak_bytes), 0) FROM runs"
            " WHERE kind = 'fault' AND state = 'done' AND leak_bytes > 0");
    *runs = *bytes = 0;
    if (sqlite3_step(statement) == SQLITE_ROW) {
        *runs = sqlite3_column_int64(statement, 0);
        *bytes = sqlite3_column_int64(statement, 1);
    }
    database_finalize(statement);
}

void store_api_calls_each(sqlite3 *db,
                          void (*each)(void *context, const struct store_api_calls *row),
                          void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT r.api, coalesce((SELECT c.classes FROM conventions c WHERE c.function = r.api"
            "  ORDER BY c.classes DESC LIMIT 1), 0),"
            " sum(r.api_verdict = 'reported'), sum(r.api_verdict = 'swallowed'),"
            " sum(r.api_verdict = 'unknown'), json_group_array(r.reaction)"
            " FROM runs r WHERE r.api IS NOT NULL GROUP BY r.api ORDER BY r.api");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        struct store_api_calls row = {
            .function = (const char *)sqlite3_column_text(statement, 0),
            .seen = (uint64_t)sqlite3_column_int64(statement, 1),
            .reported = sqlite3_column_int64(statement, 2),
            .swallowed = sqlite3_column_int64(statement, 3),
            .unknown = sqlite3_column_int64(statement, 4),
            .reactions = (const char *)sqlite3_column_text(statement, 5),
        };
        each(context, &row);
    }
    database_finalize(statement);
}

void store_caller_crashes_each(sqlite3 *db,
                               void (*each)(void *context, const char *frames, const char *site),
                               void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT crash_frames, site FROM runs WHERE kind = 'fault' AND state = 'done'"
            " AND outcome = 'caller-crash' ORDER BY id");
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(context, (const char *)sqlite3_column_text(statement, 0),
             (const char *)sqlite3_column_text(statement, 1));
    database_finalize(statement);
}

void store_fault_sites_each(sqlite3 *db, void (*each)(void *context, const char *site),
                            void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT DISTINCT site FROM runs WHERE kind = 'fault' AND site IS NOT NULL");
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(context, (const char *)sqlite3_column_text(statement, 0));
    database_finalize(statement);
}

void store_fault_runs_each(sqlite3 *db,
                           void (*each)(void *context, const struct store_fault_run *row),
                           void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT r.id, r.site, r.chain, r.plan, r.outcome, r.wall_ms, r.exit_code, r.signal,"
            " r.finding, s.function, s.max_size, s.kind"
            " FROM runs r LEFT JOIN sites s ON s.id = r.site"
            " WHERE r.kind = 'fault' AND r.state = 'done' ORDER BY r.id");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        struct store_fault_run row = {
            .id = sqlite3_column_int64(statement, 0),
            .site = (const char *)sqlite3_column_text(statement, 1),
            .chain = (const char *)sqlite3_column_text(statement, 2),
            .plan = (const char *)sqlite3_column_text(statement, 3),
            .outcome = (const char *)sqlite3_column_text(statement, 4),
            .wall_ms = sqlite3_column_int64(statement, 5),
            .exit_code = sqlite3_column_int(statement, 6),
            .signal = sqlite3_column_int(statement, 7),
            .has_finding = sqlite3_column_type(statement, 8) != SQLITE_NULL,
            .finding = sqlite3_column_int64(statement, 8),
            .function = (const char *)sqlite3_column_text(statement, 9),
            .max_size = sqlite3_column_int64(statement, 10),
            .kind = (const char *)sqlite3_column_text(statement, 11),
        };
        each(context, &row);
    }
    database_finalize(statement);
}
