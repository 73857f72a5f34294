/*
 * forkrun.c — `failrun run --fork`: the fault runs of a campaign's sites made by forking inside
 * one execution of the command instead of one re-run of the whole command per site.
 *
 * After the baseline (record mode, which decides the scope and plans one run per site as
 * always), the command runs once more with plan mode=fork: each in-scope process forks at each
 * site it reaches first (libfail/fork/forkmode.c); the child fails the allocation and runs to its
 * end in ROOT/SITE/ with its own record files, stdout, stderr and a `result` line its parent wrote
 * on reaping it. Each child folder is then concluded as the planned run of its site, exactly as
 * a re-run would be (same row, plan and chain, so `failrun replay` reproduces it; same judge).
 * Planned runs no child answered (a multi-threaded process, standard input a pipe, a site the
 * fork run never reached) and every follow-up chain stay planned: run_planned re-runs them.
 *
 * Inside a suite (owner.c), each program that owns sites and does alone what it did in the
 * command gets a fork run of its own, started alone as its owner runs are, before the command's:
 * its children are judged as its owner runs (its status, its output alone), and a test driver's
 * descriptors (ctest passes its log file, open for writing, to every test) no longer keep its
 * sites from being forked. The command's fork run then answers what is left.
 *
 * Resuming: a planned run is concluded in its own transaction as in re-run mode. The sites whose
 * runs are concluded (or not planned at all) are claimed before the fork run starts, so a resumed
 * fork run forks only where a result is still missing; once a fork run has been tried for a
 * planned run, its `dir` says so and a resume re-runs it instead.
 */
#include "engine/campaign_run.h"
#include "engine/forkrun.h"
#include "store/database.h"
#include "format/plan.h"
#include "format/text.h"
#include "verdict/sanitizer.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


int64_t forkable_count(sqlite3 *db, int64_t program)
{
    return store_fork_runs_count(db, program);
}

/* Every known site that must not be forked (its run is done, or not this campaign's to make,
   or not this fork run's) gets its folder made now: the preload's claim on a site is the
   creation of that folder. */
static void claim_site(const char *site, void *data)
{
    const char *root = data;
    char *dir = xasprintf("%s/%s", root, site);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        fatal("cannot create %s: %s; check the folder of --db", dir, strerror(errno));
    free(dir);
}

static void claim_unwanted_sites(sqlite3 *db, const char *root, int64_t program)
{
    store_sites_not_forkable_each(db, program, claim_site, (void *)root);
}

/* The last part of a path: how stderr and the report name a program. */
const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* A line of the campaign's fork note (the report's), once. */
void add_fork_note(struct campaign_context *context, const char *note)
{
    store_fork_note_add(context->db, note);
}

/* ---- progress: a fork run is one long process; how many of its sites are answered shows on
   standard error every PROGRESS_MS (a terminal: one line, rewritten) ---- */
#define PROGRESS_MS 5000

struct fork_watch {
    const char *root, *name;
    int64_t forkable, started_ms;
    const struct fork_progress *progress; /* NULL: the folder says it all */
    bool terminal, stop;
    pthread_mutex_t lock;
    pthread_cond_t changed;
};

/* The children done so far: their folders with the `result` their parent wrote on reaping. */
static int64_t answered_count(const char *root)
{
    DIR *folder = opendir(root);
    if (!folder)
        return 0;
    int64_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(folder))) {
        if (strlen(entry->d_name) != 16)
            continue; /* ".", "..", "command", coverage folders */
        char *result = xasprintf("%s/%s/result", root, entry->d_name);
        count += access(result, F_OK) == 0;
        free(result);
    }
    closedir(folder);
    return count;
}

static void *watch_fork_run(void *argument)
{
    struct fork_watch *watch = argument;
    pthread_mutex_lock(&watch->lock);
    while (!watch->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += PROGRESS_MS / 1000;
        if (pthread_cond_timedwait(&watch->changed, &watch->lock, &until) == 0 || watch->stop)
            continue;
        pthread_mutex_unlock(&watch->lock);
        int64_t answered = answered_count(watch->root), forkable = watch->forkable;
        if (watch->progress) {
            answered += atomic_load(&watch->progress->answered);
            forkable += atomic_load(&watch->progress->given);
        }
        fprintf(stderr, watch->terminal ? "\r\033[Kfailrun: fork run of %s: %lld of %lld sites answered (%lld s)"
                                        : "failrun: fork run of %s: %lld of %lld sites answered (%lld s)\n",
                watch->name, (long long)answered, (long long)forkable,
                (long long)((now_ms() - watch->started_ms) / 1000));
        pthread_mutex_lock(&watch->lock);
    }
    pthread_mutex_unlock(&watch->lock);
    return NULL;
}

