/*
 * covrows.c — failrun cov's tables as coverage.c fills them (see covrows.h): the queries and
 * the prepared statements of a batch; which rows to store is coverage.c's.
 */
#include "store/covrows.h"
#include "base/util.h"
#include "store/database.h"

#include <stdlib.h>

/* ---- what is stored already ---- */

int64_t store_cov_done_baseline(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT min(id) FROM runs WHERE kind = 'baseline' AND state = 'done'");
    int64_t run = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return run;
}

void store_cov_hits_each(sqlite3 *db, int64_t run,
                         void (*each)(void *context, int64_t data, int64_t file, int line,
                                      int branch, int64_t count),
                         void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT data, file, line, -1, count FROM cov_line_hits WHERE run = ?1 UNION ALL"
            " SELECT data, file, line, branch, count FROM cov_branch_hits WHERE run = ?1");
    sqlite3_bind_int64(statement, 1, run);
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(context, sqlite3_column_int64(statement, 0), sqlite3_column_int64(statement, 1),
             sqlite3_column_int(statement, 2), sqlite3_column_int(statement, 3),
             sqlite3_column_int64(statement, 4));
    database_finalize(statement);
}

void store_cov_run_data_each(sqlite3 *db, int64_t run,
                             void (*each)(void *context, int64_t data), void *context)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT data FROM cov_run_data WHERE run = ?");
    sqlite3_bind_int64(statement, 1, run);
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(context, sqlite3_column_int64(statement, 0));
    database_finalize(statement);
}

void store_cov_data_each(sqlite3 *db,
                         void (*each)(void *context, const char *path, int64_t id),
                         void *context)
{
    sqlite3_stmt *known = database_prepare(db, "SELECT path, id FROM cov_data");
    while (sqlite3_step(known) == SQLITE_ROW)
        each(context, (const char *)sqlite3_column_text(known, 0), sqlite3_column_int64(known, 1));
    database_finalize(known);
}

void store_cov_own_copies_each(sqlite3 *db,
                               void (*each)(void *context, int64_t hash, const char *build_path,
                                            int64_t run, const char *dir),
                               void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT x.hash, d.path, x.run, coalesce(r.dir, p.alone_dir) FROM cov_run_data x"
            " JOIN cov_data d ON d.id = x.data LEFT JOIN runs r ON r.id = x.run"
            " LEFT JOIN programs p ON p.id = -x.run"
            " WHERE x.source = x.run AND coalesce(r.dir, p.alone_dir) IS NOT NULL");
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(context, sqlite3_column_int64(statement, 0),
             (const char *)sqlite3_column_text(statement, 1), sqlite3_column_int64(statement, 2),
             (const char *)sqlite3_column_text(statement, 3));
    database_finalize(statement);
}

void store_cov_unread_runs_each(sqlite3 *db,
                                void (*each)(void *context, int64_t run, const char *dir,
                                             bool baseline),
                                void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT id, dir, baseline FROM (SELECT id, dir, kind = 'baseline' AS baseline"
            "  FROM runs WHERE state = 'done' AND dir IS NOT NULL"
            "  UNION ALL SELECT -id, alone_dir, 0 FROM programs WHERE alone_dir IS NOT NULL)"
            " WHERE id NOT IN (SELECT run FROM cov_runs) ORDER BY baseline DESC, id");
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(context, sqlite3_column_int64(statement, 0),
             (const char *)sqlite3_column_text(statement, 1), sqlite3_column_int(statement, 2));
    database_finalize(statement);
}

bool store_cov_has_lines(sqlite3 *db)
{
    sqlite3_stmt *any = database_prepare(db, "SELECT count(*) FROM cov_lines");
    bool some = sqlite3_step(any) == SQLITE_ROW && sqlite3_column_int64(any, 0) > 0;
    database_finalize(any);
    return some;
}

/* ---- storing ---- */

void store_cov_begin(sqlite3 *db)
{
    database_exec(db, "BEGIN IMMEDIATE");
}

void store_cov_commit(sqlite3 *db)
{
    database_exec(db, "COMMIT");
}

void store_cov_forget_run(sqlite3 *db, int64_t run)
{
    long long id = (long long)run;
    char *sql = sqlite3_mprintf("DELETE FROM cov_line_hits WHERE run = %lld;"
                                "DELETE FROM cov_branch_hits WHERE run = %lld;"
                                "DELETE FROM cov_run_data WHERE run = %lld;", id, id, id);
    database_exec(db, sql);
    sqlite3_free(sql);
}

