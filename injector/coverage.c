/*
 * coverage.c — read each run's gcov data into the campaign database (see coverage.h).
 *
 * gcov needs a .gcno beside each .gcda: the run's prefix folder mirrors the build's absolute
 * paths (GCOV_PREFIX_STRIP=0), so the .gcno is the .gcda's path without the prefix, and a
 * symbolic link puts it in place. gcov runs once per run, on all its data files.
 */
#include "coverage.h"
#include "campaign.h"
#include "database.h"
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static VECTOR(char *) found_data; /* nftw has no user pointer */

static int collect_data_file(const char *path, const struct stat *info, int type,
                             struct FTW *where)
{
    (void)info;
    (void)where;
    size_t n = strlen(path);
    if (type == FTW_F && n > 5 && !strcmp(path + n - 5, ".gcda"))
        VECTOR_PUSH(found_data, xstrdup(path));
    return 0;
}

/* Link each data file's .gcno beside it; keep the files gcov can read. */
static size_t link_notes(const char *prefix, char **files, size_t count, int *missing)
{
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        char *notes = xstrdup(files[i] + strlen(prefix));
        strcpy(notes + strlen(notes) - 5, ".gcno");
        char *link = xstrdup(files[i]);
        strcpy(link + strlen(link) - 5, ".gcno");
        bool ok = access(notes, R_OK) == 0;
        if (ok) {
            unlink(link);
            ok = symlink(notes, link) == 0;
        }
        if (ok) {
            files[kept++] = files[i];
        } else {
            (*missing)++;
            free(files[i]);
        }
        free(notes);
        free(link);
    }
    return kept;
}

