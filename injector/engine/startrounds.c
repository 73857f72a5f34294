/*
 * startrounds.c — a start's children judged while the start waits (libfail/fork/forkstart.c):
 * the start forks its children, one unfailed child after them, and says so
 * (ROOT/starts/NAME.waitK); failrun checks that unfailed child against the first, concludes the
 * children, and gives the next round (ROOT/starts/NAME.roundK+1): the chains their error legs
 * reached, and once more each site a child did not reach or ran out of time on. An empty round
 * ends the start. A harness's suite then carries a whole campaign of its programs in one run,
 * where each level of chains took one more run of it.
 *
 * Also the checks of a start's unfailed children and the conclusion of a start's children, which
 * the fork phase (forkphase.c) uses at the fork run's end for what the rounds left.
 */
#include "engine/campaign_run.h"
#include "engine/forkrun.h"
#include "base/util.h"
#include "format/plan.h"
#include "store/forks.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Rounds a start forks at most, the first included (START_ROUNDS_MAX in forkstart.c): the last
   round failrun gives is the one before, so that every round is judged after its unfailed
   child. */
#define START_ROUNDS 8

/* The unfailed child DIR-SUFFIX of a start (beside the first's DIR), one after the children (-3
   after the first round, -3-K after round K), ended otherwise than the first (`control`), or
   printed other standard output: the program's output varies from run to run, or the children
   changed what it depends on (a file one left behind). Either way a child's difference from the
   first may be no finding. */
static bool start_unstable(const char *dir, const char *suffix, const struct spawn_result *control)
{
    char *twin = xasprintf("%s%s", dir, suffix);
    struct spawn_result other;
    int parent = 0;
    bool unstable = false;
    if (read_result(twin, &other, &parent)) {
        char *out = xasprintf("%s/stdout", dir), *twin_out = xasprintf("%s/stdout", twin);
        unstable = other.timed_out != control->timed_out || other.signal != control->signal ||
                   other.exit_code != control->exit_code || file_hash(out) != file_hash(twin_out);
        free(out);
        free(twin_out);
    }
    free(twin);
    return unstable;
}

const char *start_differs(const char *root, const char *name, const struct program *program)
{
    char *dir = xasprintf("%s/start-%s", root, name);
    struct spawn_result control;
    int parent = 0;
    const char *why = NULL;
    if (!read_result(dir, &control, &parent))
        why = "no unfailed child of its start ran (not started as in the baseline, or it "
              "could not fork there)";
    else if (control.timed_out || control.signal != program->signal ||
             control.exit_code != program->exit_code)
        why = program->in_command ? "it ended otherwise than in the baseline"
                                  : "it ended otherwise than alone";
    else if (start_unstable(dir, "-3", &control))
        why = "unstable: its unfailed runs before and after its children ended or printed "
              "otherwise (its output varies from run to run, or the children changed what it "
              "depends on)";
    else if (!program->in_command) {
        char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
        if ((program->alone_stdout && file_hash(out) != program->alone_stdout) ||
            (program->alone_stderr && file_hash(err) != program->alone_stderr))
            why = "it printed other output than alone";
        free(out);
        free(err);
    }
    free(dir);
    return why;
}

/* The unfailed child of a start as the reference of its children: its output and the blocks
   live at its end (a program that does not run alone: start_in_command). */
static void control_reference(const char *root, const char *name, struct program *reference)
{
    char *dir = xasprintf("%s/start-%s", root, name);
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    reference->alone_stdout = file_hash(out);
    reference->alone_stderr = file_hash(err);
    struct run_records records = {0};
    ingest_run(dir, &records);
    for (size_t i = 0; i < records.live.count; i++)
        VECTOR_PUSH(reference->live, ((struct live_count){records.live.items[i].signature,
                                                           records.live.items[i].blocks}));
    run_records_free(&records);
    free(out);
    free(err);
    free(dir);
}

