/*
 * covquery.c — failrun cov's reads of its tables (see covquery.h): the queries only; the
 * analysis and the report are coverage/'s and cmd_cov.c's.
 */
#include "store/covquery.h"
#include "base/util.h"
#include "store/database.h"

#include <stdlib.h>

/* ---- the layout ---- */

void store_cov_files_each(sqlite3 *db, enum store_cov_file_order order,
                          bool (*each)(void *context, int64_t id, const char *path),
                          void *context)
{
    static const char *const queries[] = {
        [STORE_COV_FILES_ANY] = "SELECT id, path FROM cov_files",
        [STORE_COV_FILES_BY_ID] = "SELECT id, path FROM cov_files ORDER BY id",
        [STORE_COV_FILES_BY_PATH] = "SELECT id, path FROM cov_files ORDER BY path",
    };
    sqlite3_stmt *statement = database_prepare(db, queries[order]);
    while (sqlite3_step(statement) == SQLITE_ROW &&
           each(context, sqlite3_column_int64(statement, 0),
                (const char *)sqlite3_column_text(statement, 1)))
        ;
    database_finalize(statement);
}

/* Each (file, line) row of `query`. */
static void file_lines_each(sqlite3 *db, const char *query,
                            void (*each)(void *context, int64_t file, int line), void *context)
{
    sqlite3_stmt *statement = database_prepare(db, query);
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(context, sqlite3_column_int64(statement, 0), sqlite3_column_int(statement, 1));
    database_finalize(statement);
}

void store_cov_lines_each(sqlite3 *db, void (*each)(void *context, int64_t file, int line),
                          void *context)
{
    file_lines_each(db, "SELECT file, line FROM cov_lines ORDER BY file, line", each, context);
}

void store_cov_branches_each(sqlite3 *db, void (*each)(void *context, int64_t file, int line),
                             void *context)
{
    file_lines_each(db, "SELECT file, line FROM cov_branches ORDER BY file, line, branch", each,
                    context);
}

void store_cov_functions_each(sqlite3 *db,
                              void (*each)(void *context, int64_t file, int start, int end,
                                           const char *name),
                              void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT file, start_line, end_line, min(name) FROM cov_functions"
            " GROUP BY file, start_line, end_line"
            " ORDER BY file, start_line, end_line");
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(context, sqlite3_column_int64(statement, 0), sqlite3_column_int(statement, 1),
             sqlite3_column_int(statement, 2), (const char *)sqlite3_column_text(statement, 3));
    database_finalize(statement);
}

int64_t store_cov_data_max_id(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT coalesce(max(id), 0) FROM cov_data");
    int64_t id = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return id;
}

/* ---- runs and their counts ---- */

int64_t store_cov_baseline_with_data(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT r.id FROM runs r JOIN cov_runs c ON c.run = r.id"
            " WHERE r.kind = 'baseline' AND r.state = 'done' AND c.data_files > 0"
            " ORDER BY r.id LIMIT 1");
    int64_t id = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return id;
}

bool store_cov_run_has_data(sqlite3 *db, int64_t run)
{
    sqlite3_stmt *statement =
        database_prepare(db, "SELECT data_files > 0 FROM cov_runs WHERE run = ?");
    sqlite3_bind_int64(statement, 1, run);
    bool present = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int(statement, 0);
    database_finalize(statement);
    return present;
}

size_t store_cov_runs_with_data_count(sqlite3 *db)
{
    sqlite3_stmt *count = database_prepare(
        db, "SELECT count(*) FROM runs r JOIN cov_runs c ON c.run = r.id"
            " WHERE r.state = 'done' AND c.data_files > 0");
    size_t total = sqlite3_step(count) == SQLITE_ROW ? (size_t)sqlite3_column_int64(count, 0) : 0;
    database_finalize(count);
    return total;
}

void store_cov_runs_with_data_each(sqlite3 *db,
                                   void (*each)(void *context, const struct store_cov_run *row),
                                   void *context)
{
    sqlite3_stmt *runs = database_prepare(
        db, "SELECT r.id, r.kind = 'baseline', r.site, r.chain, r.outcome IS 'not-reached',"
            " r.owner FROM runs r JOIN cov_runs c ON c.run = r.id"
            " WHERE r.state = 'done' AND c.data_files > 0 ORDER BY r.id");
    while (sqlite3_step(runs) == SQLITE_ROW) {
        struct store_cov_run row = {
            .id = sqlite3_column_int64(runs, 0),
            .baseline = sqlite3_column_int(runs, 1),
            .site = (const char *)sqlite3_column_text(runs, 2),
            .chain = (const char *)sqlite3_column_text(runs, 3),
            .not_reached = sqlite3_column_int(runs, 4),
            .has_owner = sqlite3_column_type(runs, 5) != SQLITE_NULL,
            .owner = sqlite3_column_int64(runs, 5),
        };
        each(context, &row);
    }
    database_finalize(runs);
}

struct store_cov_reader {
    sqlite3_stmt *lines, *branches, *files;
};

