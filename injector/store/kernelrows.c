/*
 * kernelrows.c — failrun kernel's rows per run (kernel_faults, kernel_allocs, kernel_cov,
 * kernel_legs, kernel_cov_done) and the report's counts over them (kernelrows.h).
 */
#include "store/kernelrows.h"
#include "base/util.h"
#include "store/database.h"

#include <stdlib.h>
#include <string.h>

/* ---- what an armed call did ---- */

void store_kernel_fault_add(sqlite3 *db, int64_t run, uint64_t nth, bool fired, bool call_failed,
                            int error, int64_t pid)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT OR REPLACE INTO kernel_faults(run, nth, fired, call_failed, errno, pid)"
            " VALUES (?, ?, ?, ?, ?, ?)");
    sqlite3_bind_int64(statement, 1, run);
    sqlite3_bind_int64(statement, 2, (sqlite3_int64)nth);
    sqlite3_bind_int(statement, 3, fired);
    sqlite3_bind_int(statement, 4, call_failed);
    sqlite3_bind_int(statement, 5, error);
    sqlite3_bind_int64(statement, 6, pid);
    database_step_done(statement);
    database_finalize(statement);
}

bool store_kernel_fault_of_run(sqlite3 *db, int64_t run, struct store_kernel_fault *out)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT nth, fired, call_failed, errno FROM kernel_faults WHERE run = ?");
    sqlite3_bind_int64(statement, 1, run);
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    if (found) {
        out->nth = sqlite3_column_int64(statement, 0);
        out->fired = sqlite3_column_int(statement, 1);
        out->call_failed = sqlite3_column_int(statement, 2);
        out->error = sqlite3_column_int(statement, 3);
    }
    database_finalize(statement);
    return found;
}

int64_t store_kernel_run_of_thread(sqlite3 *db, uint32_t pid, char site[17])
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT r.id, r.site FROM kernel_faults k JOIN runs r ON r.id = k.run"
            " WHERE k.pid = ? AND r.kind = 'fault' AND r.site IS NOT NULL LIMIT 2");
    sqlite3_bind_int64(statement, 1, pid);
    int64_t run = 0;
    int rows = 0;
    while (sqlite3_step(statement) == SQLITE_ROW) {
        rows++;
        run = sqlite3_column_int64(statement, 0);
        const char *text = (const char *)sqlite3_column_text(statement, 1);
        strncpy(site, text ? text : "", 16);
        site[16] = '\0';
    }
    database_finalize(statement);
    return rows == 1 ? run : 0;
}

void store_kernel_alloc_add(sqlite3 *db, int64_t run, const struct store_kernel_alloc *alloc)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT OR REPLACE INTO kernel_allocs(run, kind, call_site, frames, bytes_req,"
            " bytes_alloc, gfp, via_page, too_small, can_fail) VALUES (?,?,?,?,?,?,?,?,?,?)");
    sqlite3_bind_int64(statement, 1, run);
    sqlite3_bind_text(statement, 2, alloc->kind, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 3, alloc->call_site, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 4, alloc->frames, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 5, (sqlite3_int64)alloc->bytes_req);
    sqlite3_bind_int64(statement, 6, (sqlite3_int64)alloc->bytes_alloc);
    sqlite3_bind_int64(statement, 7, alloc->gfp);
    sqlite3_bind_int(statement, 8, alloc->via_page);
    sqlite3_bind_int(statement, 9, alloc->too_small);
    if (alloc->can_fail)
        sqlite3_bind_text(statement, 10, alloc->can_fail, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(statement, 10);
    database_step_done(statement);
    database_finalize(statement);
}

