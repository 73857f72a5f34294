/*
 * campaign.c — campaign settings in the database, the per-run environment, module lookups.
 */
#include "store/campaign.h"
#include "store/database.h"
#include "verdict/sanitizer.h"
#include "base/util.h"
#include "format/plan.h"
#include "format/text.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fault_kinds_text(unsigned kinds)
{
    return kinds == PLAN_FAULT_IO ? "io" : kinds == (PLAN_FAULT_ALLOC | PLAN_FAULT_IO) ? "alloc,io"
                                                                                   : "alloc";
}

unsigned fault_kinds_parse(const char *text)
{
    struct plan plan;
    char *probe = xasprintf("mode=record;faults=%s", text ? text : "");
    bool bad = plan_parse(probe, &plan) != NULL;
    free(probe);
    return bad ? 0 : plan.fault_kinds;
}

/* libfail-valgrind.supp beside the preload, or NULL when it is not there. */
static char *valgrind_rules(const char *preload)
{
    const char *slash = strrchr(preload, '/');
    char *rules = xasprintf("%.*slibfail-valgrind.supp", slash ? (int)(slash - preload + 1) : 0,
                            preload);
    if (access(rules, R_OK) == 0)
        return rules;
    free(rules);
    return NULL;
}

char *preload_path(const struct campaign_settings *settings)
{
    bool io = settings->fault_kinds & PLAN_FAULT_IO;
    const char *variable = settings->kernel ? "LIBFAIL_KERNEL_PRELOAD"
                           : io             ? "LIBFAIL_IO_PRELOAD"
                                            : "LIBFAIL_PRELOAD";
    const char *override = getenv(variable);
    if (override && *override)
        return xstrdup(override);
    const char *name = settings->kernel ? "libfail-kernel.so"
                       : io             ? "libfail-preload-io.so"
                                        : "libfail-preload.so";
    char *directory = self_directory();
    char *candidates[] = {
        xasprintf("%s/%s", directory, name),
        xasprintf("%s/../lib/libfail/%s", directory, name),
    };
    char *found = NULL;
    for (size_t i = 0; i < 2; i++) {
        if (!found && access(candidates[i], R_OK) == 0)
            found = realpath(candidates[i], NULL);
        free(candidates[i]);
    }
    free(directory);
    if (!found)
        fatal("cannot find %s next to failrun; set %s to its path", name, variable);
    return found;
}

/* The LD_AUDIT module that shows what the code under test returned (injector/preload/audit.c),
   beside the preload; NULL without --boundary, when the campaign has no scope (no --source, no
   --module), or when the module is missing. */
static char *audit_path(const struct campaign_settings *settings)
{
    bool scoped = (settings->source_globs && *settings->source_globs) ||
                  (settings->module_globs && *settings->module_globs);
    if (!settings->boundary || settings->boundary_idle || !scoped || settings->kernel)
        return NULL;
    const char *override = getenv("LIBFAIL_AUDIT");
    if (override)
        return *override ? xstrdup(override) : NULL; /* empty: no audit */
    char *preload = preload_path(settings);
    char *slash = strrchr(preload, '/');
    char *path = slash ? xasprintf("%.*s/libfail-audit.so", (int)(slash - preload), preload) : NULL;
    free(preload);
    if (path && access(path, R_OK) != 0) {
        free(path);
        path = NULL;
    }
    return path;
}

/* ";faults=..." when the campaign fails more than allocations (plans without it fail those). */
const char *fault_kinds_suffix(const struct campaign_settings *settings)
{
    if (!settings->fault_kinds || settings->fault_kinds == PLAN_FAULT_ALLOC)
        return "";
    return settings->fault_kinds & PLAN_FAULT_ALLOC ? ";faults=alloc,io" : ";faults=io";
}

char *plan_with_cpu_limit(const struct campaign_settings *settings, const char *plan)
{
    /* Kept out of the stored plans: a replay shows the hang as it is. A plan that says its own
       (a leak scan's replay: ";cpu=0", leakcheck.c) keeps it. */
    if (!settings->hang_cpu_ms || !strncmp(plan, "mode=record", 11) ||
        !strncmp(plan, "mode=kernel", 11) || strstr(plan, ";cpu="))
        return xstrdup(plan);
    return xasprintf("%s;cpu=%lld", plan, (long long)settings->hang_cpu_ms);
}