int64_t conclude_start(struct campaign_context *context, const char *root,
                       const char *command_dir, const struct spawn_result *command,
                       struct program *program, const char *name,
                       const struct child_retries *retries)
{
    if (!program->in_command)
        return conclude_children(context, root, command_dir, command, program, program->id, true,
                                 retries);
    /* Its children are judged against the unfailed child of the same start, which ran with the
       same fixtures: its status (the baseline's), its output and the blocks live at its end.
       Their runs stay the command's (id 0: no owner), and their leaks unconfirmed: the scan
       replays a run alone, which this program cannot be. */
    struct program reference = *program;
    reference.id = 0;
    reference.live.items = NULL;
    reference.live.count = reference.live.capacity = 0;
    control_reference(root, name, &reference);
    reference.scanned = true;
    reference.scan_ok = false;
    pthread_mutex_init(&reference.scan_lock, NULL);
    int64_t concluded = conclude_children(context, root, command_dir, command, &reference,
                                          program->id, true, retries);
    pthread_mutex_destroy(&reference.scan_lock);
    free(reference.live.items);
    return concluded;
}

/* ---- the rounds ---- */

void write_site_line(FILE *out, const struct campaign_settings *settings,
                     const struct program *program, const char *site, const char *plan)
{
    char *limited = plan_with_program_cpu_limit(settings, plan, program);
    fprintf(out, "%s %s\n", site, limited);
    free(limited);
}

struct given_site {
    char *site, *plan;
};
typedef VECTOR(struct given_site) given_list;

struct start_round {
    const char *name; /* its start file's: "HASH-N", "ord-I-K" */
    struct program *program;
    unsigned round; /* the round whose end (.waitROUND) is served next */
    bool ended;
    VECTOR(int64_t) given;  /* the runs its start file and its rounds gave it */
    VECTOR(char *) retried; /* the sites given a second try */
    VECTOR(char *) last;    /* the sites of the last round given */
    given_list next;        /* the next round's lines */
    int64_t chains_given;   /* chains in the round given last */
};

struct start_rounds {
    struct campaign_context *context;
    const char *root, *command_dir;
    struct start_round *starts;
    size_t count;
    atomic_bool stop;
    pthread_t thread;
    bool serving;
    int64_t concluded, retried, chains;
    unsigned rounds; /* the most any start had */
    struct fork_progress progress;
};

static bool listed(char *const *items, size_t count, const char *site)
{
    for (size_t i = 0; i < count; i++)
        if (!strcmp(items[i], site))
            return true;
    return false;
}

/* A child that did not answer goes to the next round, once a site. */
static bool take_retry(const struct job *job, void *data)
{
    struct start_round *start = data;
    if (!job->site || !job->plan || listed(start->retried.items, start->retried.count, job->site))
        return false;
    VECTOR_PUSH(start->retried, xstrdup(job->site));
    VECTOR_PUSH(start->next, ((struct given_site){xstrdup(job->site), xstrdup(job->plan)}));
    return true;
}

/* No second try: the start has no round left for it. */
static bool refuse_retry(const struct job *job, void *data)
{
    (void)job;
    (void)data;
    return false;
}

/* A forkable run of the program that no line gave it yet: a chain its children's conclusions
   planned and the program was lent. Its child's folder is its last site's (ROOT/SITE), which no
   other run of the fork run has: a chain ends at a site first reached on its error leg, and the
   planner chains a site once (a second try's folder is removed before it is given again). */
static void take_new_run(const struct store_fork_run *run, void *data)
{
    struct start_round *start = data;
    for (size_t i = 0; i < start->given.count; i++)
        if (start->given.items[i] == run->id)
            return;
    VECTOR_PUSH(start->given, run->id);
    VECTOR_PUSH(start->next, ((struct given_site){xstrdup(run->site), xstrdup(run->plan)}));
}

static void clear_last(struct start_round *start)
{
    for (size_t i = 0; i < start->last.count; i++)
        free(start->last.items[i]);
    start->last.count = 0;
}