void store_kernel_alloc_of_run(sqlite3 *db, int64_t run,
                               void (*each)(const struct store_kernel_alloc *alloc, void *data),
                               void *data)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT kind, call_site, frames, bytes_req, bytes_alloc, gfp, via_page, too_small,"
            " can_fail FROM kernel_allocs WHERE run = ?");
    sqlite3_bind_int64(statement, 1, run);
    if (sqlite3_step(statement) == SQLITE_ROW) {
        struct store_kernel_alloc alloc = {
            .kind = (const char *)sqlite3_column_text(statement, 0),
            .call_site = (const char *)sqlite3_column_text(statement, 1),
            .frames = (const char *)sqlite3_column_text(statement, 2),
            .bytes_req = (uint64_t)sqlite3_column_int64(statement, 3),
            .bytes_alloc = (uint64_t)sqlite3_column_int64(statement, 4),
            .gfp = sqlite3_column_int64(statement, 5),
            .via_page = sqlite3_column_int(statement, 6),
            .too_small = sqlite3_column_int(statement, 7),
            .can_fail = (const char *)sqlite3_column_text(statement, 8),
        };
        each(&alloc, data);
    }
    database_finalize(statement);
}

/* ---- KCOV ---- */

void store_kernel_cov_add(sqlite3 *db, int64_t run, const uint64_t *pcs, size_t count)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT OR REPLACE INTO kernel_cov(run, pcs, count) VALUES (?, ?, ?)");
    sqlite3_bind_int64(statement, 1, run);
    sqlite3_bind_blob64(statement, 2, pcs, count * sizeof *pcs, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 3, (sqlite3_int64)count);
    database_step_done(statement);
    database_finalize(statement);
}

bool store_kernel_cov_present(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT 1 FROM kernel_cov LIMIT 1");
    bool present = sqlite3_step(statement) == SQLITE_ROW;
    database_finalize(statement);
    return present;
}

int store_kernel_cov_pending(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT COUNT(*) FROM kernel_cov c JOIN kernel_faults k ON k.run = c.run"
            " WHERE k.fired AND c.run NOT IN (SELECT run FROM kernel_cov_done)");
    int pending = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int(statement, 0) : 0;
    database_finalize(statement);
    return pending;
}

void store_kernel_cov_runs_each(sqlite3 *db,
                                void (*each)(const struct store_kernel_cov_run *run, void *data),
                                void *data)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT c.run, r.site, k.fired, c.pcs, c.run IN (SELECT run FROM kernel_cov_done)"
            " FROM kernel_cov c JOIN runs r ON r.id = c.run JOIN kernel_faults k ON k.run = c.run"
            " WHERE r.site IS NOT NULL ORDER BY r.site, c.run");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        struct store_kernel_cov_run run = {
            .run = sqlite3_column_int64(statement, 0),
            .site = (const char *)sqlite3_column_text(statement, 1),
            .fired = sqlite3_column_int(statement, 2),
            .done = sqlite3_column_int(statement, 4),
        };
        run.count = (size_t)sqlite3_column_bytes(statement, 3) / sizeof(uint64_t);
        run.pcs = sqlite3_column_blob(statement, 3);
        each(&run, data);
    }
    database_finalize(statement);
}

void store_kernel_legs_begin(sqlite3 *db)
{
    database_exec(db, "BEGIN");
}

void store_kernel_legs_commit(sqlite3 *db)
{
    database_exec(db, "COMMIT");
}

void store_kernel_leg_add(sqlite3 *db, const char *file, int64_t line, int64_t run,
                          const char *function)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT OR IGNORE INTO kernel_legs(file, line, run, function)"
            " VALUES (?, ?, ?, ?)");
    sqlite3_bind_text(statement, 1, file, -1, SQLITE_STATIC);
    sqlite3_bind_int64(statement, 2, line);
    sqlite3_bind_int64(statement, 3, run);
    if (function)
        sqlite3_bind_text(statement, 4, function, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(statement, 4);
    database_step_done(statement);
    database_finalize(statement);
}