char *plan_text(const struct campaign_settings *settings, const char *chain, uint64_t nth,
                uint64_t seed)
{
    if (settings->kernel)
        return chain && nth ? xasprintf("mode=kernel;sites=%s;nth=%llu;depth=%d%s", chain,
                                        (unsigned long long)nth, settings->depth,
                                        settings->kernel_wrappers ? ";wrappers=1" : "")
                            : plan_record(settings);
    const char *kinds = fault_kinds_suffix(settings);
    if (chain)
        return xasprintf("mode=site;sites=%s;persistent=%d;depth=%d%s", chain,
                         settings->persistent, settings->depth, kinds);
    if (nth)
        return xasprintf("mode=nth;nth=%llu;depth=%d%s", (unsigned long long)nth, settings->depth,
                         kinds);
    if (settings->probability)
        return xasprintf("mode=random;probability=%s;seed=%llu;depth=%d%s", settings->probability,
                         (unsigned long long)seed, settings->depth, kinds);
    return plan_record(settings);
}

char *plan_record(const struct campaign_settings *settings)
{
    if (settings->kernel)
        return xasprintf("mode=kernel;depth=%d%s", settings->depth,
                         settings->kernel_wrappers ? ";wrappers=1" : "");
    /* Before the scope is decided (the baseline) and with no --exe, it will be every non-system
       executable if the command starts one: system executables record until then (plan.c). */
    bool own_first = !settings->scope && !(settings->exe_globs && *settings->exe_globs);
    return xasprintf("mode=record;depth=%d%s%s", settings->depth, fault_kinds_suffix(settings),
                     own_first ? ";own=1" : "");
}

char *coverage_directory(const char *run_dir)
{
    return xasprintf("%s.gcov", run_dir);
}

void remove_run_folder(const char *run_dir)
{
    char *coverage = coverage_directory(run_dir);
    remove_tree(run_dir);
    remove_tree(coverage);
    free(coverage);
}

/* `text` lengthened to `width` with `pad` (as it is when longer already). */
static char *padded(const char *text, size_t width, char pad)
{
    size_t length = strlen(text);
    char *out = xmalloc((length > width ? length : width) + 1);
    memcpy(out, text, length);
    if (length < width)
        memset(out + length, pad, width - length);
    out[length > width ? length : width] = '\0';
    return out;
}

char **run_environment(const struct campaign_settings *settings, const char *run_dir,
                       const char *plan)
{
    /* Every run of a campaign gives the program environment values of the same lengths: the
       folder's name grows with the run's number and the plan with its sites, and a program that
       copies its environment (an interpreter's env array, in its own allocator's blocks) would
       otherwise reach other allocation sites from run to run. A folder takes trailing slashes,
       a plan empty fields. */
    char *dir = padded(run_dir, RUN_DIR_WIDTH, '/');
    char *coverage_dir = coverage_directory(run_dir);
    char *coverage = padded(coverage_dir, RUN_DIR_WIDTH + 5, '/');
    char *limited = plan_with_cpu_limit(settings, plan);
    char *padded_plan = padded(limited, RUN_PLAN_WIDTH, ';');
    free(limited);
    free(coverage_dir);
    run_dir = dir;
    plan = padded_plan;
    char *preload = preload_path(settings);
    const char *existing = getenv("LD_PRELOAD");
    char **environment = xcalloc(16, sizeof *environment);
    size_t n = 0;
    /* Ours first, so it sits above any allocator the user preloads. */
    environment[n++] = existing && *existing ? xasprintf("LD_PRELOAD=%s:%s", preload, existing)
                                             : xasprintf("LD_PRELOAD=%s", preload);
    char *audit = audit_path(settings);
    if (audit) {
        const char *audits = getenv("LD_AUDIT");
        environment[n++] = audits && *audits ? xasprintf("LD_AUDIT=%s:%s", audit, audits)
                                             : xasprintf("LD_AUDIT=%s", audit);
        environment[n++] = xasprintf("LIBFAIL_API_MODULES=%s", settings->module_globs);
        /* A program built with AddressSanitizer: LeakSanitizer's scan of thread-local storage
           at exit faults under an LD_AUDIT module once the preload is active (glibc 2.36, gcc
           12: "Tracer caught signal 11"), which ends the program with status 1. Without that
           part the leak check works; the rules beside the module (libfail-audit.supp) keep the
           dynamic linker's thread-local blocks out of it. */
        size_t length = strlen(audit);
        char *rules = length > 3 && !strcmp(audit + length - 3, ".so")
                          ? xasprintf("%.*s.supp", (int)(length - 3), audit) : NULL;
        const char *lsan = getenv("LSAN_OPTIONS");
        char *ours = rules && access(rules, R_OK) == 0
                         ? xasprintf("use_tls=0:suppressions=%s:print_suppressions=0", rules)
                         : xstrdup("use_tls=0");
        environment[n++] = lsan && *lsan ? xasprintf("LSAN_OPTIONS=%s:%s", lsan, ours)
                                         : xasprintf("LSAN_OPTIONS=%s", ours);
        free(ours);
        free(rules);
        free(audit);
    }
    /* A harness that runs the program under valgrind (curl's runtests does when it is
       installed). By default valgrind sends the guest's malloc calls straight to its own, past
       any preloaded interposer, so no allocation would be seen: nouserintercepts makes it
       replace only the C library's (which the preload calls on to, so memcheck still tracks
       every block). And memcheck's rules for the preload's own code (libfail-valgrind.supp
       beside it). Both before the user's options, which a harness's own command line follows:
       their --soname-synonyms wins. */
    char *rules = valgrind_rules(preload);
    const char *options = getenv("VALGRIND_OPTS");
    /* A fork run's children are clones of a guest: what valgrind would say of them (their
       leaks, into the very log file the harness checks) is not the program's. The same length
       in every run (see above). */
    const char *children = strncmp(plan, "mode=fork", 9) && strncmp(plan, "mode=start", 10)
                               ? " --child-silent-after-fork=no "
                               : " --child-silent-after-fork=yes";
    char *ours = rules ? xasprintf("--soname-synonyms=somalloc=nouserintercepts --suppressions=%s%s",
                                   rules, children)
                       : xasprintf("--soname-synonyms=somalloc=nouserintercepts%s", children);
    environment[n++] = options && *options ? xasprintf("VALGRIND_OPTS=%s %s", ours, options)
                                           : xasprintf("VALGRIND_OPTS=%s", ours);
    free(ours);
    free(rules);
    environment[n++] = xasprintf("LIBFAIL_DIR=%s", run_dir);
    environment[n++] = xasprintf("LIBFAIL_PLAN=%s", plan);
    /* Before the scope is decided (the baseline), every process records. */
    char *scope = padded(settings->scope ? settings->scope : "*", RUN_SCOPE_WIDTH, ':');
    environment[n++] = xasprintf("LIBFAIL_EXE=%s", scope);
    free(scope);
    environment[n++] = xasprintf("LIBFAIL_MODULE=%s", settings->module_globs);
    /* For targets built with -fsanitize=...: reports go to files in the run folder. */
    char *asan = sanitizer_options(getenv("ASAN_OPTIONS"), run_dir, false);
    char *ubsan = sanitizer_options(getenv("UBSAN_OPTIONS"), run_dir, true);
    environment[n++] = xasprintf("ASAN_OPTIONS=%s", asan);
    environment[n++] = xasprintf("UBSAN_OPTIONS=%s", ubsan);
    free(asan);
    free(ubsan);
    /* For targets built with --coverage: each run's .gcda files under its own prefix, at their
       full build path (strip nothing), so failrun cov finds each .gcno by dropping the prefix. */
    environment[n++] = xasprintf("GCOV_PREFIX=%s", coverage);
    environment[n++] = xstrdup("GCOV_PREFIX_STRIP=0");
    free(coverage);
    environment[n] = NULL;
    free(preload);
    free(dir);
    free(padded_plan);
    return environment;
}

