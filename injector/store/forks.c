/*
 * forks.c — the programs of the baseline and their runs alone, and the fork phase's view of
 * the planned runs (forks.h).
 */
#include "store/forks.h"
#include "base/util.h"
#include "store/database.h"

#include <stdlib.h>

/* The forkable runs (forks.h), and of them those of `selector` (?1). */
/* A fork child's folder is named after its site, so a site forks in one program only: the
   runs --every-start adds in the other programs that reached it (runs.every_start) re-run. */
#define EVERY_START_RUN "every_start = 1"
#define FORKABLE_RUNS                                                                          \
    " FROM runs WHERE kind = 'fault' AND state = 'planned' AND dir IS NULL"                   \
    " AND site IS NOT NULL AND (chain = site || ':1'"                                          \
    " OR owner IN (SELECT id FROM temp.start_programs)) AND NOT " EVERY_START_RUN
#define OF_PROGRAM " AND (?1 = 0 OR owner = ?1 OR (?1 = -1 AND owner IS NULL))"

/* ---- programs ---- */

int64_t store_program_row(sqlite3 *db, const struct store_program_start *start)
{
    sqlite3_stmt *find = database_prepare(
        db, "SELECT id FROM programs WHERE exe = ? AND cwd = ? AND argv = ? AND environment = ?"
            " AND stdin_kind = ? AND stdin IS ?");
    sqlite3_bind_text(find, 1, start->exe, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(find, 2, start->cwd, -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(find, 3, start->argv, (int)start->argv_length, SQLITE_TRANSIENT);
    sqlite3_bind_blob(find, 4, start->environment, (int)start->environment_length,
                      SQLITE_TRANSIENT);
    sqlite3_bind_text(find, 5, start->stdin_kind, -1, SQLITE_TRANSIENT);
    bind_text_or_null(find, 6, start->stdin_path);
    int64_t id = sqlite3_step(find) == SQLITE_ROW ? sqlite3_column_int64(find, 0) : 0;
    database_finalize(find);
    if (id)
        return id;
    sqlite3_stmt *insert = database_prepare(
        db, "INSERT INTO programs(exe, cwd, argv, environment, stdin_kind, stdin, top, exit_code,"
            " signal) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)");
    sqlite3_bind_text(insert, 1, start->exe, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 2, start->cwd, -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(insert, 3, start->argv, (int)start->argv_length, SQLITE_TRANSIENT);
    sqlite3_bind_blob(insert, 4, start->environment, (int)start->environment_length,
                      SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 5, start->stdin_kind, -1, SQLITE_TRANSIENT);
    bind_text_or_null(insert, 6, start->stdin_path);
    database_step_done(insert);
    database_finalize(insert);
    return sqlite3_last_insert_rowid(db);
}

void store_program_ending(sqlite3 *db, int64_t program, bool top, bool exited, int exit_code,
                          int signal)
{
    sqlite3_stmt *statement = database_prepare(
        db, "UPDATE programs SET top = top OR ?, exit_code = coalesce(exit_code, ?),"
            " signal = coalesce(signal, ?) WHERE id = ?");
    sqlite3_bind_int(statement, 1, top);
    if (exited)
        sqlite3_bind_int(statement, 2, exit_code);
    sqlite3_bind_int(statement, 3, signal);
    sqlite3_bind_int64(statement, 4, program);
    database_step_done(statement);
    database_finalize(statement);
}

void store_program_site_add(sqlite3 *db, int64_t program, const char *site, bool in_scope)
{
    /* Out of scope: program_known, which only the start files read. */
    sqlite3_stmt *insert = database_prepare(
        db, in_scope ? "INSERT OR IGNORE INTO program_sites(program, site) VALUES (?, ?)"
                     : "INSERT OR IGNORE INTO program_known(program, site) VALUES (?, ?)");
    sqlite3_bind_int64(insert, 1, program);
    sqlite3_bind_text(insert, 2, site, -1, SQLITE_TRANSIENT);
    database_step_done(insert);
    database_finalize(insert);
}

bool store_program_load(sqlite3 *db, int64_t id,
                        void (*each)(const struct store_program *program, void *data), void *data)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT exe, cwd, argv, environment, stdin_kind, stdin, top, exit_code,"
            " signal, alone, alone_stdout, alone_stderr, alone_wall_ms, alone_live"
            " FROM programs WHERE id = ?");
    sqlite3_bind_int64(statement, 1, id);
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    if (found) {
        struct store_program program = {
            .exe = (const char *)sqlite3_column_text(statement, 0),
            .cwd = (const char *)sqlite3_column_text(statement, 1),
            .argv = sqlite3_column_blob(statement, 2),
            .argv_length = sqlite3_column_bytes(statement, 2),
            .environment = sqlite3_column_blob(statement, 3),
            .environment_length = sqlite3_column_bytes(statement, 3),
            .stdin_kind = (const char *)sqlite3_column_text(statement, 4),
            .stdin_path = (const char *)sqlite3_column_text(statement, 5),
            .top = sqlite3_column_int(statement, 6),
            .exit_code = sqlite3_column_int(statement, 7),
            .signal = sqlite3_column_int(statement, 8),
            .alone = sqlite3_column_type(statement, 9) != SQLITE_NULL
                         ? (const char *)sqlite3_column_text(statement, 9)
                         : NULL,
            .alone_stdout = (uint64_t)sqlite3_column_int64(statement, 10),
            .alone_stderr = (uint64_t)sqlite3_column_int64(statement, 11),
            .alone_wall_ms = sqlite3_column_int64(statement, 12),
            .alone_live = (const char *)sqlite3_column_text(statement, 13),
        };
        each(&program, data);
    }
    database_finalize(statement);
    return found;
}

void store_programs_at_each(sqlite3 *db, const char *exe, const char *cwd,
                            bool (*each)(const void *argv, int argv_length,
                                         const void *environment, int environment_length,
                                         void *data),
                            void *data)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT argv, environment FROM programs WHERE exe = ? AND cwd = ? ORDER BY id");
    sqlite3_bind_text(statement, 1, exe, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 2, cwd, -1, SQLITE_TRANSIENT);
    bool done = false;
    while (!done && sqlite3_step(statement) == SQLITE_ROW)
        done = each(sqlite3_column_blob(statement, 0), sqlite3_column_bytes(statement, 0),
                    sqlite3_column_blob(statement, 1), sqlite3_column_bytes(statement, 1), data);
    database_finalize(statement);
}

