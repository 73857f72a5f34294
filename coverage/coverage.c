/*
 * coverage.c — read each run's gcov data into the campaign database (see coverage.h).
 *
 * Each data file is read in process (gcovdata.c), not by gcov: the run's prefix folder mirrors
 * the build's absolute paths (GCOV_PREFIX_STRIP=0), so its notes (.gcno) are the .gcda's path
 * without the prefix, read once per object for the whole campaign. gcov itself, started per
 * chunk of files and its JSON parsed, cost 14-191 ms a run on the suites; the reader gives its
 * numbers exactly (tests/integration/test_gcovdata.sh) in well under a millisecond a file.
 *
 * Speed: failrun cov reads every run of a campaign, thousands of them at suite scale, and most
 * of a fault run's data files are byte for byte the baseline's (the failure changed nothing in
 * them) or another fault run's (two failures that ended a test the same way). Identical bytes
 * mean identical counts, so such a file is only noted (cov_run_data.source names the run whose
 * rows hold them): nothing is read, no rows. The next batch of runs is listed and compared (a
 * thread) while this one is read and stored. The lines, branches and functions a data file
 * instruments are stored once, the first time it is read; after that a run stores only its
 * non-zero counts, per data file (a header's lines can come from several).
 *
 * Disk: once a run's counts are committed, its gcov folder is removed. The analysis (legs by
 * the reaction branch, covanalysis.c) reads only the database; a schema migration that drops
 * the coverage tables can no longer read them again (migrate_5_to_6 could: version 5 kept them).
 */
#include "coverage.h"
#include "store/campaign.h"
#include "gcovdata.h"
#include "store/covrows.h"
#include "format/plan.h"
#include "format/text.h"
#include "base/pack.h"
#include "base/util.h"

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

/* Runs per transaction, and data files read per transaction at most. */
#define BATCH_RUNS 64
#define BATCH_FILES 192

static VECTOR(char *) found_data; /* the data files of the run being listed */

/* The notes of a data file's object, read once per object and kept (gcovdata.c): the build's
   .gcno at the data file's build path. NULL when the build no longer has it or it cannot be
   read (said once). */
struct notes_cache {
    json_t *by_path; /* .gcno path -> index in notes, or -1: unreadable */
    VECTOR(struct gcov_notes *) notes;
};

static struct gcov_notes *notes_for(struct notes_cache *cache, const char *build_path)
{
    char *path = xstrdup(build_path);
    strcpy(path + strlen(path) - 5, ".gcno");
    json_t *known = json_object_get(cache->by_path, path);
    if (known) {
        json_int_t index = json_integer_value(known);
        free(path);
        return index >= 0 ? cache->notes.items[index] : NULL;
    }
    char error[256];
    struct gcov_notes *notes = access(path, R_OK) == 0
                                   ? gcov_notes_read(path, error, sizeof error) : NULL;
    if (!notes && access(path, R_OK) == 0)
        warn("cannot read %s (%s): its objects' coverage is not read", path, error);
    json_object_set_new(cache->by_path, path,
                        json_integer(notes ? (json_int_t)cache->notes.count : -1));
    if (notes)
        VECTOR_PUSH(cache->notes, notes);
    free(path);
    return notes;
}

static void notes_cache_free(struct notes_cache *cache)
{
    for (size_t i = 0; i < cache->notes.count; i++)
        gcov_notes_free(cache->notes.items[i]);
    free(cache->notes.items);
    json_decref(cache->by_path);
}

/* ---- storing the counts ---- */

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
    struct store_cov_writer *writer;
    /* The baseline's counts, sorted: other runs store only where they differ from them. */
    int64_t baseline;
    row_list reference;
    json_t *reference_data; /* data ids the baseline has a copy of */
};

static void keep_reference_row(void *context, int64_t data, int64_t file, int line, int branch,
                               int64_t count)
{
    struct store *s = context;
    VECTOR_PUSH(s->reference, ((struct count_row){data, file, line, branch, count}));
}

static void keep_reference_data(void *context, int64_t data)
{
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)data);
    json_object_set_new(((struct store *)context)->reference_data, key, json_true());
}

static void load_reference(struct store *s)
{
    s->baseline = store_cov_done_baseline(s->db);
    store_cov_hits_each(s->db, s->baseline, keep_reference_row, s);
    if (s->reference.count)
        qsort(s->reference.items, s->reference.count, sizeof *s->reference.items, compare_rows);
    store_cov_run_data_each(s->db, s->baseline, keep_reference_data, s);
}

