/*
 * baseline.c — the baseline: the command run twice without faults, what it records (sites,
 * programs, fixtures, the scope), and the checks that its output is stable and its failures are
 * its own.
 */
#include "base/util.h"
#include "engine/campaign_run.h"
#include "engine/forkrun.h"
#include "store/database.h"
#include "store/findings.h"
#include "store/forks.h"
#include "store/plan.h"
#include "store/runs.h"
#include "symbols/source.h"
#include "verdict/policy.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Output that changes from run to run by itself (timings, a test harness's durations, pids)
   says nothing about a fault: run the command once more, fail nothing, and forget the hash of a
   stream that differed (0 = not compared; such runs cannot be `silent`). */
static void compare_output(const char *dir, uint64_t *stdout_hash, uint64_t *stderr_hash)
{
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    if (file_hash(out) != *stdout_hash) {
        *stdout_hash = 0;
        warn("the command's standard output differs from run to run: a run of the whole command "
             "cannot be `silent` (a program run alone is compared with its own output alone)");
    }
    if (file_hash(err) != *stderr_hash)
        *stderr_hash = 0;
    free(out);
    free(err);
}

static void stable_output(struct campaign_context *context, const char *plan, int64_t limit,
                          uint64_t *stdout_hash, uint64_t *stderr_hash)
{
    char *dir = xasprintf("%s/baseline-check-%ld", context->runs_dir, (long)getpid());
    execute_run(context, dir, plan, limit, NULL, NULL);
    compare_output(dir, stdout_hash, stderr_hash);
    remove_tree(dir);
    free(dir);
}

/* The pending output check settled (check_output): `stdout_hash` and `stderr_hash` are what is
   compared from now on (0: that stream is not). */
static void settle_output(struct campaign_context *context, uint64_t stdout_hash,
                          uint64_t stderr_hash)
{
    context->output_pending = false;
    store_baseline_output_set(context->db, stdout_hash, stderr_hash);
    context->baseline_stdout = stdout_hash;
    context->baseline_stderr = stderr_hash;
}

void check_output_from(struct campaign_context *context, const char *dir)
{
    if (!context->output_pending)
        return;
    uint64_t stdout_hash = context->pending_stdout, stderr_hash = context->pending_stderr;
    compare_output(dir, &stdout_hash, &stderr_hash);
    settle_output(context, stdout_hash, stderr_hash);
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
    int64_t inside = 0, total = 0;
    char *example = NULL;
    if (store_source_scope_counts(db, &inside, &total, &example) && inside == 0 && total > 0)
        warn("--source %s leaves out all %lld sites: no site's source file matches (the debug "
             "info names them like %s)", globs, (long long)total,
             example ? example : "(none: no debug info)");
    free(example);
}

/* Programs the command started without the preload (a harness that cleared LD_PRELOAD, a
   set-user-ID program): their allocations are in no run, and the campaign would look complete. */
struct unpreloaded {
    char *list;
    int programs;
};

static void add_unpreloaded(const char *program, const char *reason, int64_t count, void *data)
{
    struct unpreloaded *unpreloaded = data;
    char *list = unpreloaded->list;
    char *item = xasprintf("%s%s%s (%s; %lld time%s)", list ? list : "", list ? ", " : "",
                           program, unpreloaded_reason_words(reason), (long long)count,
                           count == 1 ? "" : "s");
    free(list);
    unpreloaded->list = item;
    unpreloaded->programs++;
}

static void warn_unpreloaded(sqlite3 *db, int64_t run_id)
{
    struct unpreloaded unpreloaded = {0};
    store_unpreloaded_each(db, run_id, add_unpreloaded, &unpreloaded);
    int programs = unpreloaded.programs;
    if (unpreloaded.list)
        warn("%d program%s of the command ran without libfail's preload, so no run covers "
             "them: %s", programs, programs == 1 ? "" : "s", unpreloaded.list);
    free(unpreloaded.list);
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
 * With -j above 1, a campaign that re-runs the whole command (--whole-command, --nth, ...) has
 * its baseline's twin started at the same moment. When the twin ends otherwise or reaches fewer
 * of the baseline's sites, one more run made alone tells why: if it agrees with the baseline, the
 * command cannot run beside itself, and the campaign runs one at a time (kept in campaign_notes,
 * so a resumed campaign does too). If it also differs, the command varies by itself, which the
 * runs' own verdicts deal with.
 * A suite's campaign (owner mode) makes its baseline alone and checks later, only when runs are
 * left to make side by side (check_parallel): after the fork runs at the programs' starts most
 * suites have none, and a harness whose twin disturbed its baseline (curl's runtests: its log
 * folder and ports) cost a third run of the whole suite before anything else. */

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
    store_campaign_note_set(db, kind, text);
}