void store_kernel_cov_done(sqlite3 *db, int64_t run, int64_t leg_pcs)
{
    sqlite3_stmt *statement =
        leg_pcs < 0 ? database_prepare(db, "INSERT OR REPLACE INTO kernel_cov_done(run, leg_pcs)"
                                           " VALUES (?, -1)")
                    : database_prepare(db, "INSERT OR REPLACE INTO kernel_cov_done(run, leg_pcs)"
                                           " VALUES (?, ?)");
    sqlite3_bind_int64(statement, 1, run);
    if (leg_pcs >= 0)
        sqlite3_bind_int64(statement, 2, leg_pcs);
    database_step_done(statement);
    database_finalize(statement);
}

/* The text of the first column of the one row of `sql`, NULL when none; malloc'ed. */
static char *campaign_text(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *statement = database_prepare(db, sql);
    char *text = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0)
                     ? xstrdup((const char *)sqlite3_column_text(statement, 0))
                     : NULL;
    database_finalize(statement);
    return text;
}

char *store_campaign_vmlinux(sqlite3 *db)
{
    return campaign_text(db, "SELECT vmlinux FROM campaign");
}

void store_campaign_set_vmlinux(sqlite3 *db, const char *path)
{
    sqlite3_stmt *statement = database_prepare(db, "UPDATE campaign SET vmlinux = ?");
    sqlite3_bind_text(statement, 1, path, -1, SQLITE_TRANSIENT);
    database_step_done(statement);
    database_finalize(statement);
}

char *store_campaign_kernel_build_id(sqlite3 *db)
{
    return campaign_text(db, "SELECT kernel_build_id FROM campaign");
}

json_t *store_kernel_leg_files(sqlite3 *db)
{
    json_t *files = json_array();
    json_t *file = NULL;
    const char *current = NULL;
    long long file_lines = 0, file_small = 0;
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT l.file, l.line, COUNT(*), MIN(l.function),"
            " SUM(COALESCE(a.too_small, 0) = 0) = 0"
            " FROM kernel_legs l LEFT JOIN kernel_allocs a ON a.run = l.run"
            " GROUP BY l.file, l.line ORDER BY l.file, l.line");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        const char *path = (const char *)sqlite3_column_text(statement, 0);
        if (!file || strcmp(path, current)) {
            if (file) {
                json_object_set_new(file, "legs", json_integer(file_lines));
                json_object_set_new(file, "only_too_small", json_integer(file_small));
            }
            file = json_pack("{s:s, s:[]}", "path", path, "lines");
            json_array_append_new(files, file);
            current = json_string_value(json_object_get(file, "path"));
            file_lines = file_small = 0;
        }
        const char *function = (const char *)sqlite3_column_text(statement, 3);
        bool small = sqlite3_column_int(statement, 4);
        json_array_append_new(
            json_object_get(file, "lines"),
            json_pack("{s:I, s:I, s:s?, s:b}", "line",
                      (json_int_t)sqlite3_column_int64(statement, 1), "runs",
                      (json_int_t)sqlite3_column_int64(statement, 2), "function", function,
                      "only_too_small", small));
        file_lines++;
        file_small += small;
    }
    if (file) {
        json_object_set_new(file, "legs", json_integer(file_lines));
        json_object_set_new(file, "only_too_small", json_integer(file_small));
    }
    database_finalize(statement);
    return files;
}

/* ---- the report's counts ---- */

bool store_kernel_legs_analysed(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT 1 FROM kernel_cov_done LIMIT 1");
    bool present = sqlite3_step(statement) == SQLITE_ROW;
    database_finalize(statement);
    return present;
}

void store_kernel_leg_counts_each(sqlite3 *db,
                                  void (*each)(const char *function, int64_t lines,
                                               int64_t only_too_small, void *data),
                                  void *data)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT s.function, COUNT(DISTINCT l.file || ':' || l.line),"
            " COUNT(DISTINCT CASE WHEN NOT EXISTS (SELECT 1 FROM kernel_legs o"
            "   LEFT JOIN kernel_allocs oa ON oa.run = o.run"
            "   WHERE o.file = l.file AND o.line = l.line AND COALESCE(oa.too_small, 0) = 0)"
            "  THEN l.file || ':' || l.line END)"
            " FROM kernel_legs l JOIN runs r ON r.id = l.run JOIN sites s ON s.id = r.site"
            " GROUP BY s.function");
    while (sqlite3_step(statement) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(statement, 0), sqlite3_column_int64(statement, 1),
             sqlite3_column_int64(statement, 2), data);
    database_finalize(statement);
}

