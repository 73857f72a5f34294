/*
 * campaign.c — a campaign's settings in the database, programs' command lines as stored, and
 * module lookups.
 */
#include "store/campaign.h"
#include "base/pack.h"
#include "base/util.h"
#include "format/plan.h"
#include "store/database.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ";faults=" and the names of the kinds --faults chose (kinds.def), for each set of kinds:
   made once, then shared by every thread. */
#define KIND_SETS (1u << KIND_LIMIT)
static char kind_texts[KIND_SETS][96];
static pthread_once_t kind_texts_once = PTHREAD_ONCE_INIT;

static void make_kind_texts(void)
{
    for (unsigned set = 0; set < KIND_SETS; set++) {
        size_t used = snprintf(kind_texts[set], sizeof kind_texts[set], ";faults=");
        const char *comma = "";
#define FAULT_KIND(kind, name, chosen, ...)                                                        \
        if ((chosen) && (set & PLAN_FAULT(kind)) && used < sizeof kind_texts[set]) {              \
            used += snprintf(kind_texts[set] + used, sizeof kind_texts[set] - used, "%s%s",      \
                             comma, #name);                                                      \
            comma = ",";                                                                          \
        }
#include "format/kinds.def"
#undef FAULT_KIND
    }
}

const char *fault_kinds_plan_text(unsigned kinds)
{
    pthread_once(&kind_texts_once, make_kind_texts);
    return kind_texts[(kinds ? kinds : PLAN_FAULT_ALLOC) % KIND_SETS];
}

const char *fault_kinds_text(unsigned kinds)
{
    return fault_kinds_plan_text(kinds) + strlen(";faults=");
}

unsigned fault_kinds_parse(const char *text)
{
    struct plan plan;
    char *probe = xasprintf("mode=record;faults=%s", text ? text : "");
    bool bad = plan_parse(probe, &plan) != NULL;
    free(probe);
    return bad ? 0 : plan.fault_kinds;
}

char *coverage_directory(const char *run_dir)
{
    return xasprintf("%s.gcov", run_dir);
}

char *coverage_collection(const char *run_dir, const char **key)
{
    const char *slash = strrchr(run_dir, '/');
    *key = slash ? slash + 1 : run_dir;
    return slash ? xasprintf("%.*s/gcov.packs", (int)(slash - run_dir), run_dir)
                 : xstrdup("gcov.packs");
}

void remove_coverage(const char *run_dir)
{
    char *folder = coverage_directory(run_dir);
    const char *key;
    char *collection = coverage_collection(run_dir, &key);
    remove_tree(folder);
    if (access(collection, F_OK) == 0 && !pack_append_removal(collection, key))
        warn("cannot write %s: %s", collection, strerror(errno));
    free(collection);
    free(folder);
}

void remove_run_folder(const char *run_dir)
{
    remove_tree(run_dir);
    remove_coverage(run_dir);
}

void environment_free(char **environment)
{
    for (size_t i = 0; environment && environment[i]; i++)
        free(environment[i]);
    free(environment);
}

char *argv_to_json(char *const *argv)
{
    json_t *array = json_array();
    for (size_t i = 0; argv[i]; i++)
        json_array_append_new(array, json_string(argv[i]));
    char *text = json_dumps(array, JSON_COMPACT);
    json_decref(array);
    return text;
}

char **strings_from_blob(const void *bytes, int length)
{
    VECTOR(char *) list = {0};
    const char *at = bytes, *end = at + (bytes && length > 0 ? length : 0);
    while (at < end) {
        size_t n = strnlen(at, (size_t)(end - at));
        char *item = xmalloc(n + 1);
        memcpy(item, at, n);
        item[n] = '\0';
        VECTOR_PUSH(list, item);
        at += n + 1;
    }
    VECTOR_PUSH(list, NULL);
    return list.items;
}

char *program_title(const char *exe, char *const *argv)
{
    const char *base = strrchr(exe, '/');
    char *name = xstrdup(base ? base + 1 : exe);
    for (size_t i = 1; argv && argv[0] && argv[i]; i++) {
        char *quoted = shell_quote(argv[i]);
        char *next = xasprintf("%s %s", name, quoted);
        free(quoted);
        free(name);
        name = next;
    }
    return name;
}

static char **argv_from_json(const char *text)
{
    json_error_t error;
    json_t *array = text ? json_loads(text, 0, &error) : NULL;
    if (!json_is_array(array) || json_array_size(array) == 0)
        fatal("the campaign database holds a damaged command; run `failrun run -- CMD` again");
    char **argv = xcalloc(json_array_size(array) + 1, sizeof *argv);
    for (size_t i = 0; i < json_array_size(array); i++) {
        const char *argument = json_string_value(json_array_get(array, i));
        argv[i] = xstrdup(argument ? argument : "");
    }
    json_decref(array);
    return argv;
}

void campaign_store(sqlite3 *db, const struct campaign_settings *settings, int64_t started_ms)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT INTO campaign(id, command, cwd, top_exe, stdin_path, depth, timeout_ms,"
            " exe_globs, module_globs, started_ms, occurrence, persistent, nth, nth_sweep,"
            " probability, seed, max_runs, shard, shards)"
            " VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    char *command = argv_to_json(settings->argv);
    sqlite3_bind_text(statement, 1, command, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 2, settings->cwd, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 3, settings->top_exe, -1, SQLITE_TRANSIENT);
    bind_text_or_null(statement, 4, settings->stdin_path);
    sqlite3_bind_int(statement, 5, settings->depth);
    sqlite3_bind_int64(statement, 6, settings->timeout_ms);
    sqlite3_bind_text(statement, 7, settings->exe_globs, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 8, settings->module_globs, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 9, started_ms);
    sqlite3_bind_int64(statement, 10, (sqlite3_int64)settings->occurrence);
    sqlite3_bind_int(statement, 11, settings->persistent);
    sqlite3_bind_int64(statement, 12, (sqlite3_int64)settings->nth);
    sqlite3_bind_int(statement, 13, settings->nth_sweep);
    bind_text_or_null(statement, 14, settings->probability);
    sqlite3_bind_int64(statement, 15, (sqlite3_int64)settings->seed);
    sqlite3_bind_int64(statement, 16, settings->max_runs);
    sqlite3_bind_int(statement, 17, (int)settings->shard);
    sqlite3_bind_int(statement, 18, (int)settings->shards);
    database_step_done(statement);
    database_finalize(statement);
    free(command);
    statement = database_prepare(
        db, "UPDATE campaign SET policy = ?, nofail_below = ?, kernel = ?, faults = ?,"
            " whole_command = ?, source = ?, wrappers = ?, returns = ?, boundary = ?, test_cases = ?,"
            " kmem_trace = ?, kcov = ?, vmlinux = ?, syscall_once = ?,"
            " kernel_build_id = coalesce(kernel_build_id, ?), every_start = ?,"
            " fail_bookkeeping = ?");
    sqlite3_bind_text(statement, 1,
                      settings->policy_realistic ? "realistic"
                      : settings->policy_nofail  ? "nofail"
                                                 : "all",
                      -1, SQLITE_STATIC);
    sqlite3_bind_int64(statement, 2, (sqlite3_int64)settings->nofail_below);
    /* kernel: 1 every system call trapped, 2 --wrappers */
    sqlite3_bind_int(statement, 3, settings->kernel ? 1 + settings->kernel_wrappers : 0);
    sqlite3_bind_text(statement, 4, fault_kinds_text(settings->fault_kinds), -1, SQLITE_STATIC);
    sqlite3_bind_int(statement, 5, settings->whole_command);
    sqlite3_bind_text(statement, 6, settings->source_globs ? settings->source_globs : "", -1,
                      SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 7, settings->wrappers ? settings->wrappers : "", -1,
                      SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 8, settings->returns ? settings->returns : "", -1,
                      SQLITE_TRANSIENT);
    sqlite3_bind_int(statement, 9, settings->boundary);
    sqlite3_bind_text(statement, 10, settings->test_cases ? settings->test_cases : "", -1,
                      SQLITE_TRANSIENT);
    sqlite3_bind_int(statement, 11, settings->kmem_trace);
    sqlite3_bind_int(statement, 12, settings->kcov);
    bind_text_or_null(statement, 13, settings->vmlinux);
    sqlite3_bind_int(statement, 14, settings->syscall_once);
    bind_text_or_null(statement, 15, settings->kernel_build_id);
    sqlite3_bind_int(statement, 16, settings->every_start);
    sqlite3_bind_int(statement, 17, settings->fail_bookkeeping);
    database_step_done(statement);
    database_finalize(statement);
}

bool campaign_load(sqlite3 *db, struct campaign_settings *settings)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT command, cwd, top_exe, stdin_path, depth, timeout_ms, exe_globs,"
            " module_globs, scope, occurrence, persistent, nth, nth_sweep, probability, seed,"
            " max_runs, shard, shards FROM campaign WHERE id = 1");
    bool found = sqlite3_step(statement) == SQLITE_ROW;
    if (found) {
        char *command = column_text(statement, 0);
        settings->argv = argv_from_json(command);
        free(command);
        settings->cwd = column_text(statement, 1);
        settings->top_exe = column_text(statement, 2);
        settings->stdin_path = column_text(statement, 3);
        settings->depth = sqlite3_column_int(statement, 4);
        settings->timeout_ms = sqlite3_column_int64(statement, 5);
        settings->exe_globs = column_text(statement, 6);
        settings->module_globs = column_text(statement, 7);
        settings->scope = column_text(statement, 8);
        settings->occurrence = (uint64_t)sqlite3_column_int64(statement, 9);
        settings->persistent = sqlite3_column_int(statement, 10);
        settings->nth = (uint64_t)sqlite3_column_int64(statement, 11);
        settings->nth_sweep = sqlite3_column_int(statement, 12);
        settings->probability = column_text(statement, 13);
        settings->seed = (uint64_t)sqlite3_column_int64(statement, 14);
        settings->max_runs = sqlite3_column_int64(statement, 15);
        settings->shard = (unsigned)sqlite3_column_int(statement, 16);
        settings->shards = (unsigned)sqlite3_column_int(statement, 17);
    }
    database_finalize(statement);
    statement =
        database_prepare(db, "SELECT policy = 'nofail', nofail_below, kernel, faults,"
                             " whole_command, source, wrappers, returns, boundary, test_cases,"
                             " kmem_trace, kcov, vmlinux, syscall_once, kernel_build_id,"
                             " policy = 'realistic', every_start, fail_bookkeeping FROM campaign");
    if (found && sqlite3_step(statement) == SQLITE_ROW) {
        settings->policy_nofail = sqlite3_column_int(statement, 0);
        settings->nofail_below = (uint64_t)sqlite3_column_int64(statement, 1);
        settings->kernel = sqlite3_column_int(statement, 2) != 0;
        settings->kernel_wrappers = sqlite3_column_int(statement, 2) == 2;
        settings->fault_kinds = fault_kinds_parse((const char *)sqlite3_column_text(statement, 3));
        settings->whole_command = sqlite3_column_int(statement, 4);
        settings->source_globs = column_text(statement, 5);
        settings->wrappers = column_text(statement, 6);
        settings->returns = column_text(statement, 7);
        settings->boundary = sqlite3_column_int(statement, 8);
        settings->test_cases = column_text(statement, 9);
        settings->kmem_trace = sqlite3_column_int(statement, 10);
        settings->kcov = sqlite3_column_int(statement, 11);
        settings->vmlinux = column_text(statement, 12);
        settings->syscall_once = sqlite3_column_int(statement, 13);
        settings->kernel_build_id = column_text(statement, 14);
        settings->policy_realistic = sqlite3_column_int(statement, 15);
        settings->every_start = sqlite3_column_int(statement, 16);
        settings->fail_bookkeeping = sqlite3_column_int(statement, 17);
    }
    database_finalize(statement);
    return found;
}