/* Runs go one at a time from now on, and in a resumed campaign: `why` (taken), said on stderr,
   as a warning where the campaign found it out rather than chose it. */
static void one_at_a_time(struct campaign_context *context, char *why, bool warning)
{
    if (warning)
        warn("%s", why);
    else if (!context->options->quiet)
        fprintf(stderr, "failrun: %s\n", why);
    set_campaign_note(context->db, "jobs", why);
    free(why);
    context->options->jobs = 1;
}

/* `text` with the folder `from` (where it starts, or where it follows '=' or ':') named `to`;
   NULL when it holds no such path. */
static char *renamed(const char *text, const char *from, const char *to)
{
    size_t length = strlen(from);
    for (const char *at = strstr(text, from); at; at = strstr(at + 1, from))
        if ((at == text || at[-1] == '=' || at[-1] == ':') && (at[length] == '/' || !at[length]))
            return xasprintf("%.*s%s%s", (int)(at - text), text, to, at + length);
    return NULL;
}

static void rename_in(char **text, const char *from, const char *to)
{
    char *fresh = *text ? renamed(*text, from, to) : NULL;
    if (fresh) {
        free(*text);
        *text = fresh;
    }
}

/* The same in each of the NUL-terminated entries of `blob` (arguments, an environment). */
static void rename_in_entries(char **blob, size_t *length, const char *from, const char *to)
{
    if (!*blob)
        return;
    VECTOR(char) out = {0};
    bool changed = false;
    for (size_t at = 0; at < *length;) {
        const char *entry = *blob + at;
        size_t size = strnlen(entry, *length - at);
        char *fresh = renamed(entry, from, to);
        const char *use = fresh ? fresh : entry;
        size_t use_size = fresh ? strlen(fresh) : size;
        for (size_t i = 0; i < use_size; i++)
            VECTOR_PUSH(out, use[i]);
        if (at + size < *length)
            VECTOR_PUSH(out, '\0');
        changed |= fresh != NULL;
        free(fresh);
        at += size + 1;
    }
    if (changed) {
        free(*blob);
        *blob = out.items;
        *length = out.count;
    } else {
        free(out.items);
    }
}

/* Its processes saw the folder the baseline ran in (the scratch folder): a path inside it (a
   suite's scratch folder made in LIBFAIL_DIR, a program or an input file put there) is named
   after where it is kept, as a start's working folder inside the baseline's is found
   (forkphase.c, "@/REST") and a program started alone finds its folder, its executable, its
   input and its arguments. */
static void rename_run_folder(struct run_records *records, const char *ran_in, const char *kept)
{
    if (!strcmp(ran_in, kept))
        return;
    for (size_t i = 0; i < records->processes.count; i++) {
        struct ingest_invocation *invocation = records->processes.items[i].invocation;
        if (!invocation)
            continue;
        rename_in(&invocation->cwd, ran_in, kept);
        rename_in(&invocation->exe, ran_in, kept);
        rename_in(&invocation->stdin_path, ran_in, kept);
        rename_in_entries(&invocation->argv, &invocation->argv_length, ran_in, kept);
        rename_in_entries(&invocation->environment, &invocation->environment_length, ran_in,
                          kept);
    }
}

/* The baseline, run in the scratch folder, moved to where it is kept; false when the move
   failed (a file it could not read, one gone during the copy): nothing of it is kept then. */