int64_t store_site_owner(sqlite3 *db, const char *site, size_t length)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT owner FROM sites WHERE id = ?");
    sqlite3_bind_text(statement, 1, site, (int)length, SQLITE_TRANSIENT);
    int64_t owner = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return owner;
}

void store_program_verdict(sqlite3 *db, int64_t program, const char *alone, uint64_t stdout_hash,
                           uint64_t stderr_hash, int64_t wall_ms, const char *live,
                           const char *alone_dir)
{
    sqlite3_stmt *statement = database_prepare(
        db, "UPDATE programs SET alone = ?, alone_stdout = ?, alone_stderr = ?, alone_wall_ms = ?,"
            " alone_live = ?, alone_dir = ? WHERE id = ?");
    sqlite3_bind_text(statement, 1, alone, -1, SQLITE_TRANSIENT);
    if (stdout_hash)
        sqlite3_bind_int64(statement, 2, (sqlite3_int64)stdout_hash);
    if (stderr_hash)
        sqlite3_bind_int64(statement, 3, (sqlite3_int64)stderr_hash);
    sqlite3_bind_int64(statement, 4, wall_ms);
    bind_text_or_null(statement, 5, live);
    bind_text_or_null(statement, 6, alone_dir);
    sqlite3_bind_int64(statement, 7, program);
    database_step_done(statement);
    database_finalize(statement);
}

int64_t store_every_start_runs_count(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT count(*) FROM runs WHERE kind = 'fault' AND " EVERY_START_RUN);
    int64_t count = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return count;
}

void store_program_runs_release(sqlite3 *db, int64_t program)
{
    /* --every-start's runs in the program: in the whole command they would fail the site where
       its owner does, as its first run does already. */
    sqlite3_stmt *drop = database_prepare(
        db, "DELETE FROM runs WHERE owner = ? AND state = 'planned' AND " EVERY_START_RUN);
    sqlite3_bind_int64(drop, 1, program);
    database_step_done(drop);
    database_finalize(drop);
    sqlite3_stmt *release = database_prepare(
        db, "UPDATE runs SET owner = NULL WHERE owner = ? AND state = 'planned'");
    sqlite3_bind_int64(release, 1, program);
    database_step_done(release);
    database_finalize(release);
}

/* Each row's id (its first column) of `sql`, with `program` bound first when not 0. */
static void ids_each(sqlite3 *db, const char *sql, int64_t program,
                     void (*each)(int64_t id, void *data), void *data)
{
    sqlite3_stmt *statement = database_prepare(db, sql);
    if (program)
        sqlite3_bind_int64(statement, 1, program);
    while (sqlite3_step(statement) == SQLITE_ROW)
        each(sqlite3_column_int64(statement, 0), data);
    database_finalize(statement);
}