bool campaign_same_command(const struct campaign_settings *a, const struct campaign_settings *b)
{
    char *left = argv_to_json(a->argv), *right = argv_to_json(b->argv);
    bool same = !strcmp(left, right) && !strcmp(a->cwd, b->cwd) && a->depth == b->depth &&
                !strcmp(a->exe_globs, b->exe_globs) && !strcmp(a->module_globs, b->module_globs) &&
                a->occurrence == b->occurrence && a->persistent == b->persistent &&
                a->nth == b->nth && a->nth_sweep == b->nth_sweep && a->seed == b->seed &&
                a->max_runs == b->max_runs && a->shard == b->shard && a->shards == b->shards &&
                a->policy_nofail == b->policy_nofail && a->nofail_below == b->nofail_below &&
                a->policy_realistic == b->policy_realistic &&
                a->kernel == b->kernel && a->kernel_wrappers == b->kernel_wrappers &&
                a->kmem_trace == b->kmem_trace && a->kcov == b->kcov &&
                a->syscall_once == b->syscall_once &&
                a->whole_command == b->whole_command && a->every_start == b->every_start &&
                a->fail_bookkeeping == b->fail_bookkeeping &&
                !strcmp(a->source_globs ? a->source_globs : "",
                        b->source_globs ? b->source_globs : "") &&
                !strcmp(a->wrappers ? a->wrappers : "", b->wrappers ? b->wrappers : "") &&
                !strcmp(a->returns ? a->returns : "", b->returns ? b->returns : "") &&
                a->boundary == b->boundary &&
                !strcmp(a->test_cases ? a->test_cases : "", b->test_cases ? b->test_cases : "") &&
                !strcmp(fault_kinds_text(a->fault_kinds), fault_kinds_text(b->fault_kinds)) &&
                !strcmp(a->probability ? a->probability : "", b->probability ? b->probability : "");
    free(left);
    free(right);
    return same;
}