static bool keep_baseline(struct campaign_context *context, const char *dir, const char *kept)
{
    settle_run_folder(context, dir, true);
    if (access(dir, F_OK) != 0)
        return true;
    remove_tree(dir);
    remove_run_folder(kept); /* the part copied, and its gcov data's pack */
    return false;
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
    one_at_a_time(context, note, true);
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

/* Sites that allocate for an allocation wrapper's own bookkeeping get no fault run
   (source.h); stderr names the functions. */
static void mark_bookkeeping(struct campaign_context *context)
{
    char *wrappers = wrappers_find(context->db, context->symbols,
                                   context->options->settings.wrappers);
    if (sites_mark_bookkeeping(context->db, context->symbols, wrappers) &&
        !context->options->quiet) {
        char *names = store_bookkeeping_functions(context->db);
        int64_t count = store_bookkeeping_sites(context->db);
        fprintf(stderr, "failrun: %lld site%s allocate%s for the bookkeeping of an allocation "
                        "wrapper (%s) and %s not failed; --fail-bookkeeping fails %s\n",
                (long long)count, count == 1 ? "" : "s", count == 1 ? "s" : "", names,
                count == 1 ? "is" : "are", count == 1 ? "it" : "them");
        free(names);
    }
    free(wrappers);
}

void run_baseline(struct campaign_context *context)
{
    sqlite3 *db = context->db;
    store_begin(db);
    store_runs_clear(db);
    int64_t run_id = insert_run(db, "baseline", NULL, NULL, NULL, 0);
    store_commit(db);
    /* The baseline runs in the scratch folder, as every run: a suite's hundreds of processes
       wrote their records and gcov data into the campaign's folder on disk, a third of the
       baseline's time (jansson: ext4, 1.5 s against 1.1 s). It is kept at once (its gcov data
       packed, the rest moved), and the messages below point into where it is kept. */
    char *dir = xasprintf("%s/%lld-%ld", context->runs_dir, (long long)run_id, (long)getpid());
    char *plan = plan_record(&context->options->settings);
    int64_t limit = context->options->settings.timeout_ms ? context->options->settings.timeout_ms
                                                           : 3600 * 1000;
    if (!context->options->quiet)
        fprintf(stderr, "failrun: baseline run of %s\n", context->options->settings.argv[0]);
    struct twin_run twin = {.context = context, .plan = plan, .limit = limit,
                            .dir = xasprintf("%s/baseline-twin-%ld", context->runs_dir,
                                             (long)getpid())};
    if (context->options->jobs > 1 && !owner_mode(&context->options->settings))
        twin.started = pthread_create(&twin.thread, NULL, twin_main, &twin) == 0;
    struct spawn_result result = execute_run(context, dir, plan, limit, NULL, NULL);
    if (twin.started)
        pthread_join(twin.thread, NULL);
    char *kept = kept_path(context, dir), *ran_in = dir;
    if (strcmp(kept, dir) && !keep_baseline(context, dir, kept)) {
        /* Made again where it is kept, as before there was a scratch folder. */
        warn("the baseline's folder could not be moved out of %s (see above): it runs again in "
             "%s", context->runs_dir, kept);
        result = execute_run(context, kept, plan, limit, NULL, NULL);
        free(ran_in);
        ran_in = xstrdup(kept);
    }
    dir = kept;
    set_run_directory(db, run_id, dir);
    struct run_records records = {0};
    ingest_run(dir, &records);
    rename_run_folder(&records, ran_in, kept);
    free(ran_in);
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
    store_begin(db);
    store_campaign_set_scope(db, settings->scope);
    store_fixtures_replace(db, fixtures);
    json_decref(fixtures);
    owners_store(context, &records, result.pid);
    database_store_records(db, run_id, &records, frames_are_instrumentation);
    database_store_unpreloaded(db, run_id, &records);
    warn_unpreloaded(db, run_id);
    sites_mark_source(db, settings->source_globs);
    if (settings->source_globs && *settings->source_globs)
        warn_empty_scope(db, settings->source_globs);
    if (!settings->fail_bookkeeping && !settings->kernel)
        mark_bookkeeping(context);
    finish_run(db, run_id, NULL, &result, NULL, NULL, records.problems, 0);
    store_baseline_set(db, result.exit_code, result.signal, stdout_hash, stderr_hash,
                       result.wall_ms);
    plan_first_runs(context);
    store_commit(db);
    free(out);
    free(err);
    free(dir);
    run_records_free(&records);
}

/* Two runs of the command at the same time, each compared with the baseline (made alone), before
   the first runs that would go side by side; a run alone again when one differs: the command
   varies by itself when it differs too, else its runs go one at a time (the "jobs" note, as
   check_twin's). Once per campaign ("jobs_checked"). Where the two print what the baseline
   printed, its pending output is found stable on the way (check_output needs no run then). */
void check_parallel(struct campaign_context *context)
{
    struct campaign_settings *settings = &context->options->settings;
    sqlite3 *db = context->db;
    char *note = NULL;
    if (context->options->jobs <= 1 || !owner_mode(settings) ||
        store_campaign_note(db, "jobs_checked", &note)) {
        free(note);
        return;
    }
    int64_t total = 0, done = 0, findings = 0;
    store_fault_run_counts(db, &total, &done, &findings);
    if (total - done < 2)
        return; /* nothing goes side by side (the chains one run adds go unchecked) */
    /* A command that starts fixtures (a test server on its ports, its pid file and log in the
       suite's folder) does not run beside itself, however two runs at once happened to go:
       curl's runtests passed that check once on a loaded machine, and then each run of it
       beside another ended in a second, its site not reached. */
    json_t *fixtures = store_fixture_rows(db);
    if (json_array_size(fixtures)) {
        const char *exe = json_string_value(json_object_get(json_array_get(fixtures, 0), "exe"));
        char *text = xasprintf("the command starts %zu fixture(s) (%s, ...): two runs of it at "
                               "once would share their ports and files. Runs go one at a time "
                               "(-j1)",
                               json_array_size(fixtures), exe ? base_name(exe) : "?");
        one_at_a_time(context, text, false);
        set_campaign_note(db, "jobs_checked", "-j1");
        json_decref(fixtures);
        return;
    }
    json_decref(fixtures);
    /* What the runs left take one at a time (a program alone its time alone, any other the
       baseline's): W one at a time, against W/2 side by side after a check that takes about
       one and a half runs of the command (two at once, one alone when they differ). Below three
       runs of the command, they just go one at a time, unchecked (after the fork runs at a
       harness's starts, the chains of its `curl --version`: 40 runs of 11 ms; or two re-runs
       of runtests, against three for the check). Not kept: a resumed campaign with more left
       checks. */
    int64_t baseline_wall = store_baseline_wall_ms(db), left_ms = 0;
    struct store_planned_run run;
    for (int64_t after = 0;
         left_ms < 3 * baseline_wall && store_run_next_planned(db, after, &run); after = run.id) {
        struct program *program = run.owner ? program_get(context, run.owner) : NULL;
        int64_t each = program && program->alone ? program->alone_wall_ms : baseline_wall;
        left_ms += each > 0 ? each : 1;
        free(run.site);
        free(run.chain);
        free(run.plan);
    }
    if (left_ms < 3 * baseline_wall) {
        if (!context->options->quiet)
            fprintf(stderr, "failrun: the %lld run(s) left take about %lld ms one at a time, "
                            "less than checking whether -j%d runs disturb each other: one at a "
                            "time\n",
                    (long long)(total - done), (long long)left_ms, context->options->jobs);
        context->options->jobs = 1;
        return;
    }
    if (!context->options->quiet)
        fprintf(stderr, "failrun: two runs of %s at the same time, to see whether -j%d runs "
                        "disturb each other\n",
                settings->argv[0], context->options->jobs);
    char *plan = plan_record(settings);
    int64_t limit = settings->timeout_ms ? settings->timeout_ms : 3600 * 1000;
    struct twin_run pair[2];
    for (int i = 0; i < 2; i++)
        pair[i] = (struct twin_run){.context = context, .plan = plan, .limit = limit,
                                    .dir = xasprintf("%s/parallel-%d-%ld", context->runs_dir, i,
                                                     (long)getpid())};
    pair[1].started = pthread_create(&pair[1].thread, NULL, twin_main, &pair[1]) == 0;
    twin_main(&pair[0]);
    pair[0].started = true; /* made, here: its output is compared too (same_output) */
    if (pair[1].started)
        pthread_join(pair[1].thread, NULL);
    else
        pair[1].started = twin_main(&pair[1]) == NULL; /* no thread: one after the other */
    char *base_dir = store_run_dir(db, context->baseline_id);
    struct run_records reference = {0};
    if (base_dir)
        ingest_run(base_dir, &reference);
    struct spawn_result baseline = {.exit_code = context->baseline.exit_code,
                                    .signal = context->baseline.signal};
    char why[2][200];
    const char *differ[2];
    for (int i = 0; i < 2; i++)
        differ[i] = run_differs(&baseline, &reference, pair[i].dir, &pair[i].result,
                                settings->scope, why[i], sizeof why[i]);
    if (differ[0] || differ[1]) {
        char *dir = xasprintf("%s/parallel-alone-%ld", context->runs_dir, (long)getpid());
        struct spawn_result alone = execute_run(context, dir, plan, limit, NULL, NULL);
        char unused[200];
        bool varies = run_differs(&baseline, &reference, dir, &alone, settings->scope, unused,
                                  sizeof unused);
        remove_tree(dir);
        free(dir);
        if (!varies) {
            char *text = xasprintf("two runs of the command at the same time disturb each other "
                                   "(a run beside another differed from the baseline: %s; a run "
                                   "alone agreed with it): they share files, folders or ports. "
                                   "Runs go one at a time (-j1)",
                                   differ[0] ? differ[0] : differ[1]);
            one_at_a_time(context, text, true);
        }
    } else if (context->output_pending && same_output(&pair[0], context->pending_stdout,
                                                      context->pending_stderr) &&
               same_output(&pair[1], context->pending_stdout, context->pending_stderr)) {
        settle_output(context, context->pending_stdout, context->pending_stderr); /* 3 alike */
    }
    set_campaign_note(db, "jobs_checked", context->options->jobs > 1 ? "side by side" : "-j1");
    run_records_free(&reference);
    free(base_dir);
    for (int i = 0; i < 2; i++) {
        remove_tree(pair[i].dir);
        free(pair[i].dir);
    }
    free(plan);
}

void check_output(struct campaign_context *context)
{
    if (!context->output_pending)
        return;
    if (!store_whole_command_runs_planned(context->db))
        return; /* not yet: a run of the whole command may still be planned later */
    uint64_t stdout_hash = context->pending_stdout, stderr_hash = context->pending_stderr;
    char *plan = plan_record(&context->options->settings);
    int64_t limit = context->options->settings.timeout_ms ? context->options->settings.timeout_ms
                                                           : 3600 * 1000;
    stable_output(context, plan, limit, &stdout_hash, &stderr_hash);
    free(plan);
    settle_output(context, stdout_hash, stderr_hash);
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
    int64_t cpu_ms = 0;
    if (store_baseline_cpu_ms(context->db, &cpu_ms) && !settings->kernel) {
        int64_t limit = 5 * cpu_ms + 2000;
        if (limit < context->timeout_ms)
            settings->hang_cpu_ms = limit;
    }
}

void load_baseline(struct campaign_context *context)
{
    struct store_baseline stored;
    if (!store_baseline_load(context->db, &stored))
        fatal("the campaign database lost its baseline; remove it and run again");
    context->baseline.exit_code = stored.exit_code;
    context->baseline.signal = stored.signal;
    context->baseline_stdout = stored.stdout_hash;
    context->baseline_stderr = stored.stderr_hash;
    int64_t wall = stored.wall_ms;
    context->baseline_id = stored.run;
    context->timeout_ms = context->options->settings.timeout_ms
                              ? context->options->settings.timeout_ms
                              : 10 * wall + 5000;
    set_hang_cpu(context);
    leak_load_baseline(context);
    /* Runs that disturb each other at the same time (check_twin): one at a time, resumed too. */
    char *jobs = NULL;
    if (store_campaign_note(context->db, "jobs", &jobs) && context->options->jobs > 1) {
        context->options->jobs = 1;
        if (!context->options->quiet)
            fprintf(stderr, "failrun: runs go one at a time: %s\n", jobs);
    }
    free(jobs);
    /* A baseline that followed no call into a library in scope (its sources compiled into the
       programs, as expat's tests have them) learned nothing the fault runs could use: they run
       without the audit module, whose trampoline every call through the PLT pays. */
    struct campaign_settings *settings = &context->options->settings;
    if (settings->boundary) {
        settings->boundary_idle = store_conventions_empty(context->db);
    }
}

bool baseline_done(sqlite3 *db)
{
    return store_baseline_done(db);
}