/* Writes ROOT/starts/NAME.roundK from start->next (written whole, then renamed: the start reads
   it once it is there), and empties it. */
static void write_round(struct start_rounds *rounds, struct start_round *start, unsigned round)
{
    char *path = xasprintf("%s/starts/%s.round%u", rounds->root, start->name, round);
    char *temporary = xasprintf("%s.new", path);
    FILE *out = fopen(temporary, "w");
    if (!out)
        fatal("cannot write %s: %s; check the folder of --db", temporary, strerror(errno));
    clear_last(start);
    for (size_t i = 0; i < start->next.count; i++) {
        struct given_site *given = &start->next.items[i];
        write_site_line(out, &rounds->context->options->settings, start->program, given->site,
                        given->plan);
        VECTOR_PUSH(start->last, given->site);
        free(given->plan);
    }
    if (fclose(out) != 0 || rename(temporary, path) != 0)
        fatal("cannot write %s: %s", path, strerror(errno));
    start->ended = start->next.count == 0;
    start->next.count = 0;
    free(temporary);
    free(path);
}

/* Whether the unfailed child after round `round` (ROOT/start-NAME-3-ROUND) ended as the first:
   else the round's children are no answers, and their folders go (their sites are re-run). */
static bool vouch_last(struct start_rounds *rounds, struct start_round *start, unsigned round)
{
    char *dir = xasprintf("%s/start-%s", rounds->root, start->name);
    char *suffix = xasprintf("-3-%u", round);
    char *after = xasprintf("%s%s/result", dir, suffix);
    struct spawn_result control;
    int parent = 0;
    bool vouched = access(after, F_OK) == 0 && read_result(dir, &control, &parent) &&
                   !start_unstable(dir, suffix, &control);
    for (size_t i = 0; !vouched && i < start->last.count; i++) {
        char *folder = xasprintf("%s/%s", rounds->root, start->last.items[i]);
        remove_tree(folder);
        free(folder);
    }
    free(after);
    free(suffix);
    free(dir);
    return vouched;
}

/* The start finished round start->round: its next. */
static void serve_round(struct start_rounds *rounds, struct start_round *start)
{
    struct campaign_context *context = rounds->context;
    unsigned round = start->round++;
    rounds->chains += start->chains_given; /* the start forked them: it came back */
    start->chains_given = 0;
    bool vouched;
    if (round == 0) {
        vouched = !start_differs(rounds->root, start->name, start->program);
    } else {
        vouched = vouch_last(rounds, start, round);
    }
    /* The start's last round is this one's after-child: nothing more is given, and what did
       not answer is said at the fork run's end. */
    bool last = round + 2 >= START_ROUNDS;
    if (vouched) {
        struct spawn_result none = {0};
        struct child_retries retries = {last ? refuse_retry : take_retry, start};
        int64_t concluded = conclude_start(context, rounds->root, rounds->command_dir, &none,
                                           start->program, start->name, &retries);
        rounds->concluded += concluded;
        atomic_fetch_add(&rounds->progress.answered, concluded);
        for (size_t i = 0; i < start->next.count; i++) { /* a second try, in a folder anew */
            char *folder = xasprintf("%s/%s", rounds->root, start->next.items[i].site);
            remove_tree(folder);
            free(folder);
        }
        size_t retries_given = start->next.count;
        rounds->retried += (int64_t)retries_given;
        if (!last) {
            store_fork_runs_lend(context->db, start->program->id);
            store_fork_runs_each(context->db, start->program->id, take_new_run, start);
        }
        start->chains_given = (int64_t)(start->next.count - retries_given);
        atomic_fetch_add(&rounds->progress.given, (long long)start->chains_given);
    }
    write_round(rounds, start, round + 1);
    if (!start->ended && round + 2 > rounds->rounds)
        rounds->rounds = round + 2;
}

