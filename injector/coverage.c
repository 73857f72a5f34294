/*
 * coverage.c — read each run's gcov data into the campaign database (see coverage.h).
 *
 * gcov needs a .gcno beside each .gcda: the run's prefix folder mirrors the build's absolute
 * paths (GCOV_PREFIX_STRIP=0), so the .gcno is the .gcda's path without the prefix, and a
 * symbolic link puts it in place.
 *
 * Speed: failrun cov reads every run of a campaign, thousands of them at suite scale, and most
 * of a fault run's data files are byte for byte the baseline's (the failure changed nothing in
 * them). Identical bytes mean identical counts, so such a file is only noted (cov_run_data,
 * same = 1): no gcov, no rows. The others go to gcov in batches spanning many runs, because
 * starting gcov costs more than reading a small data file. The lines, branches and functions a
 * data file instruments are stored once, the first time it is read; after that a run stores
 * only its non-zero counts, per data file (a header's lines can come from several).
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

/* Data files per gcov process, and runs per transaction. */
#define GCOV_BATCH_FILES 256
#define BATCH_RUNS 64

static VECTOR(char *) found_data; /* nftw has no user pointer */

static int collect_data_file(const char *path, const struct stat *info, int type,
                             struct FTW *where)
{
    (void)where;
    size_t n = strlen(path);
    /* An empty one is what a process left when it died while writing it: no data. */
    if (type == FTW_F && info->st_size > 0 && n > 5 && !strcmp(path + n - 5, ".gcda"))
        VECTOR_PUSH(found_data, xstrdup(path));
    return 0;
}

/* Link the data file's .gcno beside it; false when the build no longer has it. */
static bool link_notes(const char *prefix, const char *file)
{
    char *notes = xstrdup(file + strlen(prefix));
    strcpy(notes + strlen(notes) - 5, ".gcno");
    char *link = xstrdup(file);
    strcpy(link + strlen(link) - 5, ".gcno");
    bool ok = access(notes, R_OK) == 0;
    if (ok) {
        unlink(link);
        ok = symlink(notes, link) == 0;
    }
    free(notes);
    free(link);
    return ok;
}

