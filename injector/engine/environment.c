/*
 * environment.c — what a run is told: its preload, its plan, its environment, and the scope
 * decided from the baseline; and executing one run: its folder, the wait for its end, and which
 * of its folders are kept.
 */
#include "engine/environment.h"
#include "engine/campaign_run.h"
#include "store/database.h"
#include "store/runs.h"
#include "base/pack.h"
#include "base/util.h"
#include "format/plan.h"
#include "format/text.h"
#include "verdict/sanitizer.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    /* The preload of the last kind the campaign fails (kinds.def): it interposes those before. */
    unsigned kinds = settings->fault_kinds ? settings->fault_kinds : PLAN_FAULT_ALLOC;
    const char *name = NULL, *variable = NULL;
#define FAULT_KIND(kind, label, chosen, preload, override)                                         \
    if (settings->kernel ? kind == KIND_SYSCALL : (chosen) && (kinds & PLAN_FAULT(kind))) {        \
        name = preload;                                                                            \
        variable = override;                                                                       \
    }
#include "format/kinds.def"
#undef FAULT_KIND
    const char *override = getenv(variable);
    if (override && *override)
        return xstrdup(override);
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
    return fault_kinds_plan_text(settings->fault_kinds);
}

char *plan_with_cpu_limit(const struct campaign_settings *settings, const char *plan)
{
    return plan_with_program_cpu_limit(settings, plan, NULL);
}

/* A program's own spin limit: its run alone took alone_wall_ms, and a single thread uses no more
   CPU than its wall time, so 5 times that plus half a second is far beyond what its error leg
   may do (an error leg that allocates nothing more does less than the whole run). The
   baseline's bound (5x the whole command's CPU + 2 s) stays the ceiling. */