static bool entry_is(const char *entry, const char *name)
{
    size_t length = strlen(name);
    return !strncmp(entry, name, length) && entry[length] == '=';
}

/* A preload list (':' or ' ' separated, as ld.so reads it) without libfail's own libraries;
   NULL when nothing else was in it. */
static char *preloads_of_others(const char *list)
{
    char *copy = xstrdup(list), *rest = NULL, *saved = NULL;
    for (char *item = strtok_r(copy, ": ", &saved); item; item = strtok_r(NULL, ": ", &saved)) {
        const char *base = strrchr(item, '/');
        base = base ? base + 1 : item;
        if (!strncmp(base, "libfail-preload", 15) || !strncmp(base, "libfail-kernel", 14))
            continue;
        char *joined = rest ? xasprintf("%s:%s", rest, item) : xstrdup(item);
        free(rest);
        rest = joined;
    }
    free(copy);
    return rest;
}

char **program_environment(const struct campaign_settings *settings, char *const *recorded,
                           const char *run_dir, const char *plan)
{
    char **fresh = run_environment(settings, run_dir, plan);
    VECTOR(char *) out = {0};
    char *other_preloads = NULL;
    bool sanitizer_seen[2] = {false, false};
    static const char *const sanitizer_names[2] = {"ASAN_OPTIONS", "UBSAN_OPTIONS"};
    for (size_t i = 0; recorded && recorded[i]; i++) {
        const char *entry = recorded[i];
        if (!strncmp(entry, "LIBFAIL_", 8) || entry_is(entry, "GCOV_PREFIX") ||
            entry_is(entry, "GCOV_PREFIX_STRIP"))
            continue; /* failrun's: this run's own follow */
        if (entry_is(entry, "LD_PRELOAD")) {
            free(other_preloads);
            other_preloads = preloads_of_others(entry + strlen("LD_PRELOAD="));
            continue;
        }
        if ((entry_is(entry, "LD_AUDIT") && strstr(entry, "libfail-audit")) ||
            entry_is(entry, "LIBFAIL_API_MODULES") ||
            (entry_is(entry, "LSAN_OPTIONS") && strstr(entry, "use_tls=0")) ||
            (entry_is(entry, "VALGRIND_OPTS") && strstr(entry, "somalloc=nouserintercepts")))
            continue; /* ours: this run's own follows */
        bool kept = false;
        for (int undefined = 0; undefined < 2 && !kept; undefined++) {
            const char *name = sanitizer_names[undefined];
            if (!entry_is(entry, name))
                continue;
            bool ours;
            char *user = sanitizer_user_options(entry + strlen(name) + 1, undefined, &ours);
            if (ours) { /* the user's part, with this run's log folder */
                char *dir = padded(run_dir, RUN_DIR_WIDTH, '/');
                char *options = sanitizer_options(user, dir, undefined);
                free(dir);
                VECTOR_PUSH(out, xasprintf("%s=%s", name, options));
                free(options);
            } else { /* the program's own, set by whatever started it: as it was */
                VECTOR_PUSH(out, xstrdup(entry));
            }
            free(user);
            sanitizer_seen[undefined] = kept = true;
        }
        if (!kept)
            VECTOR_PUSH(out, xstrdup(entry));
    }
    for (size_t i = 0; fresh[i]; i++) {
        if (entry_is(fresh[i], "LD_PRELOAD")) {
            char *ours = preload_path(settings);
            VECTOR_PUSH(out, other_preloads ? xasprintf("LD_PRELOAD=%s:%s", ours, other_preloads)
                                            : xasprintf("LD_PRELOAD=%s", ours));
            free(ours);
        } else if (!(entry_is(fresh[i], "ASAN_OPTIONS") && sanitizer_seen[0]) &&
                   !(entry_is(fresh[i], "UBSAN_OPTIONS") && sanitizer_seen[1])) {
            VECTOR_PUSH(out, xstrdup(fresh[i]));
        }
    }
    VECTOR_PUSH(out, NULL);
    free(other_preloads);
    environment_free(fresh);
    return out.items;
}

