/*
 * owner.c — inside a test suite, a fault run starts only the program that owns the site, alone,
 * instead of the whole command (ctest, make check, a script running test programs).
 *
 * The baseline records how each in-scope process was started (PID-IMAGE.inv: executable,
 * arguments, working folder, environment, standard input; runtime.c); each distinct start is a
 * row of the programs table. A site's owner is the first in-scope process of the baseline that
 * recorded it (a fork child stands for the program it was forked from). A run of a site whose
 * owner is not the command's own process starts that program alone: in its folder, with its
 * environment (failrun's own variables renewed for the run) and its standard input, a file or
 * /dev/null.
 *
 * Alone is only as good as a program that does alone what it did in the suite: before its first
 * run, each program is started alone twice without a fault. Each run must end as in the baseline
 * and reach every site the program reached there (program_sites: all of them, not only those it
 * reached first, which it owns); the two runs tell whether its output is stable (then a fault run
 * with other output is `silent`, as for a command). The second run is where a program finds what
 * its first left: `git init DIR` in a folder the suite empties creates a repository, run again
 * it finds one and misses the sites of a new one, as every fault run would. Such a program is
 * not given a fresh copy of its folder (that would need a snapshot of the folder as the baseline
 * found it); it is re-run within the whole command, which prepares its folder as the suite does.
 * A program that fails the check (standard input a pipe, a descriptor or a file its driver
 * made, a status of its own, a folder its own runs change) keeps the whole command for its runs,
 * and the report says why. Verdicts are stored, so a resumed campaign
 * checks nothing twice. The first of the two runs of a program that passes keeps its gcov data
 * (programs.alone_dir): failrun cov compares that program's fault runs with it, not with the
 * whole command's baseline (coverage.h).
 */
#include "engine/campaign_run.h"
#include "store/database.h"
#include "store/forks.h"
#include "store/runs.h"
#include "base/util.h"

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool owner_mode(const struct campaign_settings *settings)
{
    return !settings->whole_command && !settings->nth &&
           !settings->nth_sweep && !settings->probability;
}

/* ---- the baseline ---- */

/* The stdin a program can be given again: its file, /dev/null; NULL when it cannot. */
static const char *reproducible_stdin(const struct ingest_invocation *invocation)
{
    if (!strcmp(invocation->stdin_kind, "file"))
        return *invocation->stdin_path ? invocation->stdin_path : NULL;
    if (!strcmp(invocation->stdin_kind, "null"))
        return "/dev/null";
    return NULL;
}

/* The row of this start in programs, inserted when new. */
static int64_t program_row(sqlite3 *db, const struct ingest_process *process)
{
    const struct ingest_invocation *invocation = process->invocation;
    struct store_program_start start = {
        .exe = invocation->exe,
        .cwd = invocation->cwd,
        .argv = invocation->argv,
        .argv_length = invocation->argv_length,
        .environment = invocation->environment,
        .environment_length = invocation->environment_length,
        .stdin_kind = invocation->stdin_kind,
        .stdin_path = reproducible_stdin(invocation),
    };
    return store_program_row(db, &start);
}

/* The process a run starts alone to reach what `index` did: the process itself, or for a fork
   child the program it was forked from (its parent with the same executable). */
static const struct ingest_process *starting_process(const struct run_records *records,
                                                     size_t index)
{
    const struct ingest_process *process = &records->processes.items[index];
    for (size_t hops = 0; process && process->forked && hops < records->processes.count; hops++) {
        const struct ingest_process *parent = NULL;
        for (size_t i = 0; i < records->processes.count; i++) {
            const struct ingest_process *candidate = &records->processes.items[i];
            if (candidate->pid == process->parent && !strcmp(candidate->exe, process->exe))
                parent = candidate;
        }
        process = parent;
    }
    return process;
}

