/*
 * scheduler.c — the runs of a campaign: the baseline (run twice, deciding the scope), the plan
 * of fault runs (one per site, or nth/random; follow-ups for sites found on error legs), and
 * the -j workers that execute runs outside the database lock and conclude each under it.
 */
#include "symbols/source.h"
#include "engine/campaign_run.h"
#include "store/database.h"
#include "format/plan.h"
#include "format/text.h"
#include "verdict/policy.h"
#include "base/util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Each attempt at a run gets its own folder: a process left over from a killed failrun (a
   harness's grandchild, say) can then never write into the folder of the resumed attempt. */
static char *run_directory(struct campaign_context *context, int64_t run_id)
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

void settle_run_folder(const struct campaign_context *context, const char *dir, bool keep)
{
    char *kept = kept_path(context, dir);
    if (strcmp(kept, dir)) {
        char *coverage = coverage_directory(dir);
        if (access(coverage, F_OK) == 0) {
            char *target = coverage_directory(kept);
            if (!move_tree(coverage, target))
                warn("cannot move %s to %s: %s; that run's coverage is lost", coverage, target,
                     strerror(errno));
            free(target);
        }
        free(coverage);
        if (keep && !move_tree(dir, kept))
            warn("cannot move %s to %s: %s", dir, kept, strerror(errno));
    }
    if (!keep)
        remove_tree(dir);
    free(kept);
}

/* The folder of a run as the database names it, or NULL. */
static char *run_folder(sqlite3 *db, int64_t run_id)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT dir FROM runs WHERE id = ?");
    sqlite3_bind_int64(statement, 1, run_id);
    char *dir = sqlite3_step(statement) == SQLITE_ROW ? column_text(statement, 0) : NULL;
    database_finalize(statement);
    return dir;
}

void bound_kept_runs(struct campaign_context *context, int64_t run_id)
{
    if (!context->kept_loaded) { /* folders an earlier, interrupted failrun kept */
        context->kept_loaded = true;
        sqlite3_stmt *statement = database_prepare(
            context->db, "SELECT id FROM runs WHERE kind = 'fault' AND state = 'done'"
                         " AND finding IS NULL AND dir IS NOT NULL AND id <> ? ORDER BY id");
        sqlite3_bind_int64(statement, 1, run_id);
        while (sqlite3_step(statement) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(statement, 0);
            char *dir = run_folder(context->db, id);
            uint64_t bytes = dir ? tree_bytes(dir) : 0;
            free(dir);
            if (bytes) {
                VECTOR_PUSH(context->kept_runs, id);
                context->kept_bytes += bytes;
            }
        }
        database_finalize(statement);
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
    char **environment = program ? program_environment(settings, program->environment, dir, plan)
                                 : run_environment(settings, dir, plan);
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


static int64_t insert_run(sqlite3 *db, const char *kind, const char *site, const char *chain,
                          const char *plan, int64_t owner)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT INTO runs(kind, site, chain, plan, state, owner)"
            " VALUES (?, ?, ?, ?, 'planned', ?)");
    sqlite3_bind_text(statement, 1, kind, -1, SQLITE_STATIC);
    bind_text_or_null(statement, 2, site);
    bind_text_or_null(statement, 3, chain);
    bind_text_or_null(statement, 4, plan);
    if (owner)
        sqlite3_bind_int64(statement, 5, owner);
    database_step_done(statement);
    database_finalize(statement);
    return sqlite3_last_insert_rowid(db);
}

static int64_t fault_run_count(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT count(*) FROM runs WHERE kind = 'fault'");
    int64_t count = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    return count;
}

/* The chain with each site's first frame ("S:K@MODULE+OFFSET"), which lets the preload skip
   the unwind of every call that cannot be a planned site (plan.c). */
static char *chain_with_tops(sqlite3 *db, const char *chain)
{
    char *result = xstrdup("");
    char *copy = xstrdup(chain);
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT json_extract(frames, '$[0][0]'), json_extract(frames, '$[0][1]')"
            " FROM sites WHERE id = ?");
    for (char *item = strtok(copy, ","); item; item = strtok(NULL, ",")) {
        sqlite3_bind_text(statement, 1, item, 16, SQLITE_TRANSIENT);
        char *next;
        if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0))
            next = xasprintf("%s%s%s@%s+%llx", result, *result ? "," : "", item,
                             (const char *)sqlite3_column_text(statement, 0),
                             (unsigned long long)sqlite3_column_int64(statement, 1));
        else
            next = xasprintf("%s%s%s", result, *result ? "," : "", item);
        sqlite3_reset(statement);
        free(result);
        result = next;
    }
    database_finalize(statement);
    free(copy);
    return result;
}

/* Plan a fault run unless the campaign reached --max-runs. */
static bool plan_run(struct campaign_context *context, const char *site, const char *chain,
                     uint64_t nth, uint64_t seed)
{
    if (fault_run_count(context->db) >= context->options->settings.max_runs)
        return false;
    char *located = chain ? chain_with_tops(context->db, chain) : NULL;
    char *plan = plan_text(&context->options->settings, located, nth, seed);
    insert_run(context->db, "fault", site, chain, plan, chain_owner(context, chain));
    free(plan);
    free(located);
    context->total++;
    return true;
}