struct spawn_result execute_fork_run(struct campaign_context *context, const char *root,
                                     const char *dir, int64_t forkable,
                                     const struct program *program, int64_t start_timeout_ms,
                                     const struct fork_progress *progress)
{
    const struct campaign_settings *settings = &context->options->settings;
    int64_t timeout_ms = start_timeout_ms ? start_timeout_ms
                         : program      ? program->timeout_ms
                                        : context->timeout_ms;
    const char *tests = settings->test_cases && *settings->test_cases ? settings->test_cases : NULL;
    /* A start's parent fails nothing but sees the campaign's kinds of call, so that a site it
       reaches before main, an I/O call too, is known to it (and left to a re-run). */
    char *plan = xasprintf("mode=%s;jobs=%d;timeout=%lld;depth=%d%s%s%s",
                           start_timeout_ms ? "start" : "fork",
                           context->options->jobs < PLAN_MAX_JOBS ? context->options->jobs
                                                                 : PLAN_MAX_JOBS,
                           (long long)timeout_ms, settings->depth, tests ? ";tests=" : "",
                           tests ? tests : "", start_timeout_ms ? fault_kinds_suffix(settings) : "");
    char **base = program ? program_environment(settings, program->environment, dir, plan)
                          : run_environment(settings, dir, plan);
    size_t count = 0;
    while (base[count])
        count++;
    char **environment = xcalloc(count + 2, sizeof *environment);
    memcpy(environment, base, count * sizeof *environment);
    /* In the place and at the length run_environment keeps for it in every run. */
    size_t at = 0;
    while (at < count && strncmp(environment[at], "LIBFAIL_FORK=", 13))
        at++;
    char *padded_root = padded(root, RUN_DIR_WIDTH, '/');
    char *ours = xasprintf("LIBFAIL_FORK=%s", padded_root);
    free(padded_root);
    char *placeholder = at < count ? environment[at] : NULL;
    environment[at] = ours;
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    struct spawn_request request = {
        .argv = settings->argv,
        .extra_environment = (const char *const *)environment,
        .stdin_path = settings->stdin_path ? settings->stdin_path : "/dev/null",
        .stdout_path = out,
        .stderr_path = err,
        /* The command once, plus each child up to its own limit, one at a time at worst. */
        .timeout_ms = (forkable + 2) * timeout_ms + context->timeout_ms,
    };
    if (program) /* that program alone, as it was started in the baseline */
        start_alone(&request, program, environment);
    request.run_dir = root; /* its children's folders lie beside `command`, inside root */
    const char *name = program ? program->exe : settings->argv[0];
    struct fork_watch watch = {.root = root, .name = base_name(name),
                               .forkable = forkable, .started_ms = now_ms(),
                               .progress = progress,
                               .terminal = isatty(2)};
    pthread_mutex_init(&watch.lock, NULL);
    pthread_cond_init(&watch.changed, NULL);
    pthread_t watcher;
    bool watching = !context->options->quiet &&
                    pthread_create(&watcher, NULL, watch_fork_run, &watch) == 0;
    struct spawn_result result = spawn_and_wait(&request);
    if (watching) {
        pthread_mutex_lock(&watch.lock);
        watch.stop = true;
        pthread_cond_signal(&watch.changed);
        pthread_mutex_unlock(&watch.lock);
        pthread_join(watcher, NULL);
        if (watch.terminal && now_ms() - watch.started_ms >= PROGRESS_MS)
            fputc('\n', stderr);
    }
    pthread_cond_destroy(&watch.changed);
    pthread_mutex_destroy(&watch.lock);
    free(ours);
    environment[at] = placeholder; /* base's own, freed with it */
    free(environment);
    environment_free(base);
    free(out);
    free(err);
    free(plan);
    return result;
}

/* True when the run in dir printed what the baseline did, on both streams that are compared. */
static bool output_as_baseline(const struct campaign_context *context, const char *dir)
{
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    bool same = (!context->baseline_stdout || file_hash(out) == context->baseline_stdout) &&
                (!context->baseline_stderr || file_hash(err) == context->baseline_stderr);
    free(out);
    free(err);
    return same;
}