const char *fixture_reason(const struct ingest_process *process)
{
    bool orphaned = process->exited && process->exit_parent && process->parent &&
                    process->exit_parent != process->parent;
    if (orphaned)
        return "outlived the process that started it";
    if (process->exited || process->signal)
        return NULL; /* it ended by itself (or crashed) while its starter lived: a test */
    if (process->fixture & RECORD_FIXTURE_LISTENED)
        return "served a socket until it was stopped";
    if (process->fixture & RECORD_FIXTURE_SESSION)
        return "left its session (daemonised) and ran until it was stopped";
    return NULL;
}

/* Can this path stand in a scope list as itself (no separator, no glob character)? */
static bool plain_path(const char *path)
{
    return !strpbrk(path, ":*?[]!");
}

char *decide_scope(const struct campaign_settings *settings, const struct run_records *baseline,
                   json_t *fixtures)
{
    if (*settings->exe_globs)
        return xstrdup(settings->exe_globs);
    bool own_code = false;
    for (size_t i = 0; baseline && i < baseline->processes.count; i++)
        if (!path_is_system(baseline->processes.items[i].exe))
            own_code = true;
    if (!own_code)
        return xstrdup(settings->top_exe);
    /* The suite's fixtures (its servers and daemons) are not under test: left out by name. The
       command's own program never is one. */
    char *scope = xstrdup("");
    for (size_t i = 0; baseline && i < baseline->processes.count; i++) {
        const struct ingest_process *process = &baseline->processes.items[i];
        const char *why = fixture_reason(process);
        if (!why || path_is_system(process->exe) || !plain_path(process->exe) ||
            !strcmp(process->exe, settings->top_exe) || json_object_get(fixtures, process->exe))
            continue;
        json_object_set_new(fixtures, process->exe, json_string(why));
        char *longer = xasprintf("%s%s!%s", scope, *scope ? ":" : "", process->exe);
        free(scope);
        scope = longer;
    }
    return scope;
}

bool scope_includes(const char *scope, const char *exe)
{
    return scope_match(scope, exe);
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
            " whole_command = ?, source = ?, wrappers = ?, returns = ?, boundary = ?, test_cases = ?");
    sqlite3_bind_text(statement, 1, settings->policy_nofail ? "nofail" : "all", -1, SQLITE_STATIC);
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
                             " whole_command, source, wrappers, returns, boundary, test_cases"
                             " FROM campaign");
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
                a->kernel == b->kernel && a->kernel_wrappers == b->kernel_wrappers &&
                a->whole_command == b->whole_command &&
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
    free(settings->returns);
    free(settings->test_cases);
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