/* After the baseline: one run per site (in the order first seen), or the first nth/random runs. */
static void plan_first_runs(struct campaign_context *context)
{
    const struct campaign_settings *settings = &context->options->settings;
    if (settings->nth || settings->nth_sweep) {
        /* A sharded sweep takes every N-th call: K, K+N, K+2N, ... */
        uint64_t first = settings->nth ? settings->nth : settings->shards > 1 ? settings->shard : 1;
        if (settings->nth_sweep || in_shard(settings, first - 1))
            plan_run(context, NULL, NULL, first, 0);
        return;
    }
    if (settings->probability) {
        for (int64_t i = 0; i < settings->max_runs; i++)
            if (in_shard(settings, (uint64_t)i))
                plan_run(context, NULL, NULL, 0, settings->seed + (uint64_t)i);
        return;
    }
    char *failable = failable_sites_condition(settings);
    char *query = xasprintf("SELECT id FROM sites WHERE %s ORDER BY rowid", failable);
    sqlite3_stmt *sites = database_prepare(context->db, query);
    free(query);
    free(failable);
    while (sqlite3_step(sites) == SQLITE_ROW) {
        const char *site = (const char *)sqlite3_column_text(sites, 0);
        uint64_t signature = 0;
        if (!parse_hex16(site, &signature) || !in_shard(settings, signature))
            continue; /* another shard's */
        char *chain = xasprintf("%s:%llu", site, (unsigned long long)settings->occurrence);
        /* failrun kernel: each system-call site starts its sweep at N = 1. */
        plan_run(context, site, chain, settings->kernel ? 1 : 0, 0);
        free(chain);
    }
    database_finalize(sites);
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

static void store_scope(sqlite3 *db, const char *scope)
{
    sqlite3_stmt *statement = database_prepare(db, "UPDATE campaign SET scope = ?");
    sqlite3_bind_text(statement, 1, scope, -1, SQLITE_TRANSIENT);
    database_step_done(statement);
    database_finalize(statement);
}

/* Output that changes from run to run by itself (timings, a test harness's durations, pids)
   says nothing about a fault: run the command once more, fail nothing, and forget the hash of a
   stream that differed (0 = not compared; such runs cannot be `silent`). */
static void stable_output(struct campaign_context *context, const char *plan, int64_t limit,
                          uint64_t *stdout_hash, uint64_t *stderr_hash)
{
    char *dir = xasprintf("%s/baseline-check-%ld", context->runs_dir, (long)getpid());
    execute_run(context, dir, plan, limit, NULL, NULL);
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    if (file_hash(out) != *stdout_hash) {
        *stdout_hash = 0;
        warn("the command's standard output differs from run to run: a run of the whole command "
             "cannot be `silent` (a program run alone is compared with its own output alone)");
    }
    if (file_hash(err) != *stderr_hash)
        *stderr_hash = 0;
    remove_tree(dir);
    free(out);
    free(err);
    free(dir);
}

/* "prog (status 8), sh (status 1)": the processes of a run that did not end with 0 (each
   program once), the first that say why a test harness failed. Static text, replaced by the
   next call. */
static const char *failing_processes(const struct run_records *records)
{
    static char text[512];
    size_t used = 0;
    text[0] = '\0';
    for (size_t i = 0; i < records->processes.count; i++) {
        const struct ingest_process *process = &records->processes.items[i];
        if (process->signal == 0 && (!process->exited || process->exit_status == 0))
            continue;
        const char *base = strrchr(process->exe, '/');
        base = base ? base + 1 : process->exe;
        bool listed = false; /* each program once, by its whole name */
        for (size_t j = 0; j < i && !listed; j++) {
            const struct ingest_process *earlier = &records->processes.items[j];
            const char *name = strrchr(earlier->exe, '/');
            listed = !strcmp(name ? name + 1 : earlier->exe, base) &&
                     (earlier->signal || (earlier->exited && earlier->exit_status));
        }
        if (listed)
            continue;
        const char *signal_name = process->signal ? sigabbrev_np(process->signal) : NULL;
        int n = process->signal && signal_name
                    ? snprintf(text + used, sizeof text - used, "%s%s (SIG%s)", used ? ", " : "",
                               base, signal_name)
                : process->signal
                    ? snprintf(text + used, sizeof text - used, "%s%s (signal %d)",
                               used ? ", " : "", base, process->signal)
                    : snprintf(text + used, sizeof text - used, "%s%s (status %d)",
                               used ? ", " : "", base, process->exit_status);
        if (n < 0 || (size_t)n >= sizeof text - used)
            break;
        used += (size_t)n;
    }
    return used ? text : "no process recorded a failure: see the run's stderr";
}

/* --source that matches no site's file: say so, with a path to write the glob against. */
static void warn_empty_scope(sqlite3 *db, const char *globs)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT (SELECT count(*) FROM sites WHERE NOT outside_source),"
            " (SELECT count(*) FROM sites),"
            " (SELECT source FROM sites WHERE source <> '' ORDER BY rowid LIMIT 1)");
    if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int64(statement, 0) == 0 &&
        sqlite3_column_int64(statement, 1) > 0) {
        const char *example = (const char *)sqlite3_column_text(statement, 2);
        warn("--source %s leaves out all %lld sites: no site's source file matches (the debug "
             "info names them like %s)", globs, (long long)sqlite3_column_int64(statement, 1),
             example ? example : "(none: no debug info)");
    }
    database_finalize(statement);
}

/* Programs the command started without the preload (a harness that cleared LD_PRELOAD, a
   set-user-ID program): their allocations are in no run, and the campaign would look complete. */
static void warn_unpreloaded(sqlite3 *db, int64_t run_id)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT program, reason, count FROM unpreloaded WHERE run = ? ORDER BY program, reason");
    sqlite3_bind_int64(statement, 1, run_id);
    char *list = NULL;
    int programs = 0;
    while (sqlite3_step(statement) == SQLITE_ROW) {
        const char *reason = (const char *)sqlite3_column_text(statement, 1);
        long long count = sqlite3_column_int64(statement, 2);
        char *item = xasprintf("%s%s%s (%s; %lld time%s)", list ? list : "", list ? ", " : "",
                               (const char *)sqlite3_column_text(statement, 0),
                               unpreloaded_reason_words(reason), count, count == 1 ? "" : "s");
        free(list);
        list = item;
        programs++;
    }
    database_finalize(statement);
    if (list)
        warn("%d program%s of the command ran without libfail's preload, so no run covers "
             "them: %s", programs, programs == 1 ? "" : "s", list);
    free(list);
}