bool in_shard(const struct campaign_settings *settings, uint64_t value)
{
    return settings->shards <= 1 || value % settings->shards == settings->shard - 1;
}

void campaign_settings_free(struct campaign_settings *settings)
{
    for (size_t i = 0; settings->argv && settings->argv[i]; i++)
        free(settings->argv[i]);
    free(settings->argv);
    free(settings->cwd);
    free(settings->top_exe);
    free(settings->stdin_path);
    free(settings->exe_globs);
    free(settings->module_globs);
    free(settings->scope);
    free(settings->probability);
    free(settings->source_globs);
    free(settings->wrappers);
    free(settings->kernel_build_id);
    free(settings->returns);
    free(settings->test_cases);
    free(settings->vmlinux);
    memset(settings, 0, sizeof *settings);
}

void module_map_load(sqlite3 *db, struct module_map *map)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT id, path FROM modules");
    size_t capacity = 0;
    memset(map, 0, sizeof *map);
    while (sqlite3_step(statement) == SQLITE_ROW) {
        uint64_t id;
        if (!parse_hex16((const char *)sqlite3_column_text(statement, 0), &id))
            continue;
        if (map->count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            map->ids = xrealloc(map->ids, capacity * sizeof *map->ids);
            map->paths = xrealloc(map->paths, capacity * sizeof *map->paths);
        }
        map->ids[map->count] = id;
        map->paths[map->count++] = column_text(statement, 1);
    }
    database_finalize(statement);
}