/* `gcov --json-format --stdout -b FILES...`: its standard output. gcov goes on past a file it
   cannot read (it says so on standard error and exits 2), so what it printed is kept. */
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
    while ((got = read(pipe_ends[0], buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR)) {
        if (got <= 0)
            continue;
        while (output.count + (size_t)got + 1 > output.capacity) {
            output.capacity = output.capacity ? output.capacity * 2 : sizeof buffer;
            output.items = xrealloc(output.items, output.capacity);
        }
        memcpy(output.items + output.count, buffer, (size_t)got);
        output.count += (size_t)got;
    }
    close(pipe_ends[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    VECTOR_PUSH(output, '\0');
    *length = output.count - 1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        fatal("gcov is not installed; install gcc (Debian package gcc)");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        warn("gcov could not read some of %zu data file(s) (exit %d; see above); the others "
             "are read", count, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return output.items;
}

/* ---- storing gcov's JSON ---- */

struct store {
    sqlite3 *db;
    json_t *file_ids; /* source path as gcov names it (joined to its folder) -> cov_files id */
    json_t *data_ids; /* build path of a .gcda -> cov_data id; present = its lines are stored */
    sqlite3_stmt *line, *branch, *function, *line_hit, *branch_hit, *data, *run_data;
};

static void store_open(struct store *s, sqlite3 *db)
{
    s->db = db;
    s->file_ids = json_object();
    s->data_ids = json_object();
    s->line = database_prepare(db, "INSERT OR IGNORE INTO cov_lines(file, line) VALUES (?, ?)");
    s->branch = database_prepare(db, "INSERT OR IGNORE INTO cov_branches(file, line, branch)"
                                     " VALUES (?, ?, ?)");
    s->function = database_prepare(db, "INSERT OR IGNORE INTO cov_functions(file, start_line,"
                                       " end_line, name) VALUES (?, ?, ?, ?)");
    s->line_hit = database_prepare(db, "INSERT INTO cov_line_hits(run, data, file, line, count)"
                                       " VALUES (?, ?, ?, ?, ?)"
                                       " ON CONFLICT DO UPDATE SET count = count + excluded.count");
    s->branch_hit = database_prepare(
        db, "INSERT INTO cov_branch_hits(run, data, file, line, branch, count)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET count = count + excluded.count");
    s->data = database_prepare(db, "INSERT INTO cov_data(path) VALUES (?)");
    s->run_data = database_prepare(db, "INSERT OR REPLACE INTO cov_run_data(run, data, same)"
                                       " VALUES (?, ?, ?)");
    sqlite3_stmt *known = database_prepare(db, "SELECT path, id FROM cov_data");
    while (sqlite3_step(known) == SQLITE_ROW)
        json_object_set_new(s->data_ids, (const char *)sqlite3_column_text(known, 0),
                            json_integer(sqlite3_column_int64(known, 1)));
    sqlite3_finalize(known);
}

static void store_close(struct store *s)
{
    sqlite3_stmt *statements[] = {s->line,     s->branch, s->function, s->line_hit,
                                  s->branch_hit, s->data, s->run_data};
    for (size_t i = 0; i < sizeof statements / sizeof *statements; i++)
        sqlite3_finalize(statements[i]);
    json_decref(s->file_ids);
    json_decref(s->data_ids);
}

static int64_t file_id(struct store *s, const char *directory, const char *name)
{
    char *joined = name[0] == '/' || !directory ? xstrdup(name)
                                                : xasprintf("%s/%s", directory, name);
    json_t *cached = json_object_get(s->file_ids, joined);
    if (cached) {
        free(joined);
        return json_integer_value(cached);
    }
    char *canonical = realpath(joined, NULL);
    const char *path = canonical ? canonical : joined;
    sqlite3_stmt *insert = database_prepare(s->db, "INSERT OR IGNORE INTO cov_files(path) VALUES (?)");
    sqlite3_bind_text(insert, 1, path, -1, SQLITE_TRANSIENT);
    database_step_done(insert);
    sqlite3_finalize(insert);
    sqlite3_stmt *select = database_prepare(s->db, "SELECT id FROM cov_files WHERE path = ?");
    sqlite3_bind_text(select, 1, path, -1, SQLITE_TRANSIENT);
    int64_t id = sqlite3_step(select) == SQLITE_ROW ? sqlite3_column_int64(select, 0) : 0;
    sqlite3_finalize(select);
    json_object_set_new(s->file_ids, joined, json_integer(id));
    free(canonical);
    free(joined);
    return id;
}

/* The cov_data id of a data file; *first is set when it is new (its lines are to be stored). */
static int64_t data_id(struct store *s, const char *build_path, bool *first)
{
    json_t *known = json_object_get(s->data_ids, build_path);
    *first = !known;
    if (known)
        return json_integer_value(known);
    sqlite3_bind_text(s->data, 1, build_path, -1, SQLITE_TRANSIENT);
    database_step_done(s->data);
    int64_t id = sqlite3_last_insert_rowid(s->db);
    json_object_set_new(s->data_ids, build_path, json_integer(id));
    return id;
}

static void bind_ints(sqlite3_stmt *statement, int count, const int64_t *values)
{
    for (int i = 0; i < count; i++)
        sqlite3_bind_int64(statement, i + 1, values[i]);
}

static void store_line(struct store *s, int64_t run, int64_t data, int64_t file, json_t *line,
                       bool structure)
{
    json_int_t number = json_integer_value(json_object_get(line, "line_number"));
    json_int_t count = json_integer_value(json_object_get(line, "count"));
    if (number <= 0)
        return;
    if (structure) {
        bind_ints(s->line, 2, (int64_t[]){file, number});
        database_step_done(s->line);
    }
    if (count > 0) {
        bind_ints(s->line_hit, 5, (int64_t[]){run, data, file, number, count});
        database_step_done(s->line_hit);
    }
    size_t index;
    json_t *branch;
    json_array_foreach(json_object_get(line, "branches"), index, branch) {
        json_int_t taken = json_integer_value(json_object_get(branch, "count"));
        if (structure) {
            bind_ints(s->branch, 3, (int64_t[]){file, number, (int64_t)index});
            database_step_done(s->branch);
        }
        if (taken > 0) {
            bind_ints(s->branch_hit, 6, (int64_t[]){run, data, file, number, (int64_t)index, taken});
            database_step_done(s->branch_hit);
        }
    }
}

static void store_functions(struct store *s, int64_t file, json_t *functions)
{
    size_t index;
    json_t *function;
    json_array_foreach(functions, index, function) {
        json_int_t start = json_integer_value(json_object_get(function, "start_line"));
        json_int_t end = json_integer_value(json_object_get(function, "end_line"));
        const char *name = json_string_value(json_object_get(function, "name"));
        if (start <= 0 || end < start)
            continue;
        bind_ints(s->function, 3, (int64_t[]){file, start, end});
        sqlite3_bind_text(s->function, 4, name ? name : "", -1, SQLITE_TRANSIENT);
        database_step_done(s->function);
    }
}

/* One document of gcov's output (one data file) as `run`'s counts; `prefix` is stripped from its
   data file's name to give the build path. */
static void store_document(struct store *s, int64_t run, const char *prefix, json_t *document)
{
    const char *data_file = json_string_value(json_object_get(document, "data_file"));
    size_t prefix_length = prefix ? strlen(prefix) : 0;
    if (!data_file)
        data_file = "?";
    else if (prefix_length && !strncmp(data_file, prefix, prefix_length))
        data_file += prefix_length;
    bool structure = false;
    int64_t data = data_id(s, data_file, &structure);
    const char *directory =
        json_string_value(json_object_get(document, "current_working_directory"));
    size_t index;
    json_t *file;
    json_array_foreach(json_object_get(document, "files"), index, file) {
        const char *name = json_string_value(json_object_get(file, "file"));
        if (!name)
            continue;
        int64_t id = file_id(s, directory, name);
        if (structure)
            store_functions(s, id, json_object_get(file, "functions"));
        size_t at;
        json_t *line;
        json_array_foreach(json_object_get(file, "lines"), at, line)
            store_line(s, run, data, id, line, structure);
    }
    bind_ints(s->run_data, 3, (int64_t[]){run, data, 0});
    database_step_done(s->run_data);
}

/* Calls `each` on every JSON document of gcov's output; the number read, -1 on malformed text. */
static int for_each_document(const char *text, size_t length,
                             void (*each)(json_t *document, void *context), void *context)
{
    int documents = 0;
    size_t offset = 0;
    for (;;) {
        while (offset < length && strchr(" \t\r\n", text[offset]))
            offset++;
        if (offset >= length)
            return documents;
        json_error_t error;
        json_t *document = json_loadb(text + offset, length - offset, JSON_DISABLE_EOF_CHECK,
                                      &error);
        if (!document || !json_is_array(json_object_get(document, "files"))) {
            warn("gcov printed something that is not its JSON format (%s); skipped",
                 document ? "no files" : error.text);
            json_decref(document);
            return -1;
        }
        offset += error.position;
        each(document, context);
        json_decref(document);
        documents++;
    }
}

struct single_run {
    struct store *store;
    int64_t run;
};

static void store_for_single_run(json_t *document, void *context)
{
    struct single_run *target = context;
    store_document(target->store, target->run, NULL, document);
}

int coverage_store_gcov_json(sqlite3 *db, int64_t run, const char *text, size_t length)
{
    struct store s;
    store_open(&s, db);
    struct single_run target = {&s, run};
    int documents = for_each_document(text, length, store_for_single_run, &target);
    store_close(&s);
    return documents;
}

/* ---- reading the runs ---- */

struct data_file {
    size_t run;  /* index in the batch */
    char *path;  /* in the run's prefix folder */
    bool same;   /* bytes equal to the baseline's copy */
};

struct pending_run {
    int64_t id;
    char *prefix;
    size_t data_files, gcov_files;
};

struct batch {
    VECTOR(struct pending_run) runs;
    VECTOR(struct data_file) files;
    json_t *by_path; /* path of a file sent to gcov -> its index in files */
};

static bool same_bytes(const char *path, const char *other_path)
{
    size_t length = 0, other_length = 0;
    char *bytes = read_whole_file(path, &length);
    char *other = bytes ? read_whole_file(other_path, &other_length) : NULL;
    bool same = other && length == other_length && !memcmp(bytes, other, length);
    free(bytes);
    free(other);
    return same;
}

/* Finds the run's data files and decides which of them gcov must read. */
static void add_run(struct batch *batch, int64_t id, const char *dir, const char *baseline_prefix,
                    struct coverage_read_stats *stats)
{
    struct pending_run run = {.id = id, .prefix = coverage_directory(dir)};
    found_data.count = 0;
    if (access(run.prefix, F_OK) == 0)
        nftw(run.prefix, collect_data_file, 16, FTW_PHYS);
    for (size_t i = 0; i < found_data.count; i++) {
        char *path = found_data.items[i];
        const char *build_path = path + strlen(run.prefix);
        char *reference = baseline_prefix ? xasprintf("%s%s", baseline_prefix, build_path) : NULL;
        struct data_file file = {.run = batch->runs.count, .path = path};
        file.same = reference && strcmp(reference, path) && same_bytes(path, reference);
        free(reference);
        if (!file.same && !link_notes(run.prefix, path)) {
            stats->missing++;
            free(path);
            continue;
        }
        run.data_files++;
        if (!file.same) {
            run.gcov_files++;
            json_object_set_new(batch->by_path, path, json_integer((json_int_t)batch->files.count));
        }
        VECTOR_PUSH(batch->files, file);
    }
    found_data.count = 0;
    VECTOR_PUSH(batch->runs, run);
}

struct batch_target {
    struct store *store;
    struct batch *batch;
};

static void store_for_batch(json_t *document, void *context)
{
    struct batch_target *target = context;
    const char *data_file = json_string_value(json_object_get(document, "data_file"));
    json_t *index = data_file ? json_object_get(target->batch->by_path, data_file) : NULL;
    if (!index)
        return;
    struct data_file *file = &target->batch->files.items[json_integer_value(index)];
    struct pending_run *run = &target->batch->runs.items[file->run];
    store_document(target->store, run->id, run->prefix, document);
}

/* gcov on the batch's files that differ from the baseline's; then, in one transaction, their
   counts, the files that are the baseline's, and each run marked read. */
static void read_batch(sqlite3 *db, struct batch *batch, struct coverage_read_stats *stats)
{
    int64_t started = now_ms();
    VECTOR(char *) gcov_files = {0};
    for (size_t i = 0; i < batch->files.count; i++)
        if (!batch->files.items[i].same)
            VECTOR_PUSH(gcov_files, batch->files.items[i].path);
    VECTOR(char *) outputs = {0};
    VECTOR(size_t) lengths = {0};
    for (size_t i = 0; i < gcov_files.count; i += GCOV_BATCH_FILES) {
        size_t count = gcov_files.count - i < GCOV_BATCH_FILES ? gcov_files.count - i
                                                               : GCOV_BATCH_FILES;
        size_t length = 0;
        char *output = run_gcov(gcov_files.items + i, count, &length);
        if (output) {
            VECTOR_PUSH(outputs, output);
            VECTOR_PUSH(lengths, length);
        }
    }
    database_exec(db, "BEGIN IMMEDIATE");
    /* A run read again (its cov_runs row removed by hand) starts from nothing. */
    for (size_t i = 0; i < batch->runs.count; i++) {
        char *sql = sqlite3_mprintf("DELETE FROM cov_line_hits WHERE run = %lld;"
                                    "DELETE FROM cov_branch_hits WHERE run = %lld;"
                                    "DELETE FROM cov_run_data WHERE run = %lld;",
                                    (long long)batch->runs.items[i].id,
                                    (long long)batch->runs.items[i].id,
                                    (long long)batch->runs.items[i].id);
        database_exec(db, sql);
        sqlite3_free(sql);
    }
    struct store s;
    store_open(&s, db);
    struct batch_target target = {&s, batch};
    for (size_t i = 0; i < outputs.count; i++)
        for_each_document(outputs.items[i], lengths.items[i], store_for_batch, &target);
    for (size_t i = 0; i < batch->files.count; i++) {
        struct data_file *file = &batch->files.items[i];
        struct pending_run *run = &batch->runs.items[file->run];
        json_t *known = json_object_get(s.data_ids, file->path + strlen(run->prefix));
        if (!file->same || !known)
            continue; /* read above; or the baseline's copy was unreadable: nothing to reuse */
        bind_ints(s.run_data, 3, (int64_t[]){run->id, json_integer_value(known), 1});
        database_step_done(s.run_data);
    }
    int64_t per_run = batch->runs.count ? (now_ms() - started) / (int64_t)batch->runs.count : 0;
    sqlite3_stmt *done = database_prepare(
        db, "INSERT OR REPLACE INTO cov_runs(run, data_files, gcov_files, read_ms)"
            " VALUES (?, ?, ?, ?)");
    for (size_t i = 0; i < batch->runs.count; i++) {
        struct pending_run *run = &batch->runs.items[i];
        bind_ints(done, 4, (int64_t[]){run->id, (int64_t)run->data_files,
                                       (int64_t)run->gcov_files, per_run});
        database_step_done(done);
        stats->runs++;
        stats->data_files += (int)run->data_files;
        stats->gcov_files += (int)run->gcov_files;
    }
    sqlite3_finalize(done);
    store_close(&s);
    database_exec(db, "COMMIT");
    for (size_t i = 0; i < outputs.count; i++)
        free(outputs.items[i]);
    free(outputs.items);
    free(lengths.items);
    free(gcov_files.items);
}

static void batch_clear(struct batch *batch)
{
    for (size_t i = 0; i < batch->files.count; i++)
        free(batch->files.items[i].path);
    for (size_t i = 0; i < batch->runs.count; i++)
        free(batch->runs.items[i].prefix);
    batch->files.count = batch->runs.count = 0;
    json_object_clear(batch->by_path);
}

/* The baseline's prefix folder, NULL when the campaign has no finished baseline. */
static char *baseline_prefix(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT dir FROM runs WHERE kind = 'baseline' AND state = 'done' AND dir IS NOT NULL"
            " ORDER BY id LIMIT 1");
    char *prefix = NULL;
    if (sqlite3_step(statement) == SQLITE_ROW)
        prefix = coverage_directory((const char *)sqlite3_column_text(statement, 0));
    sqlite3_finalize(statement);
    return prefix;
}

bool coverage_read(sqlite3 *db, struct coverage_read_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    char *reference = baseline_prefix(db);
    /* The baseline first: the other runs' files that equal its own reuse its counts. */
    sqlite3_stmt *pending = database_prepare(
        db, "SELECT id, dir FROM runs WHERE state = 'done' AND dir IS NOT NULL"
            " AND id NOT IN (SELECT run FROM cov_runs) ORDER BY kind != 'baseline', id");
    VECTOR(int64_t) ids = {0};
    VECTOR(char *) dirs = {0};
    while (sqlite3_step(pending) == SQLITE_ROW) {
        VECTOR_PUSH(ids, sqlite3_column_int64(pending, 0));
        VECTOR_PUSH(dirs, column_text(pending, 1));
    }
    sqlite3_finalize(pending);
    struct batch batch = {.by_path = json_object()};
    size_t gcov_files = 0;
    for (size_t i = 0; i < ids.count; i++) {
        add_run(&batch, ids.items[i], dirs.items[i], reference, stats);
        free(dirs.items[i]);
        gcov_files += batch.runs.items[batch.runs.count - 1].gcov_files;
        if (batch.runs.count >= BATCH_RUNS || gcov_files >= GCOV_BATCH_FILES) {
            read_batch(db, &batch, stats);
            batch_clear(&batch);
            gcov_files = 0;
        }
    }
    free(ids.items);
    free(dirs.items);
    if (batch.runs.count)
        read_batch(db, &batch, stats);
    batch_clear(&batch);
    free(batch.files.items);
    free(batch.runs.items);
    json_decref(batch.by_path);
    free(found_data.items);
    found_data.items = NULL;
    found_data.capacity = 0;
    free(reference);
    sqlite3_stmt *any = database_prepare(db, "SELECT count(*) FROM cov_lines");
    bool some = sqlite3_step(any) == SQLITE_ROW && sqlite3_column_int64(any, 0) > 0;
    sqlite3_finalize(any);
    return some;
}