/* The command failed under the preload: run it once without (in DIR/plain). When it passes
   there, failrun broke it (a harness that runs it under valgrind and counts errors, a test that
   checks its environment or its descriptors), and every fault run would compare with a failure
   of failrun's own: stop and say so. Otherwise the failure is the command's own. */
static void check_failure_is_own(struct campaign_context *context, const char *dir,
                                 int64_t limit, const char *how)
{
    const struct campaign_settings *settings = &context->options->settings;
    char *plain = xasprintf("%s/plain", dir);
    if (!make_directories(plain))
        fatal("cannot create %s: %s; check the folder of --db", plain, strerror(errno));
    char *out = xasprintf("%s/stdout", plain), *err = xasprintf("%s/stderr", plain);
    char *folder = xasprintf("LIBFAIL_DIR=%s", plain); /* its daemons end with it (leftover.c) */
    const char *extra[] = {folder, NULL};
    struct spawn_request request = {
        .argv = settings->argv,
        .extra_environment = extra,
        .stdin_path = settings->stdin_path ? settings->stdin_path : "/dev/null",
        .stdout_path = out,
        .stderr_path = err,
        .timeout_ms = limit,
        .run_dir = plain,
    };
    if (!context->options->quiet)
        fprintf(stderr, "failrun: the baseline %s; running the command once without libfail\n",
                how);
    struct spawn_result result = spawn_and_wait(&request);
    if (result.started && !result.timed_out && !result.signal && result.exit_code == 0) {
        char *with = xasprintf("%s/stderr", dir);
        char *text = read_whole_file(with, NULL);
        bool valgrind = text && strstr(text, "== ") && strstr(text, "libfail");
        free(text);
        free(with);
        fatal("the command passes without libfail but %s under its preload: failrun broke it, and "
              "a campaign would compare every run with that failure. Its output with the preload "
              "is in %s, without it in %s.%s Please report this as a libfail bug.", how, dir,
              plain, valgrind ? " valgrind reports errors in libfail's own code there: failrun "
                                "passes its rules in VALGRIND_OPTS; a harness that sets its own "
                                "options may need --suppressions=PATH/libfail-valgrind.supp "
                                "(beside libfail-preload.so)."
                              : "");
    }
    free(folder);
    free(out);
    free(err);
    free(plain);
}

/* ---- are runs at the same time safe? ----
 * Two runs of a harness at once can share its log folder, its servers' pid files and ports: then
 * each disturbs the other, and every fault run at -j N reads as not-reached or fails for nothing.
 * With -j above 1, the baseline has a twin started at the same moment. When the twin ends
 * otherwise or reaches fewer of the baseline's sites, one more run made alone tells why: if it
 * agrees with the baseline, the command cannot run beside itself, and the campaign runs one at a
 * time (kept in campaign_notes, so a resumed campaign does too). If it also differs, the command
 * varies by itself, which the runs' own verdicts deal with. */

struct twin_run {
    struct campaign_context *context;
    char *dir;
    const char *plan;
    int64_t limit;
    struct spawn_result result;
    pthread_t thread;
    bool started;
};

static void *twin_main(void *argument)
{
    struct twin_run *twin = argument;
    twin->result = execute_run(twin->context, twin->dir, twin->plan, twin->limit, NULL, NULL);
    return NULL;
}

static int compare_signatures(const void *a, const void *b)
{
    uint64_t left = *(const uint64_t *)a, right = *(const uint64_t *)b;
    return (left > right) - (left < right);
}

/* How many of `these` sites in scope `those` did not reach; *count: how many there are. */
static size_t sites_not_in(const struct run_records *these, const struct run_records *those,
                           const char *scope, size_t *count)
{
    uint64_t *reached = xcalloc(those->sites.count + 1, sizeof *reached);
    size_t n = 0;
    for (size_t i = 0; i < those->sites.count; i++)
        if (scope_includes(scope, those->sites.items[i].exe))
            reached[n++] = those->sites.items[i].signature;
    qsort(reached, n, sizeof *reached, compare_signatures);
    size_t missing = 0;
    *count = 0;
    for (size_t i = 0; i < these->sites.count; i++) {
        if (!scope_includes(scope, these->sites.items[i].exe))
            continue;
        ++*count;
        if (!bsearch(&these->sites.items[i].signature, reached, n, sizeof *reached,
                     compare_signatures))
            missing++;
    }
    free(reached);
    return missing;
}

/* How `other` differs from the baseline: NULL when it does not (same ending, every in-scope site
   of the baseline reached), else a description in `why` (empty when the run cannot be read). */
static const char *run_differs(const struct spawn_result *baseline,
                               const struct run_records *reference, const char *dir,
                               const struct spawn_result *other, const char *scope, char *why,
                               size_t size)
{
    if (other->timed_out || other->signal != baseline->signal ||
        other->exit_code != baseline->exit_code) {
        snprintf(why, size, "one ended with %s %d, the other with %s %d",
                 other->signal ? "signal" : "status", other->signal ? other->signal : other->exit_code,
                 baseline->signal ? "signal" : "status",
                 baseline->signal ? baseline->signal : baseline->exit_code);
        return why;
    }
    struct run_records records = {0};
    ingest_run(dir, &records);
    size_t expected = 0, reached = 0;
    size_t missing = sites_not_in(reference, &records, scope, &expected);
    size_t extra = sites_not_in(&records, reference, scope, &reached);
    run_records_free(&records);
    if (!missing && !extra)
        return NULL;
    snprintf(why, size, "one reached %zu sites, the other %zu, %zu of them in common", reached,
             expected, expected - missing);
    return why;
}

/* Did the twin print what the baseline printed, on both streams? Then the output is stable. */
static bool same_output(const struct twin_run *twin, uint64_t stdout_hash, uint64_t stderr_hash)
{
    if (!twin->started)
        return false;
    char *out = xasprintf("%s/stdout", twin->dir), *err = xasprintf("%s/stderr", twin->dir);
    bool same = file_hash(out) == stdout_hash && file_hash(err) == stderr_hash;
    free(out);
    free(err);
    return same;
}