/* A plain run's output (faults aside) is the command's output once more: the check that the
   output does not change from run to run by itself (see stable_output). */
static void check_output_stable(struct campaign_context *context, const char *dir)
{
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    const char *forget = NULL;
    if (context->baseline_stdout && file_hash(out) != context->baseline_stdout) {
        forget = "baseline_stdout";
        context->baseline_stdout = 0;
        warn("the command's standard output differs from run to run; no run can be `silent`");
    }
    if (context->baseline_stderr && file_hash(err) != context->baseline_stderr) {
        context->baseline_stderr = 0;
        store_baseline_stderr_forget(context->db);
    }
    if (forget)
        store_baseline_stdout_forget(context->db);
    free(out);
    free(err);
}

/* The `result` line the parent wrote when it reaped the child. False when there is none (the
   parent ended by exec or was killed first) or the program reaped the child itself. */
bool read_result(const char *dir, struct spawn_result *result, int *parent)
{
    char *path = xasprintf("%s/result", dir);
    char *text = read_whole_file(path, NULL);
    free(path);
    int status = 0, timed_out = 0, child = 0;
    long long wall = 0;
    bool ok = text && sscanf(text, "status=%d timed_out=%d wall_ms=%lld parent=%d pid=%d", &status,
                             &timed_out, &wall, parent, &child) == 5;
    free(text);
    if (!ok)
        return false;
    memset(result, 0, sizeof *result);
    result->started = true;
    result->timed_out = timed_out;
    result->wall_ms = wall;
    result->pid = child;
    if (WIFSIGNALED(status))
        result->signal = WTERMSIG(status);
    else
        result->exit_code = WEXITSTATUS(status);
    return true;
}

/* How the child's test case ended, when it stopped there (libfail/fork/testcase.c): "passed FUNC"
   or "failed FUNC"; NULL when it ran to its process's end. */
static char *read_test_case(const char *dir)
{
    char *path = xasprintf("%s/testcase", dir);
    char *text = read_whole_file(path, NULL);
    free(path);
    if (text && (!strncmp(text, "passed ", 7) || !strncmp(text, "failed ", 7))) {
        text[strcspn(text, "\n")] = '\0';
        return text;
    }
    free(text);
    return NULL;
}

/* Sanitizer reports go to the log path the process had at its start, the parent's folder, named
   by pid: move the child's to its own folder. */
static void move_sanitizer_logs(const char *from, const char *to, int pid)
{
    for (int i = 0; i < 2; i++) {
        char *source = xasprintf("%s/%s.%d%s", from, SANITIZER_LOG, pid, i ? ".ubsan" : "");
        char *target = xasprintf("%s/%s.%d%s", to, SANITIZER_LOG, pid, i ? ".ubsan" : "");
        if (access(source, F_OK) == 0)
            rename(source, target);
        free(source);
        free(target);
    }
}

/* What the children of one fork run left, read by -j threads at once (their record files, a
   leak scan: what a re-run's worker does after its run), then judged in run order. */
struct children {
    struct campaign_context *context;
    struct job *jobs;
    bool *answered;
    size_t count;
    atomic_size_t next;
    const char *root, *command_dir;
    int command_pid;
    bool at_start;
    unsigned char *missed; /* per child of a start: MISSED_UNREACHED or MISSED_HUNG */
};

enum { MISSED_UNREACHED = 1, MISSED_HUNG = 2 };

/* Whether the run's own site (`site`, the last of its chain) was failed. */
static bool site_fired(const struct run_records *records, const char *site)
{
    uint64_t signature = site ? strtoull(site, NULL, 16) : 0;
    for (size_t i = 0; i < records->faults.count; i++)
        if (records->faults.items[i].fired && records->faults.items[i].signature == signature)
            return true;
    return false;
}