/* `gcov --json-format --stdout -b FILES...`: its standard output, NULL when it failed. */
static char *run_gcov(char **files, size_t count, size_t *length)
{
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0)
        fatal("cannot create a pipe for gcov: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        fatal("cannot start gcov: %s", strerror(errno));
    if (pid == 0) {
        char **argv = xcalloc(count + 5, sizeof *argv);
        argv[0] = "gcov";
        argv[1] = "--json-format";
        argv[2] = "--stdout";
        argv[3] = "-b";
        memcpy(argv + 4, files, count * sizeof *files);
        dup2(pipe_ends[1], 1);
        close(pipe_ends[0]);
        close(pipe_ends[1]);
        execvp("gcov", argv);
        fprintf(stderr, "failrun: cannot run gcov: %s; install gcc\n", strerror(errno));
        _exit(127);
    }
    close(pipe_ends[1]);
    VECTOR(char) output = {0};
    char buffer[65536];
    ssize_t got;
    while ((got = read(pipe_ends[0], buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR))
        for (ssize_t i = 0; i < got; i++)
            VECTOR_PUSH(output, buffer[i]);
    close(pipe_ends[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    VECTOR_PUSH(output, '\0');
    *length = output.count - 1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            fatal("gcov is not installed; install gcc (Debian package gcc)");
        warn("gcov failed on %s (exit %d); its data is skipped", files[0],
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        free(output.items);
        return NULL;
    }
    return output.items;
}

static int64_t file_id(sqlite3 *db, const char *directory, const char *name)
{
    char *joined = name[0] == '/' || !directory ? xstrdup(name)
                                                : xasprintf("%s/%s", directory, name);
    char *canonical = realpath(joined, NULL);
    const char *path = canonical ? canonical : joined;
    sqlite3_stmt *insert = database_prepare(db, "INSERT OR IGNORE INTO cov_files(path) VALUES (?)");
    sqlite3_bind_text(insert, 1, path, -1, SQLITE_TRANSIENT);
    database_step_done(insert);
    database_finalize(insert);
    sqlite3_stmt *select = database_prepare(db, "SELECT id FROM cov_files WHERE path = ?");
    sqlite3_bind_text(select, 1, path, -1, SQLITE_TRANSIENT);
    int64_t id = sqlite3_step(select) == SQLITE_ROW ? sqlite3_column_int64(select, 0) : 0;
    database_finalize(select);
    free(canonical);
    free(joined);
    return id;
}

struct statements {
    sqlite3_stmt *line, *line_hit, *branch, *branch_hit;
};

static void store_line(struct statements *s, int64_t run, int64_t file, json_t *line)
{
    json_int_t number = json_integer_value(json_object_get(line, "line_number"));
    json_int_t count = json_integer_value(json_object_get(line, "count"));
    if (number <= 0)
        return;
    sqlite3_bind_int64(s->line, 1, file);
    sqlite3_bind_int64(s->line, 2, number);
    database_step_done(s->line);
    if (count > 0) {
        sqlite3_bind_int64(s->line_hit, 1, run);
        sqlite3_bind_int64(s->line_hit, 2, file);
        sqlite3_bind_int64(s->line_hit, 3, number);
        sqlite3_bind_int64(s->line_hit, 4, count);
        database_step_done(s->line_hit);
    }
    size_t index;
    json_t *branch;
    json_array_foreach(json_object_get(line, "branches"), index, branch) {
        json_int_t taken = json_integer_value(json_object_get(branch, "count"));
        sqlite3_bind_int64(s->branch, 1, file);
        sqlite3_bind_int64(s->branch, 2, number);
        sqlite3_bind_int64(s->branch, 3, (sqlite3_int64)index);
        database_step_done(s->branch);
        if (taken > 0) {
            sqlite3_bind_int64(s->branch_hit, 1, run);
            sqlite3_bind_int64(s->branch_hit, 2, file);
            sqlite3_bind_int64(s->branch_hit, 3, number);
            sqlite3_bind_int64(s->branch_hit, 4, (sqlite3_int64)index);
            sqlite3_bind_int64(s->branch_hit, 5, taken);
            database_step_done(s->branch_hit);
        }
    }
}

int coverage_store_gcov_json(sqlite3 *db, int64_t run, const char *text, size_t length)
{
    struct statements s = {
        database_prepare(db, "INSERT OR IGNORE INTO cov_lines(file, line) VALUES (?, ?)"),
        database_prepare(db, "INSERT INTO cov_line_hits(run, file, line, count) VALUES (?, ?, ?, ?)"
                             " ON CONFLICT DO UPDATE SET count = count + excluded.count"),
        database_prepare(db, "INSERT OR IGNORE INTO cov_branches(file, line, branch)"
                             " VALUES (?, ?, ?)"),
        database_prepare(db, "INSERT INTO cov_branch_hits(run, file, line, branch, count)"
                             " VALUES (?, ?, ?, ?, ?)"
                             " ON CONFLICT DO UPDATE SET count = count + excluded.count"),
    };
    int documents = 0;
    size_t offset = 0;
    for (;;) {
        while (offset < length && strchr(" \t\r\n", text[offset]))
            offset++;
        if (offset >= length)
            break;
        json_error_t error;
        json_t *document = json_loadb(text + offset, length - offset, JSON_DISABLE_EOF_CHECK,
                                      &error);
        if (!document || !json_is_array(json_object_get(document, "files"))) {
            warn("gcov printed something that is not its JSON format (%s); skipped",
                 document ? "no files" : error.text);
            json_decref(document);
            documents = -1;
            break;
        }
        offset += error.position;
        const char *directory =
            json_string_value(json_object_get(document, "current_working_directory"));
        size_t index;
        json_t *file;
        json_array_foreach(json_object_get(document, "files"), index, file) {
            const char *name = json_string_value(json_object_get(file, "file"));
            if (!name)
                continue;
            int64_t id = file_id(db, directory, name);
            size_t at;
            json_t *line;
            json_array_foreach(json_object_get(file, "lines"), at, line)
                store_line(&s, run, id, line);
        }
        json_decref(document);
        documents++;
    }
    database_finalize(s.line);
    database_finalize(s.line_hit);
    database_finalize(s.branch);
    database_finalize(s.branch_hit);
    return documents;
}

static void read_run(sqlite3 *db, int64_t run, const char *dir, struct coverage_read_stats *stats)
{
    int64_t started = now_ms();
    char *prefix = coverage_directory(dir);
    found_data.count = 0;
    if (access(prefix, F_OK) == 0)
        nftw(prefix, collect_data_file, 16, FTW_PHYS);
    size_t count = link_notes(prefix, found_data.items, found_data.count, &stats->missing);
    char *output = NULL;
    size_t length = 0;
    if (count)
        output = run_gcov(found_data.items, count, &length);
    database_exec(db, "BEGIN IMMEDIATE");
    if (output)
        coverage_store_gcov_json(db, run, output, length);
    sqlite3_stmt *done = database_prepare(
        db, "INSERT OR REPLACE INTO cov_runs(run, data_files, read_ms) VALUES (?, ?, ?)");
    sqlite3_bind_int64(done, 1, run);
    sqlite3_bind_int64(done, 2, (sqlite3_int64)count);
    sqlite3_bind_int64(done, 3, now_ms() - started);
    database_step_done(done);
    database_finalize(done);
    database_exec(db, "COMMIT");
    /* Stored now: the run's gcov data (2 GB on jansson's suite) is not needed any more. */
    remove_tree(prefix);
    stats->runs++;
    stats->data_files += (int)count;
    for (size_t i = 0; i < count; i++)
        free(found_data.items[i]);
    found_data.count = 0;
    free(output);
    free(prefix);
}

bool coverage_read(sqlite3 *db, struct coverage_read_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    sqlite3_stmt *pending = database_prepare(
        db, "SELECT id, dir FROM runs WHERE state = 'done' AND dir IS NOT NULL"
            " AND id NOT IN (SELECT run FROM cov_runs) ORDER BY id");
    VECTOR(int64_t) ids = {0};
    VECTOR(char *) dirs = {0};
    while (sqlite3_step(pending) == SQLITE_ROW) {
        VECTOR_PUSH(ids, sqlite3_column_int64(pending, 0));
        VECTOR_PUSH(dirs, column_text(pending, 1));
    }
    database_finalize(pending);
    for (size_t i = 0; i < ids.count; i++) {
        read_run(db, ids.items[i], dirs.items[i], stats);
        free(dirs.items[i]);
    }
    free(ids.items);
    free(dirs.items);
    free(found_data.items);
    found_data.items = NULL;
    found_data.capacity = 0;
    sqlite3_stmt *any = database_prepare(db, "SELECT count(*) FROM cov_lines");
    bool some = sqlite3_step(any) == SQLITE_ROW && sqlite3_column_int64(any, 0) > 0;
    database_finalize(any);
    return some;
}