/* What the baseline learnt about running the command, kept for a resumed campaign. */
static void set_campaign_note(sqlite3 *db, const char *kind, const char *text)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT OR REPLACE INTO campaign_notes(kind, text) VALUES (?, ?)");
    sqlite3_bind_text(statement, 1, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(statement, 2, text, -1, SQLITE_TRANSIENT);
    database_step_done(statement);
    database_finalize(statement);
}

/* Compares the twin with the baseline; runs one more alone when they differ. True when the
   baseline itself was the run disturbed (the one alone agrees with the twin, not with it): the
   run alone, made as a baseline is and where one is kept, is the baseline then; its folder and
   how it ended are returned in *alone_dir and *alone_result. */
static bool check_twin(struct campaign_context *context, struct twin_run *twin,
                       const struct spawn_result *baseline, const struct run_records *records,
                       const char *scope, char **alone_dir, struct spawn_result *alone_result)
{
    char at_once[200], alone[200];
    bool differs = run_differs(baseline, records, twin->dir, &twin->result, scope, at_once,
                               sizeof at_once);
    /* Two runs that fail alike may have broken each other (a suite deleting the other's
       scratch files): a baseline that failed is checked alone too. */
    bool failed = baseline->timed_out || baseline->signal || baseline->exit_code != 0;
    if (!differs && !failed)
        return false;
    char *dir = xasprintf("%s/baseline-alone-%ld", context->kept_dir, (long)getpid());
    struct spawn_result result = execute_run(context, dir, twin->plan, twin->limit, NULL, NULL);
    bool varies = run_differs(baseline, records, dir, &result, scope, alone, sizeof alone);
    bool baseline_disturbed = false, like_twin = false;
    if (varies) { /* does the one alone agree with the twin? then the baseline was disturbed */
        struct run_records twin_records = {0};
        ingest_run(twin->dir, &twin_records);
        char unused[200];
        like_twin = !run_differs(&twin->result, &twin_records, dir, &result, scope, unused,
                                 sizeof unused);
        /* so it was too when it failed beside the twin and passes alone */
        baseline_disturbed = like_twin || (failed && !result.timed_out && !result.signal &&
                                           result.exit_code == 0);
        run_records_free(&twin_records);
    }
    if (baseline_disturbed) {
        *alone_dir = dir;
        *alone_result = result;
    } else {
        remove_run_folder(dir);
        free(dir);
    }
    if (varies ? !baseline_disturbed : !differs)
        return false; /* it differs by itself, or fails alone too: nothing about -j to learn */
    char *note = xasprintf("two runs of the command at the same time disturb each other (%s: %s; "
                           "a run alone %s): they share files, folders or ports. Runs go one at "
                           "a time (-j1)",
                           baseline_disturbed ? "the baseline, beside another run, differed from "
                                                "a run alone"
                                              : "a run beside the baseline differed from it",
                           baseline_disturbed ? alone : at_once,
                           !baseline_disturbed ? "agreed with the baseline"
                           : like_twin         ? "agreed with the other"
                                               : "passed where the baseline failed");
    warn("%s", note);
    set_campaign_note(context->db, "jobs", note);
    free(note);
    context->options->jobs = 1;
    return baseline_disturbed;
}

/* "failrun: 2 fixtures of the suite are not under test: sws (served a socket ...), ..." */
static void note_fixtures(struct campaign_context *context, json_t *fixtures)
{
    if (context->options->quiet || !json_object_size(fixtures))
        return;
    fprintf(stderr, "failrun: %zu fixture%s of the command %s not under test:",
            json_object_size(fixtures), json_object_size(fixtures) == 1 ? "" : "s",
            json_object_size(fixtures) == 1 ? "is" : "are");
    const char *exe;
    json_t *why;
    const char *separator = " ";
    json_object_foreach(fixtures, exe, why) {
        const char *base = strrchr(exe, '/');
        fprintf(stderr, "%s%s (%s)", separator, base ? base + 1 : exe, json_string_value(why));
        separator = ", ";
    }
    fputs("; --exe brings one back\n", stderr);
}

static void store_fixtures(sqlite3 *db, json_t *fixtures)
{
    database_exec(db, "DELETE FROM fixtures");
    sqlite3_stmt *insert = database_prepare(db, "INSERT INTO fixtures(exe, why) VALUES (?, ?)");
    const char *exe;
    json_t *why;
    json_object_foreach(fixtures, exe, why) {
        sqlite3_bind_text(insert, 1, exe, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 2, json_string_value(why), -1, SQLITE_TRANSIENT);
        database_step_done(insert);
    }
    database_finalize(insert);
}

