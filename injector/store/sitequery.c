/*
 * sitequery.c — reads and marks of the stored sites for the parts above the store (see
 * sitequery.h): the queries only, the symbolising stays with their callers.
 */
#include "store/sitequery.h"
#include "store/database.h"

#include <string.h>

bool store_site_stack(sqlite3 *db, const char *site, char **frames, char **function,
                      int64_t *max_size)
{
    sqlite3_stmt *statement =
        database_prepare(db, "SELECT frames, function, max_size FROM sites WHERE id = ?");
    sqlite3_bind_text(statement, 1, site, -1, SQLITE_TRANSIENT);
    *frames = *function = NULL;
    *max_size = 0;
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    if (found) {
        *frames = column_text(statement, 0);
        *function = column_text(statement, 1);
        *max_size = sqlite3_column_int64(statement, 2);
    }
    database_finalize(statement);
    return found;
}

bool store_site_name_kind(sqlite3 *db, const char *site, char **name, char **kind)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT name, kind FROM sites WHERE id = ?");
    sqlite3_bind_text(statement, 1, site, -1, SQLITE_TRANSIENT);
    *name = *kind = NULL;
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    if (found) {
        *name = column_text(statement, 0);
        *kind = column_text(statement, 1);
    }
    database_finalize(statement);
    return found;
}

void store_site_frames_each(sqlite3 *db, void (*each)(void *context, const char *frames),
                            void *context)
{
    sqlite3_stmt *sites = database_prepare(db, "SELECT frames FROM sites");
    while (sqlite3_step(sites) == SQLITE_ROW)
        each(context, (const char *)sqlite3_column_text(sites, 0));
    database_finalize(sites);
}

void store_sites_mark_bookkeeping(sqlite3 *db,
                                  bool (*bookkeeping)(void *context, const char *frames,
                                                      char *function, size_t size),
                                  void *context)
{
    sqlite3_stmt *select =
        database_prepare(db, "SELECT id, frames FROM sites WHERE bookkeeping IS NULL");
    sqlite3_stmt *update = database_prepare(db, "UPDATE sites SET bookkeeping = ? WHERE id = ?");
    while (sqlite3_step(select) == SQLITE_ROW) {
        char function[256];
        if (!bookkeeping(context, (const char *)sqlite3_column_text(select, 1), function,
                         sizeof function))
            continue;
        sqlite3_bind_text(update, 1, function, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(update, 2, (const char *)sqlite3_column_text(select, 0), -1,
                          SQLITE_TRANSIENT);
        database_step_done(update);
    }
    database_finalize(update);
    database_finalize(select);
}

void store_sites_mark_source(sqlite3 *db, const struct store_site_source *how)
{
    sqlite3_stmt *select =
        database_prepare(db, "SELECT id, frames FROM sites WHERE source IS NULL");
    sqlite3_stmt *update =
        database_prepare(db, "UPDATE sites SET source = ?, outside_source = ? WHERE id = ?");
    while (sqlite3_step(select) == SQLITE_ROW) {
        char file[512];
        how->file_of(how->context, (const char *)sqlite3_column_text(select, 1), file,
                     sizeof file);
        sqlite3_bind_text(update, 1, file, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(update, 2, how->outside(how->context, file));
        sqlite3_bind_text(update, 3, (const char *)sqlite3_column_text(select, 0), -1,
                          SQLITE_TRANSIENT);
        database_step_done(update);
    }
    database_finalize(update);
    database_finalize(select);
}

void store_cov_sites_each(sqlite3 *db,
                          void (*each)(void *context, const struct store_cov_site *row),
                          void *context)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT id, function, max_size, nofail, name, frames,"
            " (SELECT count(*) FROM runs r WHERE r.site = s.id AND r.kind = 'fault'), kind"
            " FROM sites s ORDER BY rowid");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        struct store_cov_site row = {
            .id = (const char *)sqlite3_column_text(statement, 0),
            .function = (const char *)sqlite3_column_text(statement, 1),
            .max_size = sqlite3_column_int64(statement, 2),
            .nofail = sqlite3_column_int(statement, 3),
            .name = (const char *)sqlite3_column_text(statement, 4),
            .frames = (const char *)sqlite3_column_text(statement, 5),
            .fault_runs = sqlite3_column_int64(statement, 6),
            .kind = (const char *)sqlite3_column_text(statement, 7),
        };
        each(context, &row);
    }
    database_finalize(statement);
}