char *plan_with_program_cpu_limit(const struct campaign_settings *settings, const char *plan,
                                  const struct program *program)
{
    /* Kept out of the stored plans: a replay shows the hang as it is. A plan that says its own
       (a leak scan's replay: ";cpu=0", leakcheck.c) keeps it. */
    if (!settings->hang_cpu_ms || !strncmp(plan, "mode=record", 11) ||
        !strncmp(plan, "mode=kernel", 11) || strstr(plan, ";cpu="))
        return xstrdup(plan);
    int64_t limit = settings->hang_cpu_ms;
    if (program && program->alone && program->alone_wall_ms >= 0) {
        int64_t own = 5 * program->alone_wall_ms + 500;
        if (own < limit)
            limit = own;
    }
    return xasprintf("%s;cpu=%lld", plan, (long long)limit);
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

/* `text` lengthened to `width` with `pad` (as it is when longer already). */
char *padded(const char *text, size_t width, char pad)
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
    char **environment = xcalloc(20, sizeof *environment);
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
    /* A fork run's root (forkrun.c puts it here): in every other run a value of the same length
       that names no folder, so the fork run's environment is the others' (an interpreter that
       copies its environment into its own allocator reached other sites in the fork run). */
    char *no_root = padded("-", RUN_DIR_WIDTH, '-');
    environment[n++] = xasprintf("LIBFAIL_FORK=%s", no_root);
    free(no_root);
    /* Before the scope is decided (the baseline), every process records. */
    char *scope = padded(settings->scope ? settings->scope : "*", RUN_SCOPE_WIDTH, ':');
    environment[n++] = xasprintf("LIBFAIL_EXE=%s", scope);
    free(scope);
    environment[n++] = xasprintf("LIBFAIL_MODULE=%s", settings->module_globs);
    /* failrun kernel --kmem-trace and --kcov: the preload's kernel side reads them (kernel.c). */
    if (settings->kernel && settings->kmem_trace)
        environment[n++] = xstrdup("LIBFAIL_KMEM_TRACE=1");
    if (settings->kernel && settings->kcov)
        environment[n++] = xstrdup("LIBFAIL_KCOV=1");
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
        /* failrun's: this run's own follow. LIBFAIL_TEST_* (a stand-in for the kernel's
           fail-nth file, say) is the test's setting, for every process. */
        if ((!strncmp(entry, "LIBFAIL_", 8) && strncmp(entry, "LIBFAIL_TEST_", 13)) ||
            entry_is(entry, "GCOV_PREFIX") || entry_is(entry, "GCOV_PREFIX_STRIP"))
            continue;
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

/* ---- executing a run ---- */

/* Each attempt at a run gets its own folder: a process left over from a killed failrun (a
   harness's grandchild, say) can then never write into the folder of the resumed attempt. */
char *run_directory(struct campaign_context *context, int64_t run_id)
{
    return xasprintf("%s/%lld-%ld", context->runs_dir, (long long)run_id, (long)getpid());
}

char *kept_path(const struct campaign_context *context, const char *dir)
{
    size_t length = strlen(context->runs_dir);
    if (!context->scratch_dir || strncmp(dir, context->runs_dir, length) || dir[length] != '/')
        return xstrdup(dir);
    return xasprintf("%s%s", context->kept_dir, dir + length);
}

bool settle_run_folder(const struct campaign_context *context, const char *dir, bool keep)
{
    char *kept = kept_path(context, dir);
    bool covered = false;
    if (strcmp(kept, dir)) {
        /* Its gcov data as one pack in its folder's collection (base/pack.h): no file of its
           own, no tree of folders. */
        char *coverage = coverage_directory(dir);
        if (access(coverage, F_OK) == 0) {
            const char *key;
            char *collection = coverage_collection(kept, &key);
            covered = pack_append(coverage, collection, key);
            if (!covered && errno == ENOENT) { /* the first run kept in its folder */
                char *parent = xstrdup(kept);
                *strrchr(parent, '/') = '\0';
                covered = make_directories(parent) && pack_append(coverage, collection, key);
                free(parent);
            }
            if (!covered)
                warn("cannot write %s: %s; that run's coverage is lost", collection,
                     strerror(errno));
            remove_tree(coverage);
            free(collection);
        }
        free(coverage);
        if (keep && !move_tree(dir, kept))
            warn("cannot move %s to %s: %s", dir, kept, strerror(errno));
    } else {
        char *coverage = coverage_directory(dir);
        covered = access(coverage, F_OK) == 0;
        free(coverage);
    }
    if (!keep)
        remove_tree(dir);
    free(kept);
    return covered;
}

/* The folder of a run as the database names it, or NULL. */
static char *run_folder(sqlite3 *db, int64_t run_id)
{
    return store_run_dir(db, run_id);
}

/* A folder an earlier, interrupted failrun kept, into the bound's list. */
static void count_kept_run(int64_t id, void *data)
{
    struct campaign_context *context = data;
    char *dir = run_folder(context->db, id);
    uint64_t bytes = dir ? tree_bytes(dir) : 0;
    free(dir);
    if (bytes) {
        VECTOR_PUSH(context->kept_runs, id);
        context->kept_bytes += bytes;
    }
}

void bound_kept_runs(struct campaign_context *context, int64_t run_id)
{
    if (!context->kept_loaded) { /* folders an earlier, interrupted failrun kept */
        context->kept_loaded = true;
        store_kept_runs_each(context->db, run_id, count_kept_run, context);
    }
    char *dir = run_folder(context->db, run_id);
    context->kept_bytes += dir ? tree_bytes(dir) : 0;
    free(dir);
    VECTOR_PUSH(context->kept_runs, run_id);
    size_t oldest = 0;
    /* The newest run's folder always stays: the bound is never below one run. */
    while (context->kept_bytes > context->options->keep_runs_bytes &&
           oldest + 1 < context->kept_runs.count) {
        char *old = run_folder(context->db, context->kept_runs.items[oldest++]);
        uint64_t bytes = old ? tree_bytes(old) : 0;
        if (old)
            remove_tree(old); /* its gcov data beside it stays, for failrun cov */
        free(old);
        context->kept_bytes -= bytes < context->kept_bytes ? bytes : context->kept_bytes;
        context->kept_removed++;
        context->kept_removed_bytes += bytes;
    }
    memmove(context->kept_runs.items, context->kept_runs.items + oldest,
            (context->kept_runs.count - oldest) * sizeof *context->kept_runs.items);
    context->kept_runs.count -= oldest;
}

struct spawn_result execute_run(struct campaign_context *context, const char *dir,
                                const char *plan, int64_t timeout_ms, const char *const *extra,
                                const struct program *program)
{
    remove_tree(dir);
    if (!make_directories(dir))
        fatal("cannot create %s: %s; check the folder of --db", dir, strerror(errno));
    const struct campaign_settings *settings = &context->options->settings;
    char *limited = plan_with_program_cpu_limit(settings, plan, program);
    char **environment = program ? program_environment(settings, program->environment, dir, limited)
                                 : run_environment(settings, dir, limited);
    free(limited);
    for (size_t i = 0; extra && extra[i]; i++) {
        size_t name = strcspn(extra[i], "=") + 1, n = 0;
        while (environment[n] && strncmp(environment[n], extra[i], name))
            n++;
        if (!environment[n])
            environment = xrealloc(environment, (n + 2) * sizeof *environment),
            environment[n + 1] = NULL;
        free(environment[n]);
        environment[n] = xstrdup(extra[i]);
    }
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    struct spawn_request request = {
        .argv = settings->argv,
        .extra_environment = (const char *const *)environment,
        .stdin_path = settings->stdin_path ? settings->stdin_path : "/dev/null",
        .stdout_path = out,
        .stderr_path = err,
        .timeout_ms = timeout_ms,
    };
    if (program) /* that program alone, as it was started in the baseline */
        start_alone(&request, program, environment);
    struct spawn_result result = spawn_and_wait(&request);
    environment_free(environment);
    free(out);
    free(err);
    return result;
}

/* ---- baseline ---- */

void keep_sites_in_scope(struct run_records *records, const char *scope)
{
    size_t kept = 0;
    for (size_t i = 0; i < records->sites.count; i++) {
        if (scope_includes(scope, records->sites.items[i].exe))
            records->sites.items[kept++] = records->sites.items[i];
        else
            free(records->sites.items[i].exe);
    }
    records->sites.count = kept;
}

void start_alone(struct spawn_request *request, const struct program *program,
                 char **environment)
{
    request->argv = program->argv;
    request->executable = program->exe;
    request->cwd = program->cwd;
    request->extra_environment = NULL;
    request->environment = (const char *const *)environment;
    request->stdin_path = program->stdin_path;
}