void store_kernel_calls_each(sqlite3 *db,
                             void (*each)(const struct store_kernel_call *call, void *data),
                             void *data)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT s.function, COUNT(DISTINCT r.site), COALESCE(SUM(k.fired), 0),"
            " COALESCE(SUM(k.fired AND a.run IS NOT NULL), 0),"
            " COALESCE(SUM(k.fired AND a.too_small), 0),"
            " (SELECT COUNT(*) FROM findings f JOIN sites fs ON fs.id = f.site"
            "   WHERE fs.function = s.function AND f.outcome != 'kernel'),"
            " (SELECT COUNT(*) FROM findings f JOIN sites fs ON fs.id = f.site"
            "   WHERE fs.function = s.function AND f.outcome = 'kernel')"
            " FROM runs r JOIN kernel_faults k ON k.run = r.id JOIN sites s ON s.id = r.site"
            " LEFT JOIN kernel_allocs a ON a.run = r.id GROUP BY s.function ORDER BY s.function");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        struct store_kernel_call call = {
            .function = (const char *)sqlite3_column_text(statement, 0),
            .sites = sqlite3_column_int64(statement, 1),
            .fault_points = sqlite3_column_int64(statement, 2),
            .allocations_named = sqlite3_column_int64(statement, 3),
            .too_small = sqlite3_column_int64(statement, 4),
            .userspace_findings = sqlite3_column_int64(statement, 5),
            .kernel_findings = sqlite3_column_int64(statement, 6),
        };
        each(&call, data);
    }
    database_finalize(statement);
}

void store_kernel_leg_lines_each(sqlite3 *db,
                                 void (*each)(const char *file, bool only_too_small,
                                              bool can_fail, void *data),
                                 void *data)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT l.file, SUM(COALESCE(a.too_small, 0) = 0) = 0, SUM(a.too_small = 0) > 0"
            " FROM kernel_legs l LEFT JOIN kernel_allocs a ON a.run = l.run"
            " GROUP BY l.file, l.line");
    while (sqlite3_step(statement) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(statement, 0), sqlite3_column_int(statement, 1),
             sqlite3_column_int(statement, 2), data);
    database_finalize(statement);
}

bool store_kernel_call_counts(sqlite3 *db, int64_t *with_sites, int64_t *swept)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT (SELECT count(DISTINCT function) FROM sites),"
            " (SELECT count(DISTINCT s.function) FROM runs r JOIN sites s ON s.id = r.site"
            "  WHERE r.kind = 'fault')");
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    if (found) {
        *with_sites = sqlite3_column_int64(statement, 0);
        *swept = sqlite3_column_int64(statement, 1);
    }
    database_finalize(statement);
    return found;
}

void store_kernel_swept_sites_each(sqlite3 *db, void (*each)(const char *site, void *data),
                                   void *data)
{
    sqlite3_stmt *sites = database_prepare(
        db, "SELECT DISTINCT r.site FROM runs r JOIN kernel_faults k ON k.run = r.id"
            " ORDER BY r.id");
    while (sqlite3_step(sites) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(sites, 0), data);
    database_finalize(sites);
}

void store_kernel_sweep_runs_each(sqlite3 *db, const char *site,
                                  void (*each)(int64_t run, const char *outcome, void *data),
                                  void *data)
{
    sqlite3_stmt *runs = database_prepare(
        db, "SELECT r.id, r.outcome FROM runs r JOIN kernel_faults k ON k.run = r.id"
            " WHERE r.site = ? ORDER BY k.nth");
    sqlite3_bind_text(runs, 1, site, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(runs) == SQLITE_ROW)
        each(sqlite3_column_int64(runs, 0), (const char *)sqlite3_column_text(runs, 1), data);
    database_finalize(runs);
}