void run_baseline(struct campaign_context *context)
{
    sqlite3 *db = context->db;
    database_exec(db, "BEGIN IMMEDIATE");
    database_exec(db, "DELETE FROM runs; DELETE FROM sites; DELETE FROM live; DELETE FROM processes;"
                      " DELETE FROM findings; DELETE FROM modules; DELETE FROM programs;"
                      " DELETE FROM unpreloaded;");
    int64_t run_id = insert_run(db, "baseline", NULL, NULL, NULL, 0);
    database_exec(db, "COMMIT");
    /* The baseline stays, and the messages below point into it: it runs where it is kept. */
    char *dir = xasprintf("%s/%lld-%ld", context->kept_dir, (long long)run_id, (long)getpid());
    char *plan = plan_record(&context->options->settings);
    int64_t limit = context->options->settings.timeout_ms ? context->options->settings.timeout_ms
                                                           : 3600 * 1000;
    if (!context->options->quiet)
        fprintf(stderr, "failrun: baseline run of %s\n", context->options->settings.argv[0]);
    struct twin_run twin = {.context = context, .plan = plan, .limit = limit,
                            .dir = xasprintf("%s/baseline-twin-%ld", context->runs_dir,
                                             (long)getpid())};
    if (context->options->jobs > 1)
        twin.started = pthread_create(&twin.thread, NULL, twin_main, &twin) == 0;
    struct spawn_result result = execute_run(context, dir, plan, limit, NULL, NULL);
    if (twin.started)
        pthread_join(twin.thread, NULL);
    set_run_directory(db, run_id, dir);
    struct run_records records = {0};
    ingest_run(dir, &records);
    if (twin.started && !result.timed_out) {
        json_t *ignored = json_object();
        char *scope = decide_scope(&context->options->settings, &records, ignored);
        char *alone_dir = NULL;
        struct spawn_result alone;
        bool disturbed = check_twin(context, &twin, &result, &records, scope, &alone_dir, &alone);
        json_decref(ignored);
        free(scope);
        if (disturbed) { /* the baseline was the run disturbed: the run alone stands for it */
            remove_run_folder(dir);
            free(dir);
            dir = alone_dir;
            result = alone;
            set_run_directory(db, run_id, dir);
            run_records_free(&records);
            ingest_run(dir, &records);
        }
    }
    /* Its CPU time, for the limit of fault runs (load_baseline). */
    char cpu[32];
    snprintf(cpu, sizeof cpu, "%lld", (long long)result.cpu_ms);
    set_campaign_note(db, "baseline_cpu_ms", cpu);
    if (result.timed_out)
        fatal("the command did not finish within %lld s without any fault injected; "
              "raise --timeout or fix the command", (long long)(limit / 1000));
    if (result.exit_code == 127 && !result.started)
        fatal("cannot run %s (see %s/stderr)", context->options->settings.argv[0], dir);
    if (result.signal || result.exit_code != 0) {
        char *how = result.signal ? xasprintf("dies of SIG%s", sigabbrev_np(result.signal))
                                  : xasprintf("exits with status %d", result.exit_code);
        check_failure_is_own(context, dir, limit, how);
        free(how);
    }
    if (result.signal)
        fatal("the command dies of SIG%s without any fault injected, with libfail or without; "
              "failrun needs a command that passes on its own (output in %s)",
              sigabbrev_np(result.signal), dir);
    if (result.exit_code != 0)
        warn("the command exits with status %d even without faults, with libfail or without "
             "(%s); outcomes compare against it", result.exit_code, failing_processes(&records));
    if (records.processes.count == 0)
        fatal("no process of the command loaded libfail-preload.so: is it statically linked or "
              "setuid? failrun needs a dynamically linked program");
    struct campaign_settings *settings = &context->options->settings;
    free(settings->scope);
    json_t *fixtures = json_object();
    settings->scope = decide_scope(settings, &records, fixtures);
    keep_sites_in_scope(&records, settings->scope);
    note_fixtures(context, fixtures);
    if (records.sites.count == 0)
        warn("no allocation site seen in scope: check --exe/--module, or the command starts no "
             "in-scope program%s", json_object_size(fixtures) ? " (its fixtures are left out: "
                                                               "--exe brings one back)" : "");
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    uint64_t stdout_hash = file_hash(out), stderr_hash = file_hash(err);
    /* Inside a suite whose runs start programs alone, the command's own output may never be
       compared: the check waits until a run of the whole command needs it (check_output). Until
       then the hashes are not stored, so a campaign resumed before it compares no output. */
    bool stable = same_output(&twin, stdout_hash, stderr_hash); /* the twin printed the same */
    if (stable || context->options->fork == FORK_ALWAYS) {
        /* checked (or the fork run checks it: forkrun.c) */
    } else if (owner_mode(settings)) {
        context->output_pending = true;
        context->pending_stdout = stdout_hash;
        context->pending_stderr = stderr_hash;
        stdout_hash = stderr_hash = 0;
    } else {
        stable_output(context, plan, limit, &stdout_hash, &stderr_hash);
    }
    remove_tree(twin.dir);
    free(twin.dir);
    free(plan);
    database_exec(db, "BEGIN IMMEDIATE");
    store_scope(db, settings->scope);
    store_fixtures(db, fixtures);
    json_decref(fixtures);
    owners_store(context, &records, result.pid);
    database_store_records(db, run_id, &records, frames_are_instrumentation);
    database_store_unpreloaded(db, run_id, &records);
    warn_unpreloaded(db, run_id);
    sites_mark_source(db, settings->source_globs);
    if (settings->source_globs && *settings->source_globs)
        warn_empty_scope(db, settings->source_globs);
    finish_run(db, run_id, NULL, &result, NULL, NULL, records.problems, 0);
    sqlite3_stmt *statement = database_prepare(
        db, "UPDATE campaign SET baseline_exit = ?, baseline_signal = ?, baseline_stdout = ?,"
            " baseline_stderr = ?, baseline_wall_ms = ?");
    sqlite3_bind_int(statement, 1, result.exit_code);
    sqlite3_bind_int(statement, 2, result.signal);
    if (stdout_hash)
        sqlite3_bind_int64(statement, 3, (sqlite3_int64)stdout_hash);
    if (stderr_hash)
        sqlite3_bind_int64(statement, 4, (sqlite3_int64)stderr_hash);
    sqlite3_bind_int64(statement, 5, result.wall_ms);
    database_step_done(statement);
    database_finalize(statement);
    plan_first_runs(context);
    database_exec(db, "COMMIT");
    free(out);
    free(err);
    free(dir);
    run_records_free(&records);
}