/* Each row's text (its first column) of `sql`, with `value` bound first. */
static void texts_each(sqlite3 *db, const char *sql, int64_t value,
                       void (*each)(const char *text, void *data), void *data)
{
    sqlite3_stmt *statement = database_prepare(db, sql);
    sqlite3_bind_int64(statement, 1, value);
    while (sqlite3_step(statement) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(statement, 0), data);
    database_finalize(statement);
}

void store_programs_unchecked_each(sqlite3 *db, void (*each)(int64_t program, void *data),
                                   void *data)
{
    ids_each(db, "SELECT DISTINCT r.owner FROM runs r JOIN programs p ON p.id = r.owner"
                 " WHERE r.state = 'planned' AND p.alone IS NULL ORDER BY r.owner",
             0, each, data);
}

void store_program_known_sites_each(sqlite3 *db, int64_t program,
                                    void (*each)(const char *site, int64_t max_size, void *data),
                                    void *data)
{
    sqlite3_stmt *sites = database_prepare(
        db, "SELECT id, max_size FROM sites WHERE kind <> 'syscall' AND (owner = ?1 OR id IN"
            " (SELECT site FROM program_sites WHERE program = ?1))"
            " UNION ALL SELECT site, -1 FROM program_known WHERE program = ?1"
            " AND site NOT IN (SELECT id FROM sites)");
    sqlite3_bind_int64(sites, 1, program);
    while (sqlite3_step(sites) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(sites, 0), sqlite3_column_int64(sites, 1), data);
    database_finalize(sites);
}

void store_program_expected_sites_each(sqlite3 *db, int64_t program,
                                       void (*each)(const char *site, void *data), void *data)
{
    texts_each(db,
               "SELECT site FROM program_sites WHERE program = ?1"
               " AND site IN (SELECT site FROM runs)"
               " UNION SELECT id FROM sites WHERE owner = ?1 AND id IN (SELECT site FROM runs)",
               program, each, data);
}

void store_programs_not_alone_each(sqlite3 *db, void (*each)(int64_t program, void *data),
                                   void *data)
{
    ids_each(db, "SELECT id FROM programs WHERE alone IS NOT NULL AND alone <> 'yes'"
                 " ORDER BY id",
             0, each, data);
}

/* ---- the baseline's processes ---- */

int64_t store_program_start_ordinal(sqlite3 *db, const char *exe, int64_t program)
{
    sqlite3_stmt *place = database_prepare(
        db, "SELECT count(*) FROM processes p JOIN runs r ON r.id = p.run"
            " WHERE r.kind = 'baseline' AND p.exe = ?1 AND p.forked = 0 AND p.pid <"
            " (SELECT min(q.pid) FROM processes q JOIN runs s ON s.id = q.run"
            "  WHERE s.kind = 'baseline' AND q.program = ?2 AND q.forked = 0)");
    sqlite3_bind_text(place, 1, exe, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(place, 2, program);
    int64_t ordinal = sqlite3_step(place) == SQLITE_ROW ? sqlite3_column_int64(place, 0) : -1;
    database_finalize(place);
    return ordinal;
}

char *store_program_command_line(sqlite3 *db, int64_t program)
{
    sqlite3_stmt *line = database_prepare(
        db, "SELECT p.command_line FROM processes p JOIN runs r ON r.id = p.run"
            " WHERE r.kind = 'baseline' AND p.program = ? AND p.forked = 0 LIMIT 1");
    sqlite3_bind_int64(line, 1, program);
    char *hash = sqlite3_step(line) == SQLITE_ROW ? column_text(line, 0) : NULL;
    database_finalize(line);
    return hash;
}

int64_t store_baseline_wall_ms(sqlite3 *db)
{
    sqlite3_stmt *wall = database_prepare(db, "SELECT baseline_wall_ms FROM campaign");
    int64_t wall_ms = sqlite3_step(wall) == SQLITE_ROW ? sqlite3_column_int64(wall, 0) : 0;
    database_finalize(wall);
    return wall_ms;
}

void store_baseline_stdout_forget(sqlite3 *db)
{
    database_exec(db, "UPDATE campaign SET baseline_stdout = NULL");
}

void store_baseline_stderr_forget(sqlite3 *db)
{
    database_exec(db, "UPDATE campaign SET baseline_stderr = NULL");
}

/* ---- the fork phase ---- */

void store_start_programs_create(sqlite3 *db)
{
    database_exec(db, "CREATE TEMP TABLE IF NOT EXISTS start_programs"
                      "(id INTEGER PRIMARY KEY)");
}

/* Steps `sql` with `value` bound first; the rows it changed. */
static int64_t change(sqlite3 *db, const char *sql, int64_t value)
{
    sqlite3_stmt *statement = database_prepare(db, sql);
    sqlite3_bind_int64(statement, 1, value);
    database_step_done(statement);
    int64_t changed = sqlite3_changes(db);
    database_finalize(statement);
    return changed;
}

void store_start_program_mark(sqlite3 *db, int64_t program)
{
    change(db, "INSERT OR IGNORE INTO temp.start_programs(id) VALUES (?)", program);
}

void store_start_program_unmark(sqlite3 *db, int64_t program)
{
    change(db, "DELETE FROM temp.start_programs WHERE id = ?", program);
}

int64_t store_fork_runs_lend(sqlite3 *db, int64_t program)
{
    return change(db, "UPDATE runs SET owner = ?1 WHERE kind = 'fault' AND state = 'planned'"
                      " AND dir IS NULL AND site IS NOT NULL AND owner IS NULL"
                      " AND substr(chain, 1, 16) IN"
                      " (SELECT site FROM program_sites WHERE program = ?1)",
                  program);
}

int64_t store_fork_runs_count(sqlite3 *db, int64_t selector)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT count(*)" FORKABLE_RUNS OF_PROGRAM);
    sqlite3_bind_int64(statement, 1, selector);
    int64_t count = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return count;
}