static void read_child(struct children *children, size_t i)
{
    struct job *job = &children->jobs[i];
    job->dir = xasprintf("%s/%s", children->root, job->site);
    int parent = 0;
    if (!read_result(job->dir, &job->result, &parent))
        return;
    int child = job->result.pid;
    /* Output counts only for a fault in the command's own process, as in re-run mode: the
       child continues that process, so it stands for it. A child forked at its program's start
       is that program's run. */
    if (parent != children->command_pid && !children->at_start)
        job->result.pid = children->command_pid;
    move_sanitizer_logs(children->command_dir, job->dir, child);
    job->test_case = read_test_case(job->dir);
    ingest_run(job->dir, &job->records);
    if (children->at_start && !site_fired(&job->records, job->site)) {
        /* Its start reached the site in the baseline, the child did not: what it depended on
           changed under it (an earlier child stopped a fixture, say), or the site of its chain
           lies in a process the child started (which records only). Not an answer: the site
           goes to a run as in the baseline, where re-run mode would have found it. */
        children->missed[i] = MISSED_UNREACHED;
        return;
    }
    if (children->at_start && job->result.timed_out) {
        /* A child that waits for ever at a start may wait for what an earlier child left the
           fixtures in (a server still reading the upload of a child that was killed): curl's
           runtests had one such false hang in every campaign. Not an answer: a run as in the
           baseline tells whether the fault hangs the program. */
        children->missed[i] = MISSED_HUNG;
        return;
    }
    keep_sites_in_scope(&job->records, children->context->options->settings.scope);
    leak_confirm(children->context, job);
    children->answered[i] = true;
}

static void *read_children(void *argument)
{
    struct children *children = argument;
    for (size_t i; (i = atomic_fetch_add(&children->next, 1)) < children->count;)
        read_child(children, i);
    return NULL;
}

typedef VECTOR(struct job) job_vector;

struct job_list {
    struct program *program;
    job_vector jobs;
};

static void add_job(const struct store_fork_run *run, void *data)
{
    struct job_list *list = data;
    struct job job = {.program = list->program};
    job.run_id = run->id;
    job.site = run->site ? xstrdup(run->site) : NULL;
    job.chain = run->chain ? xstrdup(run->chain) : NULL;
    job.plan = run->plan ? xstrdup(run->plan) : NULL;
    VECTOR_PUSH(list->jobs, job);
}

/* Conclude the planned run of each site a child answered; returns how many. */
int64_t conclude_children(struct campaign_context *context, const char *root,
                          const char *command_dir, const struct spawn_result *command,
                          struct program *program, int64_t selector, bool at_start,
                          const struct child_retries *retries)
{
    struct job_list list = {program, {0}};
    store_fork_runs_each(context->db, selector, add_job, &list);
    job_vector jobs = list.jobs;
    struct children children = {.context = context, .jobs = jobs.items, .count = jobs.count,
                                .answered = xcalloc(jobs.count + 1, sizeof(bool)),
                                .missed = xcalloc(jobs.count + 1, 1),
                                .root = root, .command_dir = command_dir,
                                .command_pid = command->pid, .at_start = at_start};
    atomic_init(&children.next, 0);
    int helpers = context->options->jobs > 1 ? context->options->jobs - 1 : 0;
    pthread_t *threads = xcalloc((size_t)helpers + 1, sizeof *threads);
    int started = 0;
    for (int i = 0; i < helpers; i++)
        started += pthread_create(&threads[started], NULL, read_children, &children) == 0;
    read_children(&children); /* this thread reads too */
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    int64_t concluded = 0, last_shown = now_ms(), hung_ms = 0;
    size_t unreached = 0, hung = 0;
    for (size_t i = 0; i < jobs.count; i++) {
        struct job *job = &jobs.items[i];
        /* With `retries` (a start's round), what is not taken is said once, at the fork run's
           end, where the last conclusion of the start meets it again. */
        if (children.missed[i] && retries)
            retries->take(job, retries->data);
        else if (children.missed[i]) {
            unreached += children.missed[i] == MISSED_UNREACHED;
            hung += children.missed[i] == MISSED_HUNG;
            if (children.missed[i] == MISSED_HUNG && job->result.wall_ms > hung_ms)
                hung_ms = job->result.wall_ms;
        }
        if (!context->options->quiet && now_ms() - last_shown >= PROGRESS_MS) {
            last_shown = now_ms();
            fprintf(stderr, "failrun: judging the fork run's children: %zu of %zu\n", i,
                    jobs.count);
        }
        if (children.answered[i]) {
            conclude_job(context, job);
            concluded++;
        }
        free(job->site);
        free(job->chain);
        free(job->plan);
        free(job->dir);
        free(job->test_case);
        run_records_free(&job->records);
        sanitizer_leaks_free(&job->leaks);
    }
    conclusions_commit(context);
    if (unreached) {
        char *note = xasprintf("%zu child(ren) of %s's start never reached the site they were to "
                               "fail, which the baseline's start reached (an earlier child "
                               "changed what the program depends on): those sites are re-run",
                               unreached, base_name(program->exe));
        if (!context->options->quiet)
            fprintf(stderr, "failrun: %s\n", note);
        add_fork_note(context, note);
        free(note);
    }
    if (hung) {
        char *note = xasprintf("%zu child(ren) of %s's start ran out of time (%.1f s; against "
                               "live fixtures, an earlier child may have left them waiting): "
                               "those sites are re-run, and a hang is the re-run's to find",
                               hung, base_name(program->exe),
                               (double)hung_ms / 1000);
        if (!context->options->quiet)
            fprintf(stderr, "failrun: %s\n", note);
        add_fork_note(context, note);
        free(note);
    }
    free(threads);
    free(children.missed);
    free(children.answered);
    free(jobs.items);
    return concluded;
}