const char *module_map_path(const struct module_map *map, uint64_t id)
{
    for (size_t i = 0; i < map->count; i++)
        if (map->ids[i] == id)
            return map->paths[i];
    return NULL;
}

void module_map_free(struct module_map *map)
{
    for (size_t i = 0; i < map->count; i++)
        free(map->paths[i]);
    free(map->ids);
    free(map->paths);
    memset(map, 0, sizeof *map);
}

/* Is the file name of `path` one that starts with one of `prefixes`? */
static bool base_name_starts(const char *path, const char *const *prefixes, size_t count)
{
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path ? path : "";
    for (size_t i = 0; i < count; i++)
        if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
            return true;
    return false;
}

bool module_is_plumbing(const char *path)
{
    static const char *const prefixes[] = {"libc.so", "ld-linux", "libfail-preload", "libunwind",
                                           "liblzma", "libasan", "liblsan", "libubsan",
                                           "libfail-kernel", "linux-vdso"};
    return !path || base_name_starts(path, prefixes, sizeof prefixes / sizeof prefixes[0]);
}

bool module_is_tool(const char *path)
{
    static const char *const prefixes[] = {"libfail", "libunwind", "libasan", "liblsan",
                                           "libubsan", "libtsan"};
    return base_name_starts(path, prefixes, sizeof prefixes / sizeof prefixes[0]);
}

bool module_is_system(const char *path)
{
    static const char *const prefixes[] = {
        "libc.so", "ld-linux", "libm.so", "libpthread.so", "libdl.so", "librt.so",
        "libresolv.so", "libnss_", "libnsl.so", "libutil.so", "libcrypt.so", "libstdc++.so",
        "libgcc_s.so", "libanl.so",
    };
    return base_name_starts(path, prefixes, sizeof prefixes / sizeof prefixes[0]);
}

int first_own_frame(const struct module_map *map, const struct frame_list *frames)
{
    for (int i = 0; i < frames->count; i++)
        if (!module_is_plumbing(module_map_path(map, frames->frames[i].module)))
            return i;
    return -1;
}