void store_fork_runs_each(sqlite3 *db, int64_t selector,
                          void (*each)(const struct store_fork_run *run, void *data), void *data)
{
    sqlite3_stmt *runs = database_prepare(
        db, "SELECT id, site, chain, plan" FORKABLE_RUNS OF_PROGRAM " ORDER BY id");
    sqlite3_bind_int64(runs, 1, selector);
    while (sqlite3_step(runs) == SQLITE_ROW) {
        struct store_fork_run run = {
            .id = sqlite3_column_int64(runs, 0),
            .site = (const char *)sqlite3_column_text(runs, 1),
            .chain = (const char *)sqlite3_column_text(runs, 2),
            .plan = (const char *)sqlite3_column_text(runs, 3),
        };
        each(&run, data);
    }
    database_finalize(runs);
}

void store_fork_run_sites_each(sqlite3 *db, int64_t selector,
                               void (*each)(const char *site, void *data), void *data)
{
    texts_each(db, "SELECT site" FORKABLE_RUNS OF_PROGRAM, selector, each, data);
}

void store_fork_run_owners_each(sqlite3 *db, void (*each)(int64_t program, void *data),
                                void *data)
{
    ids_each(db, "SELECT DISTINCT owner" FORKABLE_RUNS " AND owner IS NOT NULL ORDER BY owner", 0,
             each, data);
}

void store_sites_not_forkable_each(sqlite3 *db, int64_t selector,
                                   void (*each)(const char *site, void *data), void *data)
{
    texts_each(db, "SELECT id FROM sites WHERE id NOT IN (SELECT site" FORKABLE_RUNS OF_PROGRAM ")",
               selector, each, data);
}

void store_fork_runs_tried(sqlite3 *db, int64_t selector, const char *dir)
{
    sqlite3_stmt *tried = database_prepare(
        db, "UPDATE runs SET dir = ?2 WHERE id IN (SELECT id" FORKABLE_RUNS OF_PROGRAM ")");
    sqlite3_bind_int64(tried, 1, selector);
    sqlite3_bind_text(tried, 2, dir, -1, SQLITE_TRANSIENT);
    database_step_done(tried);
    database_finalize(tried);
}

bool store_dir_of_no_run(sqlite3 *db, const char *path, size_t length)
{
    sqlite3_stmt *kept = database_prepare(db, "SELECT count(*) FROM runs WHERE dir = ?");
    sqlite3_bind_text(kept, 1, path, (int)length, SQLITE_TRANSIENT);
    bool none = sqlite3_step(kept) == SQLITE_ROW && sqlite3_column_int(kept, 0) == 0;
    database_finalize(kept);
    return none;
}

void store_fork_note_add(sqlite3 *db, const char *note)
{
    sqlite3_stmt *statement = database_prepare(
        db, "UPDATE campaign SET fork_note = CASE WHEN fork_note IS NULL OR fork_note = ''"
            " THEN ?1 WHEN instr(fork_note, ?1) THEN fork_note"
            " ELSE fork_note || char(10) || ?1 END");
    sqlite3_bind_text(statement, 1, note, -1, SQLITE_TRANSIENT);
    database_step_done(statement);
    database_finalize(statement);
}