static void keep_data_id(void *context, const char *path, int64_t id)
{
    json_object_set_new(((struct store *)context)->data_ids, path, json_integer(id));
}

static void store_open(struct store *s, sqlite3 *db)
{
    memset(s, 0, sizeof *s);
    s->db = db;
    s->file_ids = json_object();
    s->data_ids = json_object();
    s->reference_data = json_object();
    s->writer = store_cov_writer_open(db);
    store_cov_data_each(db, keep_data_id, s);
    load_reference(s);
}

static void store_close(struct store *s)
{
    store_cov_writer_close(s->writer);
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
    int64_t id = store_cov_file_id(s->db, path);
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
    int64_t id = store_cov_data_add(s->writer, build_path);
    json_object_set_new(s->data_ids, build_path, json_integer(id));
    return id;
}

/* A line's count and its branches' into `rows`; its line and branches into the layout tables
   when the data file is new. */
static void collect_line(struct store *s, int64_t data, int64_t file,
                         const struct gcov_file *counts, const struct gcov_line *line,
                         bool structure, row_list *rows)
{
    if (line->line <= 0)
        return;
    if (structure)
        store_cov_line(s->writer, file, line->line);
    VECTOR_PUSH(*rows, ((struct count_row){data, file, line->line, -1, line->count}));
    for (int index = 0; index < line->branches; index++) {
        if (structure)
            store_cov_branch(s->writer, file, line->line, index);
        VECTOR_PUSH(*rows, ((struct count_row){data, file, line->line, index,
                                               counts->branch_counts[line->first_branch + index]}));
    }
}

