/*
 * coverage.c — read each run's gcov data into the campaign database (see coverage.h).
 *
 * gcov needs a .gcno beside each .gcda: the run's prefix folder mirrors the build's absolute
 * paths (GCOV_PREFIX_STRIP=0), so the .gcno is the .gcda's path without the prefix, and a
 * symbolic link puts it in place.
 *
 * Speed: failrun cov reads every run of a campaign, thousands of them at suite scale, and most
 * of a fault run's data files are byte for byte the baseline's (the failure changed nothing in
 * them) or another fault run's (two failures that ended a test the same way). Identical bytes
 * mean identical counts, so such a file is only noted (cov_run_data.source names the run whose
 * rows hold them): no gcov, no rows. The others go to gcov in chunks spanning many runs, since
 * starting gcov costs more than reading a small data file; gcov on the next chunk, the parse of
 * this one (a thread) and the storing of the previous one run at once. The lines, branches and functions a data file
 * instruments are stored once, the first time it is read; after that a run stores only its
 * non-zero counts, per data file (a header's lines can come from several).
 *
 * Disk: once a run's counts are committed, its gcov folder is removed. The analysis (legs by
 * the reaction branch, covanalysis.c) reads only the database; a schema migration that drops
 * the coverage tables can no longer read them again (migrate_5_to_6 could: version 5 kept them).
 */
#include "coverage.h"
#include "campaign.h"
#include "database.h"
#include "internal.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Data files per gcov process, and runs per transaction. */
#define GCOV_CHUNK_FILES 48
#define BATCH_RUNS 64

static VECTOR(char *) found_data; /* the data files of the run being listed */

/* Link the data file's .gcno beside it; false when the build no longer has it. */
static bool link_notes(const char *prefix, const char *file)
{
    char *notes = xstrdup(file + strlen(prefix));
    strcpy(notes + strlen(notes) - 5, ".gcno");
    char *link = xstrdup(file);
    strcpy(link + strlen(link) - 5, ".gcno");
    bool ok = access(notes, R_OK) == 0;
    char target[PATH_MAX];
    ssize_t n = ok ? readlink(link, target, sizeof target - 1) : -1;
    if (n >= 0)
        target[n] = '\0';
    if (ok && (n < 0 || strcmp(target, notes))) { /* not there yet (or stale) */
        unlink(link);
        ok = symlink(notes, link) == 0;
    }
    free(notes);
    free(link);
    return ok;
}

/* `gcov --json-format --stdout -b FILES...`, its output going to an unlinked temporary file so
   that failrun can do other work meanwhile. */
struct gcov_job {
    pid_t pid;
    int output;
    size_t count;
    const char *first;
};

static struct gcov_job gcov_start(char **files, size_t count)
{
    const char *directory = getenv("TMPDIR");
    char *template = xasprintf("%s/failrun-gcov.XXXXXX", directory && *directory ? directory : "/tmp");
    int output = mkstemp(template);
    if (output < 0)
        fatal("cannot create a temporary file for gcov's output (%s): %s; set TMPDIR", template,
              strerror(errno));
    unlink(template);
    free(template);
    char **argv = xcalloc(count + 5, sizeof *argv);
    argv[0] = "gcov";
    argv[1] = "--json-format";
    argv[2] = "--stdout";
    argv[3] = "-b";
    memcpy(argv + 4, files, count * sizeof *files);
    /* vfork, not fork: a fork copied failrun's page tables, and failrun then took a fault for a
       copy of every page it touched while gcov ran, a sixth of failrun cov's time. The child
       shares failrun's memory until its exec, so it only makes system calls (the other threads
       go on: no malloc, no stdio), with every signal blocked until it has its own mask. */
    sigset_t all, ours, child;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &ours);
    child = ours;
    signals_for_child(&child);
    pid_t pid = vfork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &child, NULL);
        dup2(output, 1);
        close(output);
        execvp("gcov", argv);
        static const char message[] = "failrun: cannot run gcov; install gcc\n";
        ssize_t ignored = write(2, message, sizeof message - 1);
        (void)ignored;
        _exit(127);
    }
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &ours, NULL);
    free(argv);
    if (pid < 0)
        fatal("cannot start gcov: %s", strerror(saved));
    return (struct gcov_job){pid, output, count, files[0]};
}