struct store_cov_reader *store_cov_reader_open(sqlite3 *db)
{
    struct store_cov_reader *reader = xcalloc(1, sizeof *reader);
    reader->lines = database_prepare(db, "SELECT file, line, count FROM cov_line_hits"
                                         " WHERE run = ? AND data = ?");
    reader->branches = database_prepare(db, "SELECT file, line, branch, count FROM cov_branch_hits"
                                            " WHERE run = ? AND data = ?");
    reader->files = database_prepare(
        db, "SELECT x.data, x.source, s.delta FROM cov_run_data x JOIN cov_run_data s"
            " ON s.run = x.source AND s.data = x.data WHERE x.run = ?");
    return reader;
}

void store_cov_reader_close(struct store_cov_reader *reader)
{
    database_finalize(reader->lines);
    database_finalize(reader->branches);
    database_finalize(reader->files);
    free(reader);
}

void store_cov_line_hits_each(struct store_cov_reader *reader, int64_t run, int64_t data,
                              void (*each)(void *context, int64_t file, int line, int64_t count),
                              void *context)
{
    sqlite3_stmt *lines = reader->lines;
    sqlite3_bind_int64(lines, 1, run);
    sqlite3_bind_int64(lines, 2, data);
    while (sqlite3_step(lines) == SQLITE_ROW)
        each(context, sqlite3_column_int64(lines, 0), sqlite3_column_int(lines, 1),
             sqlite3_column_int64(lines, 2));
    sqlite3_reset(lines);
}

void store_cov_branch_hits_each(struct store_cov_reader *reader, int64_t run, int64_t data,
                                void (*each)(void *context, int64_t file, int line, int branch,
                                             int64_t count),
                                void *context)
{
    sqlite3_stmt *branches = reader->branches;
    sqlite3_bind_int64(branches, 1, run);
    sqlite3_bind_int64(branches, 2, data);
    while (sqlite3_step(branches) == SQLITE_ROW)
        each(context, sqlite3_column_int64(branches, 0), sqlite3_column_int(branches, 1),
             sqlite3_column_int(branches, 2), sqlite3_column_int64(branches, 3));
    sqlite3_reset(branches);
}

void store_cov_copies_each(struct store_cov_reader *reader, int64_t run,
                           void (*each)(void *context, int64_t data, int64_t source, bool delta),
                           void *context)
{
    sqlite3_bind_int64(reader->files, 1, run);
    while (sqlite3_step(reader->files) == SQLITE_ROW)
        each(context, sqlite3_column_int64(reader->files, 0),
             sqlite3_column_int64(reader->files, 1), sqlite3_column_int(reader->files, 2));
    sqlite3_reset(reader->files);
}

/* ---- the report's totals ---- */

json_t *store_cov_run_totals(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT (SELECT count(*) FROM runs WHERE state = 'done' AND kind = 'baseline'),"
            " (SELECT count(*) FROM runs WHERE state = 'done' AND kind = 'fault'),"
            " (SELECT count(*) FROM cov_runs c JOIN runs r ON r.id = c.run WHERE c.data_files = 0),"
            " (SELECT coalesce(sum(data_files), 0) FROM cov_runs),"
            " (SELECT coalesce(sum(gcov_files), 0) FROM cov_runs)");
    sqlite3_step(statement);
    json_t *runs = json_pack("{s:I,s:I,s:I,s:I,s:I}",
        "baseline", (json_int_t)sqlite3_column_int64(statement, 0),
        "fault", (json_int_t)sqlite3_column_int64(statement, 1),
        "without_data", (json_int_t)sqlite3_column_int64(statement, 2),
        "data_files", (json_int_t)sqlite3_column_int64(statement, 3),
        "gcov_files", (json_int_t)sqlite3_column_int64(statement, 4));
    database_finalize(statement);
    return runs;
}

json_t *store_cov_crash_missing(sqlite3 *db)
{
    json_t *missing = json_array();
    sqlite3_stmt *statement = database_prepare(
        db, "WITH written AS MATERIALIZED (SELECT DISTINCT o.owner, y.data FROM runs o"
            "  JOIN cov_run_data y ON y.run = o.id"
            "  WHERE o.owner IS NOT NULL AND o.outcome NOT IN ('crash', 'caller-crash'))"
            " SELECT d.path, count(*) FROM runs r"
            " JOIN cov_runs c ON c.run = r.id"
            " JOIN cov_run_data b ON b.run = (SELECT min(id) FROM runs WHERE kind = 'baseline')"
            " JOIN cov_data d ON d.id = b.data"
            " WHERE r.outcome IN ('crash', 'caller-crash') AND NOT EXISTS"
            "  (SELECT 1 FROM cov_run_data x WHERE x.run = r.id AND x.data = b.data)"
            " AND (r.owner IS NULL OR EXISTS (SELECT 1 FROM written w"
            "  WHERE w.owner = r.owner AND w.data = b.data))"
            " GROUP BY d.path ORDER BY d.path");
    while (sqlite3_step(statement) == SQLITE_ROW)
        json_array_append_new(missing, json_pack("{s:s,s:I}",
            "data_file", (const char *)sqlite3_column_text(statement, 0),
            "runs", (json_int_t)sqlite3_column_int64(statement, 1)));
    database_finalize(statement);
    return missing;
}

int64_t store_cov_fault_runs_done(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT count(*) FROM runs"
                                                   " WHERE kind = 'fault' AND state = 'done'");
    int64_t runs = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return runs;
}