static void *serve_rounds(void *argument)
{
    struct start_rounds *rounds = argument;
    while (!atomic_load(&rounds->stop)) {
        if (failrun_stopping)
            stop_here(); /* the signal's thread ends the process: conclude nothing more */
        bool served = false;
        for (size_t i = 0; i < rounds->count; i++) {
            struct start_round *start = &rounds->starts[i];
            if (start->ended)
                continue;
            char *wait = xasprintf("%s/starts/%s.wait%u", rounds->root, start->name, start->round);
            if (access(wait, F_OK) == 0) {
                serve_round(rounds, start);
                served = true;
            }
            free(wait);
        }
        if (!served)
            nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    return NULL;
}

struct start_rounds *start_rounds_begin(struct campaign_context *context, const char *root,
                                        const char *command_dir)
{
    struct start_rounds *rounds = xcalloc(1, sizeof *rounds);
    rounds->context = context;
    rounds->root = root;
    rounds->command_dir = command_dir;
    rounds->rounds = 1;
    atomic_init(&rounds->stop, false);
    atomic_init(&rounds->progress.answered, 0);
    atomic_init(&rounds->progress.given, 0);
    return rounds;
}

const struct fork_progress *start_rounds_progress(const struct start_rounds *rounds)
{
    return &rounds->progress;
}

void start_rounds_add(struct start_rounds *rounds, struct program *program, const char *name,
                      const int64_t *given, size_t count)
{
    rounds->starts = xrealloc(rounds->starts, (rounds->count + 1) * sizeof *rounds->starts);
    struct start_round *start = &rounds->starts[rounds->count++];
    memset(start, 0, sizeof *start);
    start->name = name;
    start->program = program;
    for (size_t i = 0; i < count; i++)
        VECTOR_PUSH(start->given, given[i]);
}

void start_rounds_serve(struct start_rounds *rounds)
{
    rounds->serving =
        rounds->count && pthread_create(&rounds->thread, NULL, serve_rounds, rounds) == 0;
    for (size_t i = 0; !rounds->serving && i < rounds->count; i++)
        write_round(rounds, &rounds->starts[i], 1); /* none: each start goes on after its first */
}

int64_t start_rounds_end(struct start_rounds *rounds, int64_t *given)
{
    if (rounds->serving) {
        atomic_store(&rounds->stop, true);
        pthread_join(rounds->thread, NULL);
    }
    struct campaign_context *context = rounds->context;
    /* A start whose last round failrun did not judge (the command ended first, or the start
       gave up waiting): its children are concluded with the rest (conclude_start) only where
       the unfailed child after them vouches for them. */
    for (size_t i = 0; i < rounds->count; i++)
        if (!rounds->starts[i].ended && rounds->starts[i].round > 0)
            vouch_last(rounds, &rounds->starts[i], rounds->starts[i].round);
    if (rounds->retried || rounds->rounds > 1) {
        char *note = xasprintf("the starts' children were judged while the starts waited: "
                               "%lld site(s) answered so, in up to %u round(s) a start (%lld "
                               "chain(s) on their error legs; %lld site(s) not reached or out of "
                               "time tried once more)",
                               (long long)rounds->concluded, rounds->rounds,
                               (long long)rounds->chains, (long long)rounds->retried);
        if (!context->options->quiet)
            fprintf(stderr, "failrun: %s\n", note);
        add_fork_note(context, note);
        free(note);
    }
    int64_t concluded = rounds->concluded;
    *given = rounds->chains;
    for (size_t i = 0; i < rounds->count; i++) {
        struct start_round *start = &rounds->starts[i];
        for (size_t k = 0; k < start->retried.count; k++)
            free(start->retried.items[k]);
        for (size_t k = 0; k < start->next.count; k++) {
            free(start->next.items[k].site);
            free(start->next.items[k].plan);
        }
        clear_last(start);
        free(start->retried.items);
        free(start->last.items);
        free(start->next.items);
        free(start->given.items);
    }
    free(rounds->starts);
    free(rounds);
    return concluded;
}