/* Waits for the job; its standard output. gcov goes on past a file it cannot read (it says so
   on standard error and exits 2), so what it printed is kept. */
static char *gcov_finish(struct gcov_job *job, size_t *length)
{
    int status = 0;
    while (waitpid(job->pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        fatal("gcov is not installed; install gcc (Debian package gcc)");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        warn("gcov could not read some of %zu data file(s) from %s on (exit %d; see above); the "
             "others are read", job->count, job->first,
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    struct stat info;
    char *output = NULL;
    *length = 0;
    if (fstat(job->output, &info) == 0) {
        output = xmalloc((size_t)info.st_size + 1);
        ssize_t got = 0;
        while ((size_t)got < (size_t)info.st_size) {
            ssize_t n = pread(job->output, output + got, (size_t)info.st_size - (size_t)got, got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += n;
        }
        *length = (size_t)got;
        output[got] = '\0';
    }
    close(job->output);
    return output;
}

/* ---- storing gcov's JSON ---- */

/* One count of a data file: a line's (branch -1) or a branch's. */
struct count_row {
    int64_t data, file;
    int line, branch;
    int64_t count;
};

static int compare_rows(const void *left, const void *right)
{
    const struct count_row *a = left, *b = right;
    if (a->data != b->data)
        return (a->data > b->data) - (a->data < b->data);
    if (a->file != b->file)
        return (a->file > b->file) - (a->file < b->file);
    if (a->line != b->line)
        return (a->line > b->line) - (a->line < b->line);
    return (a->branch > b->branch) - (a->branch < b->branch);
}

typedef VECTOR(struct count_row) row_list;

struct store {
    sqlite3 *db;
    json_t *file_ids; /* source path as gcov names it (joined to its folder) -> cov_files id */
    json_t *data_ids; /* build path of a .gcda -> cov_data id; present = its lines are stored */
    sqlite3_stmt *line, *branch, *function, *line_hit, *branch_hit, *data, *run_data;
    /* The baseline's counts, sorted: other runs store only where they differ from them. */
    int64_t baseline;
    row_list reference;
    json_t *reference_data; /* data ids the baseline has a copy of */
};

static void load_reference(struct store *s)
{
    sqlite3_stmt *statement = database_prepare(
        s->db, "SELECT min(id) FROM runs WHERE kind = 'baseline' AND state = 'done'");
    s->baseline = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    statement = database_prepare(
        s->db, "SELECT data, file, line, -1, count FROM cov_line_hits WHERE run = ?1 UNION ALL"
               " SELECT data, file, line, branch, count FROM cov_branch_hits WHERE run = ?1");
    sqlite3_bind_int64(statement, 1, s->baseline);
    while (sqlite3_step(statement) == SQLITE_ROW)
        VECTOR_PUSH(s->reference, ((struct count_row){
                                      sqlite3_column_int64(statement, 0),
                                      sqlite3_column_int64(statement, 1),
                                      sqlite3_column_int(statement, 2),
                                      sqlite3_column_int(statement, 3),
                                      sqlite3_column_int64(statement, 4)}));
    database_finalize(statement);
    if (s->reference.count)
        qsort(s->reference.items, s->reference.count, sizeof *s->reference.items, compare_rows);
    statement = database_prepare(s->db, "SELECT data FROM cov_run_data WHERE run = ?");
    sqlite3_bind_int64(statement, 1, s->baseline);
    while (sqlite3_step(statement) == SQLITE_ROW)
        json_object_set_new(s->reference_data, (const char *)sqlite3_column_text(statement, 0),
                            json_true());
    database_finalize(statement);
}

static void store_open(struct store *s, sqlite3 *db)
{
    memset(s, 0, sizeof *s);
    s->db = db;
    s->file_ids = json_object();
    s->data_ids = json_object();
    s->reference_data = json_object();
    s->line = database_prepare(db, "INSERT OR IGNORE INTO cov_lines(file, line) VALUES (?, ?)");
    s->branch = database_prepare(db, "INSERT OR IGNORE INTO cov_branches(file, line, branch)"
                                     " VALUES (?, ?, ?)");
    s->function = database_prepare(db, "INSERT OR IGNORE INTO cov_functions(file, start_line,"
                                       " end_line, name) VALUES (?, ?, ?, ?)");
    s->line_hit = database_prepare(db, "INSERT OR REPLACE INTO cov_line_hits(run, data, file,"
                                       " line, count) VALUES (?, ?, ?, ?, ?)");
    s->branch_hit = database_prepare(db, "INSERT OR REPLACE INTO cov_branch_hits(run, data,"
                                         " file, line, branch, count) VALUES (?, ?, ?, ?, ?, ?)");
    s->data = database_prepare(db, "INSERT INTO cov_data(path) VALUES (?)");
    s->run_data = database_prepare(db, "INSERT OR REPLACE INTO cov_run_data(run, data, source,"
                                       " hash, delta) VALUES (?, ?, ?, ?, ?)");
    sqlite3_stmt *known = database_prepare(db, "SELECT path, id FROM cov_data");
    while (sqlite3_step(known) == SQLITE_ROW)
        json_object_set_new(s->data_ids, (const char *)sqlite3_column_text(known, 0),
                            json_integer(sqlite3_column_int64(known, 1)));
    database_finalize(known);
    load_reference(s);
}

static void store_close(struct store *s)
{
    sqlite3_stmt *statements[] = {s->line,     s->branch, s->function, s->line_hit,
                                  s->branch_hit, s->data, s->run_data};
    for (size_t i = 0; i < sizeof statements / sizeof *statements; i++)
        database_finalize(statements[i]);
    json_decref(s->file_ids);
    json_decref(s->data_ids);
    json_decref(s->reference_data);
    free(s->reference.items);
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
    database_finalize(insert);
    sqlite3_stmt *select = database_prepare(s->db, "SELECT id FROM cov_files WHERE path = ?");
    sqlite3_bind_text(select, 1, path, -1, SQLITE_TRANSIENT);
    int64_t id = sqlite3_step(select) == SQLITE_ROW ? sqlite3_column_int64(select, 0) : 0;
    database_finalize(select);
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

/* The line's count and its branches' into `rows`; its line and branches into the layout tables
   when the data file is new. */
static void collect_line(struct store *s, int64_t data, int64_t file, json_t *line,
                         bool structure, row_list *rows)
{
    json_int_t number = json_integer_value(json_object_get(line, "line_number"));
    if (number <= 0 || number > INT32_MAX)
        return;
    if (structure) {
        bind_ints(s->line, 2, (int64_t[]){file, number});
        database_step_done(s->line);
    }
    VECTOR_PUSH(*rows, ((struct count_row){data, file, (int)number, -1,
                                           json_integer_value(json_object_get(line, "count"))}));
    size_t index;
    json_t *branch;
    json_array_foreach(json_object_get(line, "branches"), index, branch) {
        if (structure) {
            bind_ints(s->branch, 3, (int64_t[]){file, number, (int64_t)index});
            database_step_done(s->branch);
        }
        VECTOR_PUSH(*rows, ((struct count_row){data, file, (int)number, (int)index,
                                               json_integer_value(json_object_get(branch, "count"))}));
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

/* The baseline's count of the same item, 0 when it has none. */
static int64_t reference_count(const struct store *s, const struct count_row *row)
{
    const struct count_row *found = bsearch(row, s->reference.items, s->reference.count,
                                            sizeof *row, compare_rows);
    return found ? found->count : 0;
}

/* The rows of one data file, summed where gcov listed an item twice (a line shared by two
   functions): all non-zero counts, or, as a difference from the baseline's copy, only the
   counts that differ from it (zeros included). */
static void store_rows(struct store *s, int64_t run, row_list *rows, bool delta)
{
    if (!rows->count)
        return;
    qsort(rows->items, rows->count, sizeof *rows->items, compare_rows);
    for (size_t i = 0; i < rows->count;) {
        struct count_row row = rows->items[i++];
        while (i < rows->count && !compare_rows(&row, &rows->items[i]))
            row.count += rows->items[i++].count;
        if (delta ? row.count == reference_count(s, &row) : row.count <= 0)
            continue;
        if (row.branch < 0) {
            bind_ints(s->line_hit, 5, (int64_t[]){run, row.data, row.file, row.line, row.count});
            database_step_done(s->line_hit);
        } else {
            bind_ints(s->branch_hit, 6,
                      (int64_t[]){run, row.data, row.file, row.line, row.branch, row.count});
            database_step_done(s->branch_hit);
        }
    }
}

/* One document of gcov's output (one data file) as `run`'s counts; `prefix` is stripped from its
   data file's name to give the build path; `hash` is the data file's content hash. */
static void store_document(struct store *s, int64_t run, const char *prefix, json_t *document,
                           int64_t hash)
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
    row_list rows = {0};
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
            collect_line(s, data, id, line, structure, &rows);
    }
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)data);
    bool delta = run != s->baseline && json_object_get(s->reference_data, key);
    store_rows(s, run, &rows, delta);
    free(rows.items);
    bind_ints(s->run_data, 5, (int64_t[]){run, data, run, hash, delta});
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
    store_document(target->store, target->run, NULL, document, 0);
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
    size_t run;     /* index in the batch */
    char *path;     /* in the run's prefix folder */
    int64_t hash;   /* of its bytes */
    int64_t source; /* the run whose rows hold its counts: its own, or one with the same bytes */
};

struct pending_run {
    int64_t id;
    char *prefix;
    size_t data_files, gcov_files;
};

/* Data files read with gcov (this time or before), by build path and content hash: where
   another run's identical copy is, and which run's rows hold its counts. The bytes of the copies
   met this time are kept (up to KNOWN_BYTES_MAX), so comparing with them reads no file. */
#define KNOWN_BYTES_MAX (64u << 20)

struct known_copies {
    json_t *by_key; /* "HASH BUILD-PATH" -> [run, path of that run's copy, index in bytes or -1] */
    VECTOR(char *) bytes;
    VECTOR(size_t) lengths;
    size_t kept;
};

static char *copy_key(int64_t hash, const char *build_path)
{
    return xasprintf("%016llx %s", (unsigned long long)hash, build_path);
}

/* Takes `bytes` (NULL: not kept). */
static void remember_copy(struct known_copies *known, int64_t hash, const char *build_path,
                          int64_t run, const char *path, char *bytes, size_t length)
{
    char *key = copy_key(hash, build_path);
    json_int_t index = -1;
    if (!json_object_get(known->by_key, key)) {
        if (bytes && known->kept + length <= KNOWN_BYTES_MAX) {
            index = (json_int_t)known->bytes.count;
            VECTOR_PUSH(known->bytes, bytes);
            VECTOR_PUSH(known->lengths, length);
            known->kept += length;
            bytes = NULL;
        }
        json_object_set_new(known->by_key, key, json_pack("[I,s,I]", (json_int_t)run, path, index));
    }
    free(bytes);
    free(key);
}

/* The copies read by an earlier failrun cov: a resumed read finds them too. */
static void load_known_copies(sqlite3 *db, struct known_copies *known)
{
    memset(known, 0, sizeof *known);
    known->by_key = json_object();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT x.hash, d.path, x.run, coalesce(r.dir, p.alone_dir) FROM cov_run_data x"
            " JOIN cov_data d ON d.id = x.data LEFT JOIN runs r ON r.id = x.run"
            " LEFT JOIN programs p ON p.id = -x.run"
            " WHERE x.source = x.run AND coalesce(r.dir, p.alone_dir) IS NOT NULL");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        const char *build_path = (const char *)sqlite3_column_text(statement, 1);
        char *prefix = coverage_directory((const char *)sqlite3_column_text(statement, 3));
        char *path = xasprintf("%s%s", prefix, build_path);
        remember_copy(known, sqlite3_column_int64(statement, 0), build_path,
                      sqlite3_column_int64(statement, 2), path, NULL, 0);
        free(path);
        free(prefix);
    }
    database_finalize(statement);
}

static void known_copies_free(struct known_copies *known)
{
    for (size_t i = 0; i < known->bytes.count; i++)
        free(known->bytes.items[i]);
    free(known->bytes.items);
    free(known->lengths.items);
    json_decref(known->by_key);
}

struct batch {
    VECTOR(struct pending_run) runs;
    VECTOR(struct data_file) files;
    json_t *by_path; /* path of a file sent to gcov -> its index in files */
};

/* The run whose copy of this data file has the same bytes, or 0. */
static int64_t same_copy(struct known_copies *known, int64_t hash, const char *build_path,
                         const char *bytes, size_t length)
{
    char *key = copy_key(hash, build_path);
    json_t *copy = json_object_get(known->by_key, key);
    free(key);
    if (!copy)
        return 0;
    json_int_t index = json_integer_value(json_array_get(copy, 2));
    bool same;
    if (index >= 0) {
        same = known->lengths.items[index] == length &&
               !memcmp(known->bytes.items[index], bytes, length);
    } else {
        size_t other_length = 0;
        char *other = read_whole_file(json_string_value(json_array_get(copy, 1)), &other_length);
        same = other && other_length == length && !memcmp(other, bytes, length);
        if (!other) { /* removed once stored (read_batch): this copy takes its place */
            char *stale = copy_key(hash, build_path);
            json_object_del(known->by_key, stale);
            free(stale);
        }
        free(other);
    }
    return same ? json_integer_value(json_array_get(copy, 0)) : 0;
}

/* Every non-empty .gcda under `folder`, by d_type (no stat per entry). An empty one is what a
   process left when it died while writing it: no data. */
static void collect_data_files(const char *folder)
{
    DIR *directory = opendir(folder);
    if (!directory)
        return;
    struct dirent *entry;
    while ((entry = readdir(directory))) {
        const char *name = entry->d_name;
        if (!strcmp(name, ".") || !strcmp(name, ".."))
            continue;
        char *path = xasprintf("%s/%s", folder, name);
        unsigned char type = entry->d_type;
        struct stat info;
        if (type == DT_UNKNOWN && lstat(path, &info) == 0)
            type = S_ISDIR(info.st_mode) ? DT_DIR : S_ISREG(info.st_mode) ? DT_REG : DT_UNKNOWN;
        size_t n = strlen(name);
        if (type == DT_DIR) {
            collect_data_files(path);
        } else if (type == DT_REG && n > 5 && !strcmp(name + n - 5, ".gcda")) {
            VECTOR_PUSH(found_data, path);
            continue;
        }
        free(path);
    }
    closedir(directory);
}

/* Finds the run's data files and decides which of them gcov must read. */
static void add_run(struct batch *batch, struct known_copies *known, int64_t id, const char *dir,
                    struct coverage_read_stats *stats)
{
    struct pending_run run = {.id = id, .prefix = coverage_directory(dir)};
    found_data.count = 0;
    collect_data_files(run.prefix);
    for (size_t i = 0; i < found_data.count; i++) {
        char *path = found_data.items[i];
        const char *build_path = path + strlen(run.prefix);
        size_t length = 0;
        char *bytes = read_whole_file(path, &length);
        if (!bytes || !length) {
            free(bytes);
            free(path);
            continue;
        }
        struct data_file file = {.run = batch->runs.count, .path = path, .source = id,
                                 .hash = (int64_t)hash_bytes(4, bytes, length)};
        int64_t source = same_copy(known, file.hash, build_path, bytes, length);
        if (source) {
            file.source = source;
            free(bytes);
        } else if (!link_notes(run.prefix, path)) {
            stats->missing++; /* the build lost its .gcno */
            free(bytes);
            free(path);
            continue;
        } else {
            run.gcov_files++;
            remember_copy(known, file.hash, build_path, id, path, bytes, length);
            json_object_set_new(batch->by_path, path, json_integer((json_int_t)batch->files.count));
        }
        run.data_files++;
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
    store_document(target->store, run->id, run->prefix, document, file->hash);
}

/* One chunk of gcov's output, parsed into its documents by a thread of its own. */
struct parsed_chunk {
    char *output;
    size_t length;
    pthread_t thread;
    bool threaded;
    VECTOR(json_t *) documents;
};

static void keep_document(json_t *document, void *context)
{
    struct parsed_chunk *chunk = context;
    VECTOR_PUSH(chunk->documents, json_incref(document));
}

static void *parse_chunk(void *argument)
{
    struct parsed_chunk *chunk = argument;
    if (chunk->output)
        for_each_document(chunk->output, chunk->length, keep_document, chunk);
    return NULL;
}

/* Waits for the chunk's parse, stores its documents, frees it. NULL: nothing to do. */
static void store_chunk(struct parsed_chunk *chunk, struct batch_target *target)
{
    if (!chunk)
        return;
    if (chunk->threaded)
        pthread_join(chunk->thread, NULL);
    for (size_t i = 0; i < chunk->documents.count; i++) {
        store_for_batch(chunk->documents.items[i], target);
        json_decref(chunk->documents.items[i]);
    }
    free(chunk->documents.items);
    free(chunk->output);
    free(chunk);
}

/* A run read again (its cov_runs row removed by hand) starts from nothing. */
static void forget_runs(sqlite3 *db, const struct batch *batch)
{
    for (size_t i = 0; i < batch->runs.count; i++) {
        long long id = (long long)batch->runs.items[i].id;
        char *sql = sqlite3_mprintf("DELETE FROM cov_line_hits WHERE run = %lld;"
                                    "DELETE FROM cov_branch_hits WHERE run = %lld;"
                                    "DELETE FROM cov_run_data WHERE run = %lld;", id, id, id);
        database_exec(db, sql);
        sqlite3_free(sql);
    }
}

/* gcov on the batch's files that no earlier copy answers, the next chunk's gcov running while
   this chunk's output is stored; then the files other copies answer, and each run marked read.
   One transaction. */
static void read_batch(sqlite3 *db, struct batch *batch, struct coverage_read_stats *stats)
{
    int64_t started = now_ms();
    VECTOR(char *) gcov_files = {0};
    for (size_t i = 0; i < batch->files.count; i++)
        if (batch->files.items[i].source == batch->runs.items[batch->files.items[i].run].id)
            VECTOR_PUSH(gcov_files, batch->files.items[i].path);
    database_exec(db, "BEGIN IMMEDIATE");
    forget_runs(db, batch);
    struct store s;
    store_open(&s, db);
    struct batch_target target = {&s, batch};
    /* Three stages at once: gcov on chunk k + 1, jansson parsing chunk k (a thread), and this
       thread storing chunk k - 1 (SQLite stays on one thread). */
    struct gcov_job job = {0};
    if (gcov_files.count)
        job = gcov_start(gcov_files.items, gcov_files.count < GCOV_CHUNK_FILES ? gcov_files.count
                                                                              : GCOV_CHUNK_FILES);
    struct parsed_chunk *parsing = NULL;
    for (size_t at = 0; at < gcov_files.count; at += GCOV_CHUNK_FILES) {
        struct gcov_job current = job;
        size_t next = at + GCOV_CHUNK_FILES;
        if (next < gcov_files.count)
            job = gcov_start(gcov_files.items + next, gcov_files.count - next < GCOV_CHUNK_FILES
                                                          ? gcov_files.count - next
                                                          : GCOV_CHUNK_FILES);
        struct parsed_chunk *chunk = xcalloc(1, sizeof *chunk);
        chunk->output = gcov_finish(&current, &chunk->length);
        if (pthread_create(&chunk->thread, NULL, parse_chunk, chunk) != 0)
            parse_chunk(chunk); /* no thread to be had: parse it here */
        else
            chunk->threaded = true;
        store_chunk(parsing, &target);
        parsing = chunk;
    }
    store_chunk(parsing, &target);
    for (size_t i = 0; i < batch->files.count; i++) {
        struct data_file *file = &batch->files.items[i];
        struct pending_run *run = &batch->runs.items[file->run];
        json_t *known = json_object_get(s.data_ids, file->path + strlen(run->prefix));
        if (file->source == run->id || !known)
            continue; /* read above; or no copy was ever readable: nothing to reuse */
        bind_ints(s.run_data, 5, (int64_t[]){run->id, json_integer_value(known), file->source,
                                             file->hash, 0});
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
    database_finalize(done);
    store_close(&s);
    database_exec(db, "COMMIT");
    free(gcov_files.items);
    /* Stored: the runs' gcov data (2 GB on jansson's suite) is needed no more. A later copy
       that a removed one would have answered goes to gcov (same_copy). */
    for (size_t i = 0; i < batch->runs.count; i++)
        remove_tree(batch->runs.items[i].prefix);
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

/* The runs still to read, in order; batches are cut from them one after the other. */
struct pending_runs {
    VECTOR(int64_t) ids;
    VECTOR(char *) dirs;
    VECTOR(bool) baselines;
    size_t next;
    struct known_copies known;
    struct coverage_read_stats *stats;
};

struct batch_builder {
    struct pending_runs *pending;
    struct batch *batch;
    pthread_t thread;
    bool threaded;
};

/* The next batch: runs until it is big enough; the baseline alone, since the others store their
   counts as differences from its. */
static void *fill_batch(void *argument)
{
    struct batch_builder *builder = argument;
    struct pending_runs *pending = builder->pending;
    size_t gcov_files = 0;
    while (pending->next < pending->ids.count) {
        size_t i = pending->next++;
        add_run(builder->batch, &pending->known, pending->ids.items[i], pending->dirs.items[i],
                pending->stats);
        gcov_files += builder->batch->runs.items[builder->batch->runs.count - 1].gcov_files;
        if (pending->baselines.items[i] || builder->batch->runs.count >= BATCH_RUNS ||
            gcov_files >= 4 * GCOV_CHUNK_FILES)
            break;
    }
    return NULL;
}

/* Every PROGRESS_MS, the next line; the first once failrun cov has run that long. */
#define PROGRESS_MS 5000

void coverage_progress(struct coverage_progress *progress, const char *done_what, size_t done,
                       size_t total)
{
    int64_t now = now_ms();
    if (!progress || progress->quiet ||
        now - (progress->printed_ms ? progress->printed_ms : progress->started_ms) < PROGRESS_MS)
        return;
    progress->printed_ms = now;
    fprintf(stderr, "failrun cov: %zu of %zu runs %s (%lld s)\n", done, total, done_what,
            (long long)((now - progress->started_ms) / 1000));
    fflush(stderr);
}

bool coverage_read(sqlite3 *db, struct coverage_progress *progress,
                   struct coverage_read_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    /* The baseline first: the other runs' files that equal its own reuse its counts. Then each
       program's run alone (as run -id, the reference of the runs it owns), then the others. */
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT id, dir, baseline FROM (SELECT id, dir, kind = 'baseline' AS baseline"
            "  FROM runs WHERE state = 'done' AND dir IS NOT NULL"
            "  UNION ALL SELECT -id, alone_dir, 0 FROM programs WHERE alone_dir IS NOT NULL)"
            " WHERE id NOT IN (SELECT run FROM cov_runs) ORDER BY baseline DESC, id");
    struct pending_runs pending = {.stats = stats};
    while (sqlite3_step(statement) == SQLITE_ROW) {
        VECTOR_PUSH(pending.ids, sqlite3_column_int64(statement, 0));
        VECTOR_PUSH(pending.dirs, column_text(statement, 1));
        VECTOR_PUSH(pending.baselines, sqlite3_column_int(statement, 2));
    }
    database_finalize(statement);
    load_known_copies(db, &pending.known);
    pending.stats = stats;
    /* Listing and comparing the next batch's files (a thread) while this one is read. */
    struct batch batches[2] = {{.by_path = json_object()}, {.by_path = json_object()}};
    struct batch_builder first = {.pending = &pending, .batch = &batches[0]};
    fill_batch(&first);
    for (int current = 0; batches[current].runs.count; current ^= 1) {
        struct batch_builder next = {.pending = &pending, .batch = &batches[current ^ 1]};
        next.threaded = pthread_create(&next.thread, NULL, fill_batch, &next) == 0;
        read_batch(db, &batches[current], stats);
        coverage_progress(progress, "read", (size_t)stats->runs, pending.ids.count);
        if (next.threaded)
            pthread_join(next.thread, NULL);
        else
            fill_batch(&next);
        batch_clear(&batches[current]);
    }
    for (int i = 0; i < 2; i++) {
        batch_clear(&batches[i]);
        free(batches[i].files.items);
        free(batches[i].runs.items);
        json_decref(batches[i].by_path);
    }
    known_copies_free(&pending.known);
    for (size_t i = 0; i < pending.dirs.count; i++)
        free(pending.dirs.items[i]);
    free(pending.ids.items);
    free(pending.dirs.items);
    free(pending.baselines.items);
    free(found_data.items);
    found_data.items = NULL;
    found_data.capacity = 0;
    sqlite3_stmt *any = database_prepare(db, "SELECT count(*) FROM cov_lines");
    bool some = sqlite3_step(any) == SQLITE_ROW && sqlite3_column_int64(any, 0) > 0;
    database_finalize(any);
    return some;
}