int64_t store_cov_file_id(sqlite3 *db, const char *path)
{
    sqlite3_stmt *insert = database_prepare(db, "INSERT OR IGNORE INTO cov_files(path) VALUES (?)");
    sqlite3_bind_text(insert, 1, path, -1, SQLITE_TRANSIENT);
    database_step_done(insert);
    database_finalize(insert);
    sqlite3_stmt *select = database_prepare(db, "SELECT id FROM cov_files WHERE path = ?");
    sqlite3_bind_text(select, 1, path, -1, SQLITE_TRANSIENT);
    int64_t id = sqlite3_step(select) == SQLITE_ROW ? sqlite3_column_int64(select, 0) : 0;
    database_finalize(select);
    return id;
}

struct store_cov_writer {
    sqlite3 *db;
    sqlite3_stmt *line, *branch, *function, *line_hit, *branch_hit, *data, *run_data, *done;
};

struct store_cov_writer *store_cov_writer_open(sqlite3 *db)
{
    struct store_cov_writer *w = xcalloc(1, sizeof *w);
    w->db = db;
    w->line = database_prepare(db, "INSERT OR IGNORE INTO cov_lines(file, line) VALUES (?, ?)");
    w->branch = database_prepare(db, "INSERT OR IGNORE INTO cov_branches(file, line, branch)"
                                     " VALUES (?, ?, ?)");
    w->function = database_prepare(db, "INSERT OR IGNORE INTO cov_functions(file, start_line,"
                                       " end_line, name) VALUES (?, ?, ?, ?)");
    w->line_hit = database_prepare(db, "INSERT OR REPLACE INTO cov_line_hits(run, data, file,"
                                       " line, count) VALUES (?, ?, ?, ?, ?)");
    w->branch_hit = database_prepare(db, "INSERT OR REPLACE INTO cov_branch_hits(run, data,"
                                         " file, line, branch, count) VALUES (?, ?, ?, ?, ?, ?)");
    w->data = database_prepare(db, "INSERT INTO cov_data(path) VALUES (?)");
    w->run_data = database_prepare(db, "INSERT OR REPLACE INTO cov_run_data(run, data, source,"
                                       " hash, delta) VALUES (?, ?, ?, ?, ?)");
    w->done = database_prepare(db, "INSERT OR REPLACE INTO cov_runs(run, data_files, gcov_files,"
                                   " read_ms) VALUES (?, ?, ?, ?)");
    return w;
}

void store_cov_writer_close(struct store_cov_writer *w)
{
    sqlite3_stmt *statements[] = {w->line,       w->branch, w->function, w->line_hit,
                                  w->branch_hit, w->data,   w->run_data, w->done};
    for (size_t i = 0; i < sizeof statements / sizeof *statements; i++)
        database_finalize(statements[i]);
    free(w);
}

/* Binds `count` integers to parameters 1.., then runs the statement. */
static void run_with(sqlite3_stmt *statement, int count, const int64_t *values)
{
    for (int i = 0; i < count; i++)
        sqlite3_bind_int64(statement, i + 1, values[i]);
    database_step_done(statement);
}

int64_t store_cov_data_add(struct store_cov_writer *w, const char *build_path)
{
    sqlite3_bind_text(w->data, 1, build_path, -1, SQLITE_TRANSIENT);
    database_step_done(w->data);
    return sqlite3_last_insert_rowid(w->db);
}

void store_cov_line(struct store_cov_writer *w, int64_t file, int line)
{
    run_with(w->line, 2, (int64_t[]){file, line});
}

void store_cov_branch(struct store_cov_writer *w, int64_t file, int line, int branch)
{
    run_with(w->branch, 3, (int64_t[]){file, line, branch});
}

void store_cov_function(struct store_cov_writer *w, int64_t file, int start_line, int end_line,
                        const char *name)
{
    sqlite3_bind_int64(w->function, 1, file);
    sqlite3_bind_int64(w->function, 2, start_line);
    sqlite3_bind_int64(w->function, 3, end_line);
    sqlite3_bind_text(w->function, 4, name, -1, SQLITE_TRANSIENT);
    database_step_done(w->function);
}

void store_cov_line_hit(struct store_cov_writer *w, int64_t run, int64_t data, int64_t file,
                        int line, int64_t count)
{
    run_with(w->line_hit, 5, (int64_t[]){run, data, file, line, count});
}

void store_cov_branch_hit(struct store_cov_writer *w, int64_t run, int64_t data, int64_t file,
                          int line, int branch, int64_t count)
{
    run_with(w->branch_hit, 6, (int64_t[]){run, data, file, line, branch, count});
}

void store_cov_run_data(struct store_cov_writer *w, int64_t run, int64_t data, int64_t source,
                        int64_t hash, bool delta)
{
    run_with(w->run_data, 5, (int64_t[]){run, data, source, hash, delta});
}

void store_cov_run_read(struct store_cov_writer *w, int64_t run, int64_t data_files,
                        int64_t gcov_files, int64_t read_ms)
{
    run_with(w->done, 4, (int64_t[]){run, data_files, gcov_files, read_ms});
}