/* Keep only the folders of runs that found bugs (conclude_job removed the others): the command's
   own, the claims failrun made and children of sites nobody planned go. A run's coverage folder
   (RUN.gcov, beside it: campaign.c, coverage_directory) stays for every run, as in re-run mode. */
static void remove_unkept_folders(sqlite3 *db, const char *root)
{
    DIR *folder = opendir(root);
    if (!folder)
        return;
    VECTOR(char *) unkept = {0};
    struct dirent *entry;
    while ((entry = readdir(folder))) {
        if (entry->d_name[0] == '.')
            continue;
        char *path = xasprintf("%s/%s", root, entry->d_name);
        size_t length = strlen(path);
        bool coverage = length > 5 && !strcmp(path + length - 5, ".gcov");
        if (store_dir_of_no_run(db, path, coverage ? length - 5 : length))
            VECTOR_PUSH(unkept, path);
        else
            free(path);
    }
    closedir(folder);
    for (size_t i = 0; i < unkept.count; i++) {
        remove_tree(unkept.items[i]);
        free(unkept.items[i]);
    }
    free(unkept.items);
}

/* Why the processes of a fork run did not fork at a site (libfail/fork/forkmode.c,
   fork_note_refusal), in words; NULL for a word it does not know. */
static const char *refusal_words(const char *why)
{
    static const char *const words[][2] = {
        {"threads", "reached while a second thread ran"},
        {"stdin", "reached with standard input a pipe or socket"},
        {"timer", "reached with an interval timer armed"},
        {"writing", "reached with a file it opened for writing (or an inherited one over 16 MiB)"},
        {"socket", "reached with a socket it made itself (a connection, a listener): a child would share it"},
        {"early", "reached before main, where a child forked at the start cannot fail it"},
        {"descriptors", "reached where the open files could not be listed"},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(why, words[i][0]))
            return words[i][1];
    return NULL;
}

struct refusal_counts {
    json_t *reasons, *counts;
    int64_t total;
};

/* A site the fork run left: counted under why. */
static void count_refusal(const char *site, void *data)
{
    struct refusal_counts *tally = data;
    json_t *why = json_object_get(tally->reasons, site);
    const char *words = why ? refusal_words(json_string_value(why)) : "not reached by it";
    json_t *count = json_object_get(tally->counts, words);
    json_object_set_new(tally->counts, words,
                        json_integer(count ? json_integer_value(count) + 1 : 1));
    tally->total++;
}

/* The sites the fork run left to re-runs, by why (the refused.PID files its processes wrote, or
   never reached by it): said on stderr and kept with the fork note for the report. */
void explain_refusals(struct campaign_context *context, const char *root, const char *name,
                      int64_t selector)
{
    json_t *reasons = json_object();
    DIR *folder = opendir(root);
    struct dirent *entry;
    while (folder && (entry = readdir(folder))) {
        if (strncmp(entry->d_name, "refused.", 8) != 0)
            continue;
        char *path = xasprintf("%s/%s", root, entry->d_name);
        char *text = read_whole_file(path, NULL);
        for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
            char *space = strchr(line, ' ');
            if (space && space - line == 16 && refusal_words(space + 1)) {
                *space = '\0';
                if (!json_object_get(reasons, line))
                    json_object_set_new(reasons, line, json_string(space + 1));
            }
        }
        free(text);
        free(path);
    }
    if (folder)
        closedir(folder);
    json_t *counts = json_object();
    int64_t total = 0;
    struct refusal_counts tally = {reasons, counts, 0};
    store_fork_run_sites_each(context->db, selector, count_refusal, &tally);
    total = tally.total;
    if (total) {
        const char *base = base_name(name);
        char *note = xasprintf("%s's fork run left %lld site%s to re-runs:", base, (long long)total,
                               total == 1 ? "" : "s");
        const char *words;
        json_t *count;
        bool first = true;
        json_object_foreach(counts, words, count) {
            char *longer = xasprintf("%s%s %lld %s", note, first ? "" : ";",
                                     (long long)json_integer_value(count), words);
            free(note);
            note = longer;
            first = false;
        }
        if (!context->options->quiet)
            fprintf(stderr, "failrun: %s\n", note);
        add_fork_note(context, note);
        free(note);
    }
    json_decref(counts);
    json_decref(reasons);
}