static int compare_signatures(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* What each program reached in the baseline: every in-scope site its first start recorded (and
   the fork children it stands for), not only the sites it reached first. The check runs it alone
   against all of them: a site another program reached before it is still a part of what it
   did, and what it finds left by an earlier run alone shows there first. */
static void store_reached(sqlite3 *db, const struct run_records *records)
{
    /* the sites in scope, sorted: what a process reached out of scope is no one's */
    uint64_t *scope = xcalloc(records->sites.count + 1, sizeof *scope);
    for (size_t i = 0; i < records->sites.count; i++)
        scope[i] = records->sites.items[i].signature;
    qsort(scope, records->sites.count, sizeof *scope, compare_signatures);
    VECTOR(int64_t) done = {0};
    for (size_t i = 0; i < records->processes.count; i++) {
        const struct ingest_process *process = &records->processes.items[i];
        bool seen = !process->program || process->forked;
        for (size_t j = 0; j < done.count && !seen; j++)
            seen = done.items[j] == process->program;
        if (seen)
            continue;
        VECTOR_PUSH(done, process->program);
        VECTOR(uint64_t) reached = {0};
        for (size_t j = 0; j < records->processes.count; j++) {
            if (starting_process(records, j) != process)
                continue;
            const struct ingest_process *member = &records->processes.items[j];
            for (size_t k = 0; k < member->reached.count; k++)
                VECTOR_PUSH(reached, member->reached.items[k]);
        }
        if (reached.count)
            qsort(reached.items, reached.count, sizeof *reached.items, compare_signatures);
        for (size_t k = 0; k < reached.count; k++) {
            if (k && reached.items[k] == reached.items[k - 1])
                continue;
            char site[17];
            hex16(site, reached.items[k]);
            /* Out of scope (a test program's own allocations under --source): no one's site,
               but known, so that a fork child of the program's start need not record it. */
            store_program_site_add(db, process->program, site,
                                   bsearch(&reached.items[k], scope, records->sites.count,
                                           sizeof *scope, compare_signatures) != NULL);
        }
        free(reached.items);
    }
    free(done.items);
    free(scope);
}

void owners_store(struct campaign_context *context, struct run_records *records, int top_pid)
{
    const struct campaign_settings *settings = &context->options->settings;
    for (size_t i = 0; i < records->processes.count; i++) {
        struct ingest_process *process = &records->processes.items[i];
        if (!process->invocation || process->forked || !scope_includes(settings->scope, process->exe))
            continue;
        process->program = program_row(context->db, process);
        const struct ingest_process *ending = final_image(records, process->pid);
        /* how the pid ended: an exec'd program's status is its successor's */
        bool exited = ending && ending->exited;
        store_program_ending(context->db, process->program, (int)process->pid == top_pid, exited,
                             exited ? ending->exit_status : 0, ending ? ending->signal : 0);
    }
    if (!owner_mode(settings))
        return;
    store_reached(context->db, records);
    for (size_t i = 0; i < records->sites.count; i++) {
        const struct ingest_process *owner = starting_process(records, records->sites.items[i].process);
        if (owner && owner->program && (int)owner->pid != top_pid)
            records->sites.items[i].owner = owner->program;
    }
}

/* ---- programs ---- */

static void load_live(struct program *program, const char *text)
{
    json_error_t error;
    json_t *array = text ? json_loads(text, 0, &error) : NULL;
    size_t index;
    json_t *item;
    json_array_foreach(array, index, item) {
        const char *site = json_string_value(json_array_get(item, 0));
        struct live_count count = {0};
        if (site && parse_hex16(site, &count.signature)) {
            count.blocks = (uint64_t)json_integer_value(json_array_get(item, 1));
            VECTOR_PUSH(program->live, count);
        }
    }
    json_decref(array);
}

static void set_timeout(struct campaign_context *context, struct program *program)
{
    int64_t own = 10 * program->alone_wall_ms + 5000;
    program->timeout_ms = context->options->settings.timeout_ms ? context->options->settings.timeout_ms
                          : own < context->timeout_ms ? own : context->timeout_ms;
}

struct program_load {
    struct campaign_context *context;
    int64_t id;
    struct program *program;
};

static void load_program(const struct store_program *row, void *data)
{
    struct program_load *load = data;
    struct program *program = xcalloc(1, sizeof *program);
    program->id = load->id;
    program->exe = row->exe ? xstrdup(row->exe) : NULL;
    program->cwd = row->cwd ? xstrdup(row->cwd) : NULL;
    program->argv = strings_from_blob(row->argv, row->argv_length);
    program->environment = strings_from_blob(row->environment, row->environment_length);
    program->stdin_kind = row->stdin_kind ? xstrdup(row->stdin_kind) : NULL;
    program->stdin_path = row->stdin_path ? xstrdup(row->stdin_path) : NULL;
    program->top = row->top;
    program->exit_code = row->exit_code;
    program->signal = row->signal;
    program->checked = row->alone != NULL;
    program->reason = row->alone ? xstrdup(row->alone) : NULL;
    program->alone = program->checked && !strcmp(program->reason, "yes");
    program->alone_stdout = row->alone_stdout;
    program->alone_stderr = row->alone_stderr;
    program->alone_wall_ms = row->alone_wall_ms;
    load_live(program, row->alone_live);
    pthread_mutex_init(&program->scan_lock, NULL);
    set_timeout(load->context, program);
    VECTOR_PUSH(load->context->programs, program);
    load->program = program;
}

struct program *program_get(struct campaign_context *context, int64_t id)
{
    for (size_t i = 0; i < context->programs.count; i++)
        if (context->programs.items[i]->id == id)
            return context->programs.items[i];
    struct program_load load = {context, id, NULL};
    store_program_load(context->db, id, load_program, &load);
    return load.program;
}

void programs_free(struct campaign_context *context)
{
    for (size_t i = 0; i < context->programs.count; i++) {
        struct program *program = context->programs.items[i];
        free(program->exe);
        free(program->cwd);
        environment_free(program->argv);
        environment_free(program->environment);
        free(program->stdin_kind);
        free(program->stdin_path);
        free(program->reason);
        free(program->live.items);
        sanitizer_leaks_free(&program->leaks);
        pthread_mutex_destroy(&program->scan_lock);
        free(program);
    }
    free(context->programs.items);
    memset(&context->programs, 0, sizeof context->programs);
}

int64_t chain_owner(struct campaign_context *context, const char *chain)
{
    if (!chain || !owner_mode(&context->options->settings))
        return 0;
    int64_t owner = store_site_owner(context->db, chain, strcspn(chain, ":,"));
    struct program *program = owner ? program_get(context, owner) : NULL;
    return program && !program->top && (!program->checked || program->alone) ? owner : 0;
}

/* ---- the check ---- */

static const char *stdin_reason(const char *kind)
{
    static const struct {
        const char *kind, *reason;
    } reasons[] = {
        {"pipe", "its standard input is a pipe"},
        {"socket", "its standard input is a socket"},
        {"terminal", "its standard input is a terminal"},
        {"device", "its standard input is a device"},
        {"closed", "its standard input is closed"},
        {"moved", "its standard input is a file read from elsewhere than its start"},
        {"deleted", "its standard input is a deleted file"},
    };
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (!strcmp(kind, reasons[i].kind))
            return reasons[i].reason;
    return "its standard input cannot be given again";
}

/* "status 2", "SIGSEGV" */
static char *ending_text(int exit_code, int signal)
{
    if (!signal)
        return xasprintf("status %d", exit_code);
    const char *name = sigabbrev_np(signal);
    return name ? xasprintf("SIG%s", name) : xasprintf("signal %d", signal);
}

/* What could stop it from starting at all. */
static char *start_problem(const struct program *program)
{
    if (!program->stdin_path)
        return xstrdup(stdin_reason(program->stdin_kind));
    if (access(program->exe, X_OK) != 0)
        return xasprintf("%s is gone", program->exe);
    if (access(program->cwd, X_OK) != 0)
        return xasprintf("its working folder %s is gone", program->cwd);
    if (access(program->stdin_path, R_OK) != 0)
        return xasprintf("its standard input %s is gone", program->stdin_path);
    return NULL;
}

struct check {
    struct program *program;
    VECTOR(uint64_t) sites; /* it reached in the baseline: alone it must reach each */
    char *reason;           /* NULL: it passed */
    uint64_t stdout_hash, stderr_hash;
    int64_t wall_ms;
    char *live;             /* JSON of its live blocks at exit */
    char *alone_dir;        /* its first run alone, when that left gcov data */
};

static char *live_json(const struct run_records *records)
{
    json_t *array = json_array();
    for (size_t i = 0; i < records->live.count; i++) {
        char site[17];
        hex16(site, records->live.items[i].signature);
        json_array_append_new(array, json_pack("[s,I]", site,
                                               (json_int_t)records->live.items[i].blocks));
    }
    char *text = json_dumps(array, JSON_COMPACT);
    json_decref(array);
    return text;
}

static size_t sites_reached(const struct check *check, const struct run_records *records)
{
    size_t reached = 0;
    for (size_t i = 0; i < check->sites.count; i++)
        for (size_t j = 0; j < records->sites.count; j++)
            if (records->sites.items[j].signature == check->sites.items[i]) {
                reached++;
                break;
            }
    return reached;
}

/* One run alone without faults; round 0 judges it, round 1 only its stability. Unlocked. */
static void check_round(struct campaign_context *context, struct check *check, int round,
                        struct spawn_result *first)
{
    struct program *program = check->program;
    char *dir = xasprintf("%s/alone-%lld-%d-%ld", context->runs_dir, (long long)program->id,
                          round, (long)getpid());
    char *plan = plan_record(&context->options->settings);
    int64_t limit = context->options->settings.timeout_ms ? context->options->settings.timeout_ms
                                                           : context->timeout_ms;
    struct spawn_result result = execute_run(context, dir, plan, limit, NULL, program);
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    uint64_t stdout_hash = file_hash(out), stderr_hash = file_hash(err);
    struct run_records records = {0};
    ingest_run(dir, &records);
    keep_sites_in_scope(&records, context->options->settings.scope);
    if (round == 0) {
        *first = result;
        check->stdout_hash = stdout_hash;
        check->stderr_hash = stderr_hash;
        check->wall_ms = result.wall_ms;
        size_t reached = sites_reached(check, &records);
        char *alone = ending_text(result.exit_code, result.signal);
        char *baseline = ending_text(program->exit_code, program->signal);
        if (result.timed_out)
            check->reason = xasprintf("alone it did not finish within %lld s",
                                      (long long)(limit / 1000));
        else if (!result.started)
            check->reason = xasprintf("alone it does not start (%s)", out);
        else if (result.signal != program->signal || result.exit_code != program->exit_code)
            check->reason = xasprintf("alone it ends with %s, in the command with %s", alone,
                                      baseline);
        else if (reached < check->sites.count)
            check->reason = xasprintf("alone it reaches %zu of its %zu sites", reached,
                                      check->sites.count);
        else
            check->live = live_json(&records);
        free(alone);
        free(baseline);
    } else if (!check->reason) {
        size_t reached = sites_reached(check, &records);
        if (result.signal != first->signal || result.exit_code != first->exit_code ||
            result.timed_out)
            check->reason = xstrdup("alone it does not end the same way twice");
        else if (reached < check->sites.count)
            /* Its first run left what it finds now (a repository created in a folder the
               command had emptied): each fault run would find it too, and miss those sites.
               The whole command gives it the folder as the command does. */
            check->reason = xasprintf("alone a second time it reaches %zu of its %zu sites: it "
                                      "finds what its first run left", reached, check->sites.count);
        if (stdout_hash != check->stdout_hash)
            check->stdout_hash = 0; /* its output varies by itself: never `silent` */
        if (stderr_hash != check->stderr_hash)
            check->stderr_hash = 0;
    }
    run_records_free(&records);
    if (round == 0 && !check->reason) {
        /* Its gcov data (a --coverage build) is what its fault runs compare with: a run of
           one program alone runs shared code far fewer times than the whole command did. */
        if (settle_run_folder(context, dir, false))
            check->alone_dir = kept_path(context, dir);
    } else {
        remove_run_folder(dir);
    }
    free(out);
    free(err);
    free(plan);
    free(dir);
}

static void check_program(struct campaign_context *context, struct check *check)
{
    check->reason = start_problem(check->program);
    struct spawn_result first = {0};
    for (int round = 0; round < 2 && !check->reason; round++)
        check_round(context, check, round, &first);
}

/* Under the lock: the verdict into the database and the program; a failed check sends its
   planned runs back to the whole command. */
static void store_verdict(struct campaign_context *context, struct check *check)
{
    struct program *program = check->program;
    sqlite3 *db = context->db;
    store_begin(db);
    store_program_verdict(db, program->id, check->reason ? check->reason : "yes",
                          !check->reason ? check->stdout_hash : 0,
                          !check->reason ? check->stderr_hash : 0, check->wall_ms, check->live,
                          check->reason ? NULL : check->alone_dir);
    if (check->reason)
        store_program_runs_release(db, program->id);
    store_commit(db);
    program->checked = true;
    program->alone = !check->reason;
    free(program->reason);
    program->reason = xstrdup(check->reason ? check->reason : "yes");
    if (program->alone) {
        program->alone_stdout = check->stdout_hash;
        program->alone_stderr = check->stderr_hash;
        program->alone_wall_ms = check->wall_ms;
        load_live(program, check->live);
        set_timeout(context, program);
    }
}

struct check_pool {
    struct campaign_context *context;
    pthread_mutex_t lock;
    struct check *checks;
    size_t count, next;
};

static void *check_worker(void *argument)
{
    struct check_pool *pool = argument;
    pthread_mutex_lock(&pool->lock);
    while (pool->next < pool->count) {
        struct check *check = &pool->checks[pool->next++];
        pthread_mutex_unlock(&pool->lock);
        check_program(pool->context, check);
        pthread_mutex_lock(&pool->lock);
        store_verdict(pool->context, check);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

static void add_expected_site(const char *site, void *data)
{
    struct check *check = data;
    uint64_t signature;
    if (parse_hex16(site, &signature))
        VECTOR_PUSH(check->sites, signature);
}

/* The sites it reached in the baseline that have runs: not gcov's (whose allocations differ when
   its data file exists already, as in a suite where one program runs many times), nor another
   shard's. Every one of them, not only those it owns (reached first): a site it shares with the
   programs before it can tell that it found what an earlier run left. A database made before
   program_sites compares the sites it owns. */
static void expected_sites(sqlite3 *db, struct check *check)
{
    store_program_expected_sites_each(db, check->program->id, add_expected_site, check);
}

typedef VECTOR(struct check) check_vector;

struct check_list {
    struct campaign_context *context;
    check_vector checks;
};

static void add_check(int64_t id, void *data)
{
    struct check_list *list = data;
    struct check check = {.program = program_get(list->context, id)};
    if (check.program)
        VECTOR_PUSH(list->checks, check);
}

void owners_check(struct campaign_context *context)
{
    struct check_list list = {context, {0}};
    store_programs_unchecked_each(context->db, add_check, &list);
    check_vector checks = list.checks;
    if (!checks.count)
        return;
    for (size_t i = 0; i < checks.count; i++)
        expected_sites(context->db, &checks.items[i]);
    if (!context->options->quiet)
        fprintf(stderr, "failrun: checking that %zu program(s) do alone what they did in the "
                        "command\n", checks.count);
    struct check_pool pool = {.context = context, .checks = checks.items, .count = checks.count};
    pthread_mutex_init(&pool.lock, NULL);
    int workers = context->options->jobs < (int)checks.count ? context->options->jobs
                                                            : (int)checks.count;
    pthread_t *threads = xcalloc((size_t)workers, sizeof *threads);
    for (int i = 0; i < workers; i++)
        if (pthread_create(&threads[i], NULL, check_worker, &pool) != 0)
            fatal("cannot start a worker thread; lower -j");
    for (int i = 0; i < workers; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    pthread_mutex_destroy(&pool.lock);
    size_t alone = 0;
    for (size_t i = 0; i < checks.count; i++) {
        alone += !checks.items[i].reason;
        if (checks.items[i].reason && checks.items[i].alone_dir) {
            remove_coverage(checks.items[i].alone_dir); /* its runs use the command's baseline */
        }
        free(checks.items[i].alone_dir);
        free(checks.items[i].sites.items);
        free(checks.items[i].reason);
        free(checks.items[i].live);
    }
    if (!context->options->quiet && alone < checks.count)
        fprintf(stderr, "failrun: %zu of %zu program(s) re-run within the whole command (the "
                        "report says why)\n", checks.count - alone, checks.count);
    free(checks.items);
}