void check_output(struct campaign_context *context)
{
    if (!context->output_pending)
        return;
    sqlite3_stmt *statement = database_prepare(
        context->db, "SELECT count(*) FROM runs r LEFT JOIN programs p ON p.id = r.owner"
                     " WHERE r.kind = 'fault' AND r.state = 'planned'"
                     " AND (r.owner IS NULL OR p.alone IS NOT 'yes')");
    bool needed = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int64(statement, 0) > 0;
    database_finalize(statement);
    if (!needed)
        return; /* not yet: a run of the whole command may still be planned later */
    context->output_pending = false;
    uint64_t stdout_hash = context->pending_stdout, stderr_hash = context->pending_stderr;
    char *plan = plan_record(&context->options->settings);
    int64_t limit = context->options->settings.timeout_ms ? context->options->settings.timeout_ms
                                                           : 3600 * 1000;
    stable_output(context, plan, limit, &stdout_hash, &stderr_hash);
    free(plan);
    statement = database_prepare(context->db,
                                 "UPDATE campaign SET baseline_stdout = ?, baseline_stderr = ?");
    if (stdout_hash)
        sqlite3_bind_int64(statement, 1, (sqlite3_int64)stdout_hash);
    if (stderr_hash)
        sqlite3_bind_int64(statement, 2, (sqlite3_int64)stderr_hash);
    database_step_done(statement);
    database_finalize(statement);
    context->baseline_stdout = stdout_hash;
    context->baseline_stderr = stderr_hash;
}

/* A fault run whose process spins after its failure is a hang once that process has used
   five times the CPU of the whole baseline (recorded, so slower than a fault run) and two
   seconds more: no process the command waited for did that much in the baseline, whatever the
   machine's load (a daemon it did not wait for is not counted; its CPU is no fault run's).
   Off where it would come after the wall-clock limit anyway, and in kernel campaigns. A campaign
   from before the note was kept goes without. */
static void set_hang_cpu(struct campaign_context *context)
{
    struct campaign_settings *settings = &context->options->settings;
    settings->hang_cpu_ms = 0;
    sqlite3_stmt *statement = database_prepare(
        context->db, "SELECT CAST(text AS INTEGER) FROM campaign_notes WHERE kind = 'baseline_cpu_ms'");
    if (sqlite3_step(statement) == SQLITE_ROW && !settings->kernel) {
        int64_t limit = 5 * sqlite3_column_int64(statement, 0) + 2000;
        if (limit < context->timeout_ms)
            settings->hang_cpu_ms = limit;
    }
    database_finalize(statement);
}

void load_baseline(struct campaign_context *context)
{
    sqlite3_stmt *statement = database_prepare(
        context->db, "SELECT baseline_exit, baseline_signal, baseline_stdout, baseline_stderr,"
                     " baseline_wall_ms, (SELECT id FROM runs WHERE kind = 'baseline')"
                     " FROM campaign");
    if (sqlite3_step(statement) != SQLITE_ROW)
        fatal("the campaign database lost its baseline; remove it and run again");
    context->baseline.exit_code = sqlite3_column_int(statement, 0);
    context->baseline.signal = sqlite3_column_int(statement, 1);
    context->baseline_stdout = (uint64_t)sqlite3_column_int64(statement, 2);
    context->baseline_stderr = (uint64_t)sqlite3_column_int64(statement, 3);
    int64_t wall = sqlite3_column_int64(statement, 4);
    context->baseline_id = sqlite3_column_int64(statement, 5);
    database_finalize(statement);
    context->timeout_ms = context->options->settings.timeout_ms
                              ? context->options->settings.timeout_ms
                              : 10 * wall + 5000;
    set_hang_cpu(context);
    leak_load_baseline(context);
    /* Runs that disturb each other at the same time (check_twin): one at a time, resumed too. */
    statement = database_prepare(context->db, "SELECT text FROM campaign_notes WHERE kind = 'jobs'");
    if (sqlite3_step(statement) == SQLITE_ROW && context->options->jobs > 1) {
        context->options->jobs = 1;
        if (!context->options->quiet)
            fprintf(stderr, "failrun: runs go one at a time: %s\n", sqlite3_column_text(statement, 0));
    }
    database_finalize(statement);
    /* A baseline that followed no call into a library in scope (its sources compiled into the
       programs, as expat's tests have them) learned nothing the fault runs could use: they run
       without the audit module, whose trampoline every call through the PLT pays. */
    struct campaign_settings *settings = &context->options->settings;
    if (settings->boundary) {
        statement = database_prepare(context->db, "SELECT count(*) FROM conventions");
        settings->boundary_idle = sqlite3_step(statement) == SQLITE_ROW &&
                                  sqlite3_column_int64(statement, 0) == 0;
        database_finalize(statement);
    }
}

bool baseline_done(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT count(*) FROM runs WHERE kind = 'baseline' AND state = 'done'");
    bool done = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int(statement, 0) > 0;
    database_finalize(statement);
    return done;
}

/* Unlocked: several of these run at once (-j), each with its own folder. */
static void perform_job(struct campaign_context *context, struct job *job)
{
    job->dir = run_directory(context, job->run_id);
    job->result = execute_run(context, job->dir, job->plan,
                              job->program ? job->program->timeout_ms : context->timeout_ms, NULL,
                              job->program);
    ingest_run(job->dir, &job->records);
    keep_sites_in_scope(&job->records, context->options->settings.scope);
    leak_confirm(context, job);
}

/* Exploration: sites this run revealed (on the error leg of its chain) get runs of their own,
   with the chain that led there; an nth sweep moves on to the next call. */
/* Mark the sites a run revealed first (or just `site`) that will get no run of their own, and
   why. */