/* What is still planned of `selector`'s forkable runs was tried by the fork run in `root`: it
   is re-run, also after a resume. */
void finish_fork_run(struct campaign_context *context, const char *root, int64_t selector)
{
    char *kept_root = kept_path(context, root);
    store_fork_runs_tried(context->db, selector, kept_root);
    free(kept_root);
}

/* The fork run's folder goes once its children are concluded. */
void remove_fork_folder(struct campaign_context *context, const char *root)
{
    if (context->scratch_dir)
        remove_tree(root); /* what was kept has moved (settle_run_folder) */
    else if (!context->options->keep_runs)
        remove_unkept_folders(context->db, root);
}

/* One fork run: of `program` alone (its owner runs), or of the command (`selector`: 0 whatever
   is left, UNOWNED the runs of no program alone). Adds the sites it was for and those it
   answered to *forkable and *concluded. */
void fork_run(struct campaign_context *context, struct program *program, int64_t selector,
              int64_t *forkable_total, int64_t *concluded_total)
{
    if (program)
        selector = program->id;
    int64_t forkable = forkable_count(context->db, selector);
    if (forkable == 0)
        return;
    char *root = program ? xasprintf("%s/fork-%ld-program%lld", context->runs_dir, (long)getpid(),
                                     (long long)program->id)
                         : xasprintf("%s/fork-%ld", context->runs_dir, (long)getpid());
    char *command_dir = xasprintf("%s/command", root);
    remove_tree(root);
    if (!make_directories(command_dir))
        fatal("cannot create %s: %s; check the folder of --db", command_dir, strerror(errno));
    claim_unwanted_sites(context->db, root, selector);
    if (!context->options->quiet && !program)
        fprintf(stderr, "failrun: fork run of %s (%lld sites)\n", context->options->settings.argv[0],
                (long long)forkable);
    struct spawn_result command =
        execute_fork_run(context, root, command_dir, forkable, program, 0, NULL);
    int exit_code = program ? program->exit_code : context->baseline.exit_code;
    int signal = program ? program->signal : context->baseline.signal;
    /* Children share the parent's files: one that runs on to the end may delete or rewrite a
       file the parent reads later (a report it saves and shows again, say). A parent that then
       ends otherwise than the baseline, or prints other output although a plain run prints the
       baseline's, was changed by its children; the children forked after that point continued a
       changed process, and which those are is unknowable: every site is re-run instead. */
    const char *diverged = NULL;
    char detail[64];
    if (command.timed_out || command.signal != signal || command.exit_code != exit_code) {
        snprintf(detail, sizeof detail, "%s %d",
                 command.timed_out ? "timeout" : command.signal ? "signal" : "status",
                 command.signal ? command.signal : command.exit_code);
        diverged = detail;
    } else if (!program && !output_as_baseline(context, command_dir)) {
        char *plain = xasprintf("%s/plain", root);
        char *plan = plan_record(&context->options->settings);
        execute_run(context, plain, plan, context->timeout_ms, NULL, NULL);
        free(plan);
        if (output_as_baseline(context, plain))
            diverged = "other output, which a plain run does not give";
        else
            check_output_stable(context, plain);
        free(plain);
    }
    int64_t concluded = 0;
    if (diverged)
        warn("the fork run of %s ended otherwise than in the baseline (%s): its children may "
             "have changed files it used; every site is re-run",
             program ? program->exe : context->options->settings.argv[0], diverged);
    else
        concluded = conclude_children(context, root, command_dir, &command, program, selector,
                                      false, NULL);
    if (!diverged)
        explain_refusals(context, root, program ? program->exe : context->options->settings.argv[0],
                         selector);
    finish_fork_run(context, root, selector);
    *forkable_total += forkable;
    *concluded_total += concluded;
    remove_fork_folder(context, root);
    free(command_dir);
    free(root);
}