static void store_functions(struct store *s, int64_t file, const struct gcov_file *counts)
{
    for (size_t i = 0; i < counts->function_count; i++) {
        const struct gcov_function *function = &counts->functions[i];
        if (function->start_line <= 0 || function->end_line < function->start_line)
            continue;
        store_cov_function(s->writer, file, function->start_line, function->end_line,
                           function->name ? function->name : "");
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
   counts that differ from it (zeros included). `delta` says the difference may be stored; it
   is, where it takes fewer rows. Both give the same counts back (covload.c), so the choice is
   the disk's: a child that ended with its test case, or whose counters were reset at its
   fault (where the program exports gcov's reset: libfail/fork/forkmode.c), differs from the
   baseline in every line the baseline ran after that point, zeros all, where its own non-zero
   counts may be fewer. Returns whether the rows are a difference. */
static bool store_rows(struct store *s, int64_t run, row_list *rows, bool delta)
{
    if (!rows->count)
        return delta;
    qsort(rows->items, rows->count, sizeof *rows->items, compare_rows);
    size_t summed = 0;
    for (size_t i = 0; i < rows->count;) {
        struct count_row row = rows->items[i++];
        while (i < rows->count && !compare_rows(&row, &rows->items[i]))
            row.count += rows->items[i++].count;
        rows->items[summed++] = row;
    }
    rows->count = summed;
    if (delta) {
        size_t differ = 0, nonzero = 0;
        for (size_t i = 0; i < rows->count; i++) {
            differ += rows->items[i].count != reference_count(s, &rows->items[i]);
            nonzero += rows->items[i].count > 0;
        }
        delta = differ < nonzero;
    }
    for (size_t i = 0; i < rows->count; i++) {
        struct count_row row = rows->items[i];
        if (delta ? row.count == reference_count(s, &row) : row.count <= 0)
            continue;
        if (row.branch < 0)
            store_cov_line_hit(s->writer, run, row.data, row.file, row.line, row.count);
        else
            store_cov_branch_hit(s->writer, run, row.data, row.file, row.line, row.branch,
                                 row.count);
    }
    return delta;
}

/* One data file's counts (its build path, the hash of its bytes) as `run`'s rows. */
static void store_counts(struct store *s, int64_t run, const char *build_path,
                         const char *directory, const struct gcov_counts *counts, int64_t hash)
{
    bool structure = false;
    int64_t data = data_id(s, build_path, &structure);
    row_list rows = {0};
    for (size_t i = 0; i < counts->file_count; i++) {
        const struct gcov_file *file = &counts->files[i];
        if (!file->name)
            continue;
        int64_t id = file_id(s, directory, file->name);
        if (structure)
            store_functions(s, id, file);
        for (size_t j = 0; j < file->line_count; j++)
            collect_line(s, data, id, file, &file->lines[j], structure, &rows);
    }
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)data);
    bool delta = store_rows(s, run, &rows,
                            run != s->baseline && json_object_get(s->reference_data, key));
    free(rows.items);
    store_cov_run_data(s->writer, run, data, run, hash, delta);
}

void coverage_store_counts(sqlite3 *db, int64_t run, const char *build_path,
                           const char *directory, const struct gcov_counts *counts)
{
    struct store s;
    store_open(&s, db);
    store_counts(&s, run, build_path, directory, counts, 0);
    store_close(&s);
}

/* ---- reading the runs ---- */

struct data_file {
    size_t run;     /* index in the batch */
    char *path;     /* in the run's prefix folder (or as if there, from its pack) */
    const char *packed; /* its bytes in the run's pack, NULL: read from path */
    size_t packed_length;
    int64_t hash;   /* of its bytes */
    int64_t source; /* the run whose rows hold its counts: its own, or one with the same bytes */
};

struct pending_run {
    int64_t id;
    char *prefix;
    char *pack; /* its pack's bytes (base/pack.h), or NULL: its data files are in prefix */
    size_t pack_length;
    struct pack_index *collection; /* where its pack came from */
    char *key;                           /* its key there */
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
static void remember_stored_copy(void *context, int64_t hash, const char *build_path,
                                 int64_t run, const char *dir)
{
    char *prefix = coverage_directory(dir);
    char *path = xasprintf("%s%s", prefix, build_path);
    remember_copy(context, hash, build_path, run, path, NULL, 0);
    free(path);
    free(prefix);
}

static void load_known_copies(sqlite3 *db, struct known_copies *known)
{
    memset(known, 0, sizeof *known);
    known->by_key = json_object();
    store_cov_own_copies_each(db, remember_stored_copy, known);
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

/* Every .gcda under the run's prefix folder (each_file_below), into found_data. An empty one is
   what a process left when it died while writing it: add_run skips it. */
static bool collect_data_file(const char *path, void *context)
{
    (void)context;
    size_t n = strlen(path);
    if (n > 5 && !strcmp(path + n - 5, ".gcda") && path[n - 6] != '/')
        VECTOR_PUSH(found_data, xstrdup(path));
    return true;
}

/* Does the build still have the .gcno of this data file (its build path)? */
static bool notes_exist(const char *build_path)
{
    char *notes = xstrdup(build_path);
    strcpy(notes + strlen(notes) - 5, ".gcno");
    bool ok = access(notes, R_OK) == 0;
    free(notes);
    return ok;
}

/* The data files of a run that left a pack (a run in the scratch file system, settled), as
   if they were in its prefix folder: their paths into found_data, their places in the pack into
   `places` (an offset past the pack's start and a length, each). */
static VECTOR(size_t) found_places;

static void collect_packed_files(const struct pending_run *run)
{
    size_t at = 0;
    struct pack_entry entry;
    while (pack_next(run->pack, run->pack_length, &at, &entry)) {
        if (entry.name_length < 6 || memcmp(entry.name + entry.name_length - 5, ".gcda", 5))
            continue;
        VECTOR_PUSH(found_data, xasprintf("%s%.*s", run->prefix, (int)entry.name_length,
                                          entry.name));
        VECTOR_PUSH(found_places, (size_t)(entry.bytes - run->pack));
        VECTOR_PUSH(found_places, entry.length);
    }
}

/* The collections of packs that the runs' gcov data lies in (coverage_collection), each read
   once; only the thread that fills batches adds to them. */
struct collections {
    VECTOR(char *) paths;
    VECTOR(struct pack_index *) indexes;
};

static struct pack_index *collection_at(struct collections *all, const char *path)
{
    for (size_t i = 0; i < all->paths.count; i++)
        if (!strcmp(all->paths.items[i], path))
            return all->indexes.items[i];
    VECTOR_PUSH(all->paths, xstrdup(path));
    VECTOR_PUSH(all->indexes, pack_index_load(path));
    return all->indexes.items[all->indexes.count - 1];
}

/* A collection whose every pack was stored, and nothing appended since, is removed. */
static void collections_free(struct collections *all, bool remove)
{
    for (size_t i = 0; i < all->paths.count; i++) {
        if (remove && all->indexes.items[i] && pack_index_all_released(all->indexes.items[i]))
            unlink(all->paths.items[i]);
        pack_index_free(all->indexes.items[i]);
        free(all->paths.items[i]);
    }
    free(all->paths.items);
    free(all->indexes.items);
}

/* The run's pack from its folder's collection, if it has one there. */
static void load_pack(struct pending_run *run, struct collections *all, const char *dir)
{
    const char *key;
    char *path = coverage_collection(dir, &key);
    struct pack_index *collection = collection_at(all, path);
    run->pack = pack_index_get(collection, key, &run->pack_length);
    if (run->pack) {
        run->collection = collection;
        run->key = xstrdup(key);
    }
    free(path);
}

/* Finds the run's data files and decides which of them must be read. */
static void add_run(struct batch *batch, struct known_copies *known, struct collections *all,
                    int64_t id, const char *dir, struct coverage_read_stats *stats)
{
    struct pending_run run = {.id = id, .prefix = coverage_directory(dir)};
    found_data.count = 0;
    found_places.count = 0;
    load_pack(&run, all, dir);
    if (run.pack)
        collect_packed_files(&run);
    else
        each_file_below(run.prefix, collect_data_file, NULL);
    for (size_t i = 0; i < found_data.count; i++) {
        char *path = found_data.items[i];
        const char *build_path = path + strlen(run.prefix);
        size_t length = 0;
        const char *packed = NULL;
        char *bytes;
        if (run.pack) {
            packed = run.pack + found_places.items[2 * i];
            length = found_places.items[2 * i + 1];
            bytes = length ? xmalloc(length) : NULL;
            if (bytes)
                memcpy(bytes, packed, length);
        } else {
            bytes = read_whole_file(path, &length);
        }
        if (!bytes || !length) {
            free(bytes);
            free(path);
            continue;
        }
        struct data_file file = {.run = batch->runs.count, .path = path, .source = id,
                                 .packed = packed, .packed_length = length,
                                 .hash = (int64_t)hash_bytes(4, bytes, length)};
        int64_t source = same_copy(known, file.hash, build_path, bytes, length);
        if (source) {
            file.source = source;
            free(bytes);
        } else if (!notes_exist(build_path)) {
            stats->missing++; /* the build lost its .gcno */
            free(bytes);
            free(path);
            continue;
        } else {
            run.gcov_files++;
            remember_copy(known, file.hash, build_path, id, path, bytes, length);
        }
        run.data_files++;
        VECTOR_PUSH(batch->files, file);
    }
    found_data.count = 0;
    VECTOR_PUSH(batch->runs, run);
}

/* A run read again (its cov_runs row removed by hand) starts from nothing. */
static void forget_runs(sqlite3 *db, const struct batch *batch)
{
    for (size_t i = 0; i < batch->runs.count; i++)
        store_cov_forget_run(db, batch->runs.items[i].id);
}

/* The batch's files that no earlier copy answers read against their notes (gcovdata.c), then
   the files other copies answer, and each run marked read. One transaction. */
static void read_batch(sqlite3 *db, struct batch *batch, struct notes_cache *cache,
                       struct gcov_counts *counts, struct coverage_read_stats *stats)
{
    int64_t started = now_ms();
    store_cov_begin(db);
    forget_runs(db, batch);
    struct store s;
    store_open(&s, db);
    for (size_t i = 0; i < batch->files.count; i++) {
        struct data_file *file = &batch->files.items[i];
        struct pending_run *run = &batch->runs.items[file->run];
        if (file->source != run->id)
            continue; /* another copy's rows answer it: below */
        const char *build_path = file->path + strlen(run->prefix);
        struct gcov_notes *notes = notes_for(cache, build_path);
        size_t length = file->packed_length;
        char *read = notes && !file->packed ? read_whole_file(file->path, &length) : NULL;
        const char *bytes = !notes ? NULL : file->packed ? file->packed : read;
        char error[256];
        if (!bytes) {
            stats->missing++;
        } else if (gcov_counts_read(notes, bytes, length, counts, error, sizeof error) != 0) {
            /* A process killed while writing it leaves it cut short: its counts are lost. */
            stats->unreadable++;
            if (stats->unreadable == 1)
                warn("cannot read %s (%s); such files are left out", file->path, error);
        } else {
            store_counts(&s, run->id, build_path, gcov_notes_directory(notes), counts,
                         file->hash);
        }
        free(read);
    }
    for (size_t i = 0; i < batch->files.count; i++) {
        struct data_file *file = &batch->files.items[i];
        struct pending_run *run = &batch->runs.items[file->run];
        json_t *known = json_object_get(s.data_ids, file->path + strlen(run->prefix));
        if (file->source == run->id || !known)
            continue; /* read above; or no copy was ever readable: nothing to reuse */
        store_cov_run_data(s.writer, run->id, json_integer_value(known), file->source,
                           file->hash, false);
    }
    int64_t per_run = batch->runs.count ? (now_ms() - started) / (int64_t)batch->runs.count : 0;
    for (size_t i = 0; i < batch->runs.count; i++) {
        struct pending_run *run = &batch->runs.items[i];
        store_cov_run_read(s.writer, run->id, (int64_t)run->data_files, (int64_t)run->gcov_files,
                           per_run);
        stats->runs++;
        stats->data_files += (int)run->data_files;
        stats->gcov_files += (int)run->gcov_files;
    }
    store_close(&s);
    store_cov_commit(db);
    /* Stored: the runs' gcov data (2 GB on jansson's suite) is needed no more. A later copy
       that a removed one would have answered goes to gcov (same_copy). */
    for (size_t i = 0; i < batch->runs.count; i++) {
        struct pending_run *run = &batch->runs.items[i];
        remove_tree(run->prefix);
        if (run->collection)
            pack_index_release(run->collection, run->key);
    }
}

static void batch_clear(struct batch *batch)
{
    for (size_t i = 0; i < batch->files.count; i++)
        free(batch->files.items[i].path);
    for (size_t i = 0; i < batch->runs.count; i++) {
        free(batch->runs.items[i].prefix);
        free(batch->runs.items[i].pack);
        free(batch->runs.items[i].key);
    }
    batch->files.count = batch->runs.count = 0;
}

/* The runs still to read, in order; batches are cut from them one after the other. */
struct pending_runs {
    VECTOR(int64_t) ids;
    VECTOR(char *) dirs;
    VECTOR(bool) baselines;
    size_t next;
    struct known_copies known;
    struct collections collections;
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
        add_run(builder->batch, &pending->known, &pending->collections, pending->ids.items[i],
                pending->dirs.items[i], pending->stats);
        gcov_files += builder->batch->runs.items[builder->batch->runs.count - 1].gcov_files;
        if (pending->baselines.items[i] || builder->batch->runs.count >= BATCH_RUNS ||
            gcov_files >= BATCH_FILES)
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

static void add_pending_run(void *context, int64_t run, const char *dir, bool baseline)
{
    struct pending_runs *pending = context;
    VECTOR_PUSH(pending->ids, run);
    VECTOR_PUSH(pending->dirs, dir ? xstrdup(dir) : NULL);
    VECTOR_PUSH(pending->baselines, baseline);
}

bool coverage_read(sqlite3 *db, struct coverage_progress *progress,
                   struct coverage_read_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    /* The baseline first: the other runs' files that equal its own reuse its counts. Then each
       program's run alone (as run -id, the reference of the runs it owns), then the others. */
    struct pending_runs pending = {.stats = stats};
    store_cov_unread_runs_each(db, add_pending_run, &pending);
    load_known_copies(db, &pending.known);
    pending.stats = stats;
    /* Listing and comparing the next batch's files (a thread) while this one is read. */
    struct batch batches[2];
    memset(batches, 0, sizeof batches);
    struct notes_cache cache = {.by_path = json_object()};
    struct gcov_counts counts = {0};
    struct batch_builder first = {.pending = &pending, .batch = &batches[0]};
    fill_batch(&first);
    for (int current = 0; batches[current].runs.count; current ^= 1) {
        struct batch_builder next = {.pending = &pending, .batch = &batches[current ^ 1]};
        next.threaded = pthread_create(&next.thread, NULL, fill_batch, &next) == 0;
        read_batch(db, &batches[current], &cache, &counts, stats);
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
    }
    notes_cache_free(&cache);
    gcov_counts_free(&counts);
    known_copies_free(&pending.known);
    collections_free(&pending.collections, true);
    for (size_t i = 0; i < pending.dirs.count; i++)
        free(pending.dirs.items[i]);
    free(pending.ids.items);
    free(pending.dirs.items);
    free(pending.baselines.items);
    free(found_data.items);
    found_data.items = NULL;
    found_data.capacity = 0;
    free(found_places.items);
    found_places.items = NULL;
    found_places.capacity = 0;
    return store_cov_has_lines(db);
}