static void leave_unexplored(struct campaign_context *context, int64_t run_id, const char *site,
                             const char *reason)
{
    /* Only sites a run could fail (not exempt by the NOFAIL policy) count. */
    char *failable = failable_sites_condition(&context->options->settings);
    char *query = xasprintf("UPDATE sites SET unexplored = ? WHERE first_run = ? AND"
                            " unexplored IS NULL AND (?3 IS NULL OR id = ?3) AND %s", failable);
    sqlite3_stmt *statement = database_prepare(context->db, query);
    free(query);
    free(failable);
    sqlite3_bind_text(statement, 1, reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(statement, 2, run_id);
    bind_text_or_null(statement, 3, site);
    database_step_done(statement);
    database_finalize(statement);
}

static uint64_t site_key(struct campaign_context *context, const char *site)
{
    sqlite3_stmt *statement = database_prepare(context->db, "SELECT frames FROM sites WHERE id = ?");
    sqlite3_bind_text(statement, 1, site, -1, SQLITE_TRANSIENT);
    struct frame_list frames = {0};
    if (sqlite3_step(statement) == SQLITE_ROW)
        frames_from_json((const char *)sqlite3_column_text(statement, 0), &frames);
    database_finalize(statement);
    return exploration_key(context, &frames);
}

/* Has a site with the same exploration key had a run? If not, remember this one as explored. */
static bool explored_before(struct campaign_context *context, const char *site)
{
    if (!context->explored_loaded) {
        context->explored_loaded = true;
        /* Every site of the baseline (each has a run, in this shard or another) and every site
           that got a run since. */
        sqlite3_stmt *sites = database_prepare(
            context->db, "SELECT id FROM sites WHERE first_run IN"
                         " (SELECT id FROM runs WHERE kind = 'baseline') UNION"
                         " SELECT site FROM runs WHERE kind = 'fault' AND site IS NOT NULL");
        while (sqlite3_step(sites) == SQLITE_ROW)
            VECTOR_PUSH(context->explored,
                        site_key(context, (const char *)sqlite3_column_text(sites, 0)));
        database_finalize(sites);
    }
    uint64_t key = site_key(context, site);
    for (size_t i = 0; i < context->explored.count; i++)
        if (context->explored.items[i] == key)
            return true;
    VECTOR_PUSH(context->explored, key);
    return false;
}

void plan_follow_ups(struct campaign_context *context, const struct job *job,
                     enum outcome outcome)
{
    const struct campaign_settings *settings = &context->options->settings;
    if (settings->kernel) {
        /* The N-th fault point of the call was reached: try N + 1, until a read-back says the
           call has fewer (the fault did not fire: no follow-up, see conclude_job). */
        struct plan plan;
        if (!plan_parse(job->plan, &plan) && plan.nth < KERNEL_MAX_NTH)
            plan_run(context, job->site, job->chain, plan.nth + 1, 0);
        return;
    }
    if (settings->nth_sweep) {
        struct plan plan;
        if (!plan_parse(job->plan, &plan))
            plan_run(context, NULL, NULL, plan.nth + (settings->shards > 1 ? settings->shards : 1), 0);
        return;
    }
    int length = 1;
    for (const char *c = job->chain; c && *c; c++)
        length += *c == ',';
    if (!job->chain)
        return; /* random runs are not extended */
    if (length >= PLAN_MAX_FAULTS) {
        leave_unexplored(context, job->run_id, NULL, "chain-length");
        return; /* a chain of 8 is long enough */
    }
    /* The program ended at (or because of) the failure: what it allocated on the way out is
       the exit path of a process going down on purpose (oom-abort) or already broken (crash,
       caller-crash, hang), not an error leg. An error exit (handled) is still extended: an
       error leg's own unchecked allocation (the message it formats before exiting) is a bug
       worth finding. */
    if (outcome == OUTCOME_OOM_ABORT || outcome == OUTCOME_CRASH ||
        outcome == OUTCOME_CALLER_CRASH || outcome == OUTCOME_HANG) {
        leave_unexplored(context, job->run_id, NULL, outcome_name(outcome));
        return;
    }
    char *failable = failable_sites_condition(settings);
    char *query = xasprintf("SELECT id FROM sites WHERE first_run = ? AND %s ORDER BY rowid",
                            failable);
    sqlite3_stmt *fresh = database_prepare(context->db, query);
    free(query);
    free(failable);
    sqlite3_bind_int64(fresh, 1, job->run_id);
    while (sqlite3_step(fresh) == SQLITE_ROW) {
        const char *site = (const char *)sqlite3_column_text(fresh, 0);
        if (explored_before(context, site)) {
            /* The same allocation call, made from the same call of its function: nothing new. */
            leave_unexplored(context, job->run_id, site, "same-call");
            continue;
        }
        char *chain = xasprintf("%s,%s:1", job->chain, site);
        if (!plan_run(context, site, chain, 0, 0))
            leave_unexplored(context, job->run_id, site, "max-runs");
        free(chain);
    }
    database_finalize(fresh);
}

static void job_free(struct job *job)
{
    sanitizer_leaks_free(&job->leaks);
    free(job->site);
    free(job->chain);
    free(job->plan);
    free(job->dir);
    run_records_free(&job->records);
    memset(job, 0, sizeof *job);
}

/* Under the lock: the next planned run nobody took yet (runs are taken in id order). */
static bool take_job(struct campaign_context *context, struct job *job)
{
    sqlite3_stmt *next = database_prepare(
        context->db, "SELECT id, site, chain, plan, owner FROM runs WHERE state = 'planned'"
                     " AND id > ? ORDER BY id LIMIT 1");
    sqlite3_bind_int64(next, 1, context->last_taken);
    bool found = sqlite3_step(next) == SQLITE_ROW;
    if (found) {
        memset(job, 0, sizeof *job);
        job->run_id = sqlite3_column_int64(next, 0);
        job->site = column_text(next, 1);
        job->chain = column_text(next, 2);
        job->plan = column_text(next, 3);
        int64_t owner = sqlite3_column_int64(next, 4);
        job->program = owner ? program_get(context, owner) : NULL;
        if (job->program && !job->program->alone)
            job->program = NULL; /* not checked (or failed it): the whole command */
        context->last_taken = job->run_id;
    }
    database_finalize(next);
    return found;
}

static void show_progress(struct campaign_context *context, const struct job *job,
                          enum outcome outcome)
{
    if (context->options->quiet)
        return;
    int64_t elapsed = now_ms() - context->started_ms;
    int64_t remaining = context->total - context->done;
    int64_t eta = context->done ? elapsed * remaining / context->done / 1000 : 0;
    if (context->terminal)
        fprintf(stderr, "\r\033[Kfailrun: %lld/%lld runs, %lld finding(s), ETA %llds",
                (long long)context->done, (long long)context->total,
                (long long)context->findings, (long long)eta);
    else
        fprintf(stderr, "failrun: [%lld/%lld] site %s: %s\n", (long long)context->done,
                (long long)context->total, job->site ? job->site : "-", outcome_name(outcome));
}

/* Conclusions of quick runs are committed together: a transaction per run of a few
   milliseconds was a tenth of failrun's time. Each conclusion is a savepoint inside the batch,
   and the batch is committed once it is BATCH_MS old or a run took that long (a slow run pays
   nothing noticeable for its own commit). Killed meanwhile, the runs of the open batch are made
   again on resume, as any run that was not concluded. */
#define BATCH_MS 200

static void batch_begin(struct campaign_context *context)
{
    if (!context->batch_open) {
        database_exec(context->db, "BEGIN IMMEDIATE");
        context->batch_open = true;
        context->batch_started_ms = now_ms();
    }
    database_exec(context->db, "SAVEPOINT conclude");
}

static void batch_end(struct campaign_context *context, int64_t run_wall_ms)
{
    database_exec(context->db, "RELEASE conclude");
    if (run_wall_ms >= BATCH_MS || now_ms() - context->batch_started_ms >= BATCH_MS)
        conclusions_commit(context);
}

void conclusions_commit(struct campaign_context *context)
{
    if (context->batch_open)
        database_exec(context->db, "COMMIT");
    context->batch_open = false;
}

/* Under the database lock: judge the run (judge.c) and store it with all it revealed, in one
   savepoint of the open batch; plan the runs its error leg calls for; settle its folder. */
enum outcome conclude_job(struct campaign_context *context, struct job *job)
{
    batch_begin(context);
    char *kept = kept_path(context, job->dir);
    set_run_directory(context->db, job->run_id, kept);
    free(kept);
    bool evidence = false, fired = false; /* evidence: a bug's or a finding's folder */
    enum outcome outcome = judge_run(context, job, &evidence, &fired);
    if (fired)
        plan_follow_ups(context, job, outcome); /* sites this run stored first are new */
    /* Before the commit: killed in between, the run is made again and its folder replaced. */
    settle_run_folder(context, job->dir, evidence || context->options->keep_runs);
    if (context->options->keep_runs && !evidence)
        bound_kept_runs(context, job->run_id);
    batch_end(context, job->result.wall_ms);
    return outcome;
}

/* Under the lock: conclude finished runs in the order of their ids, each once every run taken
   before it is concluded. What a run plans depends on what was concluded before it: a site
   reached on the error legs of two runs is stored as first seen by whichever is concluded first
   (sites.first_run) and gets its chain from that run only, and of two sites with one exploration
   key only the first is explored. Concluding in the order runs finished made those chains, and
   so the run count, differ from campaign to campaign (and between -j1, -j2 and --fork). */
static void conclude_in_order(struct campaign_context *context)
{
    while (context->finished.count) {
        int64_t oldest = context->in_flight.items[0];
        for (size_t i = 1; i < context->in_flight.count; i++)
            if (context->in_flight.items[i] < oldest)
                oldest = context->in_flight.items[i];
        size_t at = 0;
        while (at < context->finished.count && context->finished.items[at].run_id != oldest)
            at++;
        if (at == context->finished.count)
            return; /* the oldest run is still running */
        struct job job = context->finished.items[at];
        context->finished.items[at] = context->finished.items[--context->finished.count];
        for (size_t i = 0; i < context->in_flight.count; i++)
            if (context->in_flight.items[i] == oldest) {
                context->in_flight.items[i] = context->in_flight.items[--context->in_flight.count];
                break;
            }
        enum outcome outcome = conclude_job(context, &job);
        context->busy--;
        context->done++;
        context->findings += outcome_is_bug(outcome);
        show_progress(context, &job, outcome);
        job_free(&job);
    }
}

static void *worker(void *argument)
{
    struct campaign_context *context = argument;
    pthread_mutex_lock(&context->lock);
    for (;;) {
        struct job job;
        if (!take_job(context, &job)) {
            if (context->busy == 0)
                break;
            pthread_cond_wait(&context->changed, &context->lock); /* a busy run may add runs */
            continue;
        }
        context->busy++;
        VECTOR_PUSH(context->in_flight, job.run_id);
        pthread_mutex_unlock(&context->lock);
        perform_job(context, &job);
        pthread_mutex_lock(&context->lock);
        VECTOR_PUSH(context->finished, job);
        conclude_in_order(context);
        pthread_cond_broadcast(&context->changed);
    }
    pthread_cond_broadcast(&context->changed);
    pthread_mutex_unlock(&context->lock);
    return NULL;
}

void run_planned(struct campaign_context *context)
{
    check_output(context);
    sqlite3_stmt *count = database_prepare(
        context->db, "SELECT count(*), coalesce(sum(state = 'done'), 0),"
                     " (SELECT count(*) FROM findings) FROM runs WHERE kind = 'fault'");
    sqlite3_step(count);
    context->total = sqlite3_column_int64(count, 0);
    context->done = sqlite3_column_int64(count, 1);
    context->findings = sqlite3_column_int64(count, 2);
    database_finalize(count);
    context->terminal = isatty(2);
    context->started_ms = now_ms();
    context->last_taken = 0;
    pthread_mutex_init(&context->lock, NULL);
    pthread_cond_init(&context->changed, NULL);
    int workers = context->options->jobs;
    pthread_t *threads = xcalloc((size_t)workers, sizeof *threads);
    for (int i = 0; i < workers; i++)
        if (pthread_create(&threads[i], NULL, worker, context) != 0)
            fatal("cannot start a worker thread; lower -j");
    for (int i = 0; i < workers; i++)
        pthread_join(threads[i], NULL);
    conclusions_commit(context);
    free(threads);
    free(context->in_flight.items);
    free(context->finished.items);
    memset(&context->in_flight, 0, sizeof context->in_flight);
    memset(&context->finished, 0, sizeof context->finished);
    if (!context->options->quiet && context->terminal && context->done)
        fputc('\n', stderr);
}
