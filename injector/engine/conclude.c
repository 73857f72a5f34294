/*
 * conclude.c — concluding runs: each run judged and stored under the campaign's lock, in
 * transactions of a batch of runs.
 */
#include "base/util.h"
#include "engine/campaign_run.h"
#include "store/database.h"
#include "store/runs.h"

#include <pthread.h>
#include <stdlib.h>

/* Conclusions of quick runs are committed together: a transaction per run of a few
   milliseconds was a tenth of failrun's time. Each conclusion is a savepoint inside the batch,
   and the batch is committed once it is BATCH_MS old or a run took that long (a slow run pays
   nothing noticeable for its own commit). Killed meanwhile, the runs of the open batch are made
   again on resume, as any run that was not concluded. */
#define BATCH_MS 200

static void batch_begin(struct campaign_context *context)
{
    if (!context->batch_open) {
        store_begin(context->db);
        context->batch_open = true;
        context->batch_started_ms = now_ms();
    }
    store_conclusion_begin(context->db);
}

static void batch_end(struct campaign_context *context, int64_t run_wall_ms)
{
    store_conclusion_end(context->db);
    if (run_wall_ms >= BATCH_MS || now_ms() - context->batch_started_ms >= BATCH_MS)
        conclusions_commit(context);
}

/* Settling a folder (pack its gcov files, remove its tree: settle_run_folder) was a quarter of
   a suite's conclusions, file system calls all; one helper thread does it for the runs that keep
   nothing, in conclusion order (one writer of each coverage collection), while the main thread
   judges the next. Before a commit, and before a folder is kept, the queue is emptied: a
   committed run's coverage is on disk, as without the helper. */
struct settler {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    VECTOR(char *) queue; /* oldest first */
    size_t next;          /* queue.items[next..] are not taken yet; the queue empties (count
                             0) once the last taken is settled */
    bool threaded;        /* the helper started: else each folder is settled at once */
};

static void *settle_queued(void *argument)
{
    struct campaign_context *context = argument;
    struct settler *settler = context->settler;
    pthread_mutex_lock(&settler->lock);
    for (;;) {
        while (settler->next == settler->queue.count)
            pthread_cond_wait(&settler->changed, &settler->lock);
        char *dir = settler->queue.items[settler->next++];
        pthread_mutex_unlock(&settler->lock);
        settle_run_folder(context, dir, false);
        free(dir);
        pthread_mutex_lock(&settler->lock);
        if (settler->next == settler->queue.count)
            settler->next = settler->queue.count = 0;
        pthread_cond_broadcast(&settler->changed);
    }
    return NULL;
}

/* Settle `dir` (a run that keeps nothing) on the helper thread; done at once without one. */
static void settle_later(struct campaign_context *context, const char *dir)
{
    if (!context->settler) {
        struct settler *settler = xcalloc(1, sizeof *settler);
        pthread_mutex_init(&settler->lock, NULL);
        pthread_cond_init(&settler->changed, NULL);
        context->settler = settler;
        pthread_t thread;
        settler->threaded = pthread_create(&thread, NULL, settle_queued, context) == 0;
        if (settler->threaded)
            pthread_detach(thread); /* idle once the queue is empty; it lives as long as failrun */
    }
    struct settler *settler = context->settler;
    if (!settler->threaded) {
        settle_run_folder(context, dir, false);
        return;
    }
    pthread_mutex_lock(&settler->lock);
    VECTOR_PUSH(settler->queue, xstrdup(dir));
    pthread_cond_broadcast(&settler->changed);
    pthread_mutex_unlock(&settler->lock);
}

/* Every folder given to the helper is settled. */
static void settle_wait(struct campaign_context *context)
{
    struct settler *settler = context->settler;
    if (!settler)
        return;
    pthread_mutex_lock(&settler->lock);
    while (settler->queue.count)
        pthread_cond_wait(&settler->changed, &settler->lock);
    pthread_mutex_unlock(&settler->lock);
}

void conclusions_commit(struct campaign_context *context)
{
    settle_wait(context);
    if (context->batch_open)
        store_commit(context->db);
    context->batch_open = false;
    for (size_t i = 0; i < context->unkept.count; i++) {
        remove_tree(context->unkept.items[i]);
        free(context->unkept.items[i]);
    }
    context->unkept.count = 0;
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
    if (evidence || context->options->keep_runs) {
        settle_wait(context);
        settle_run_folder(context, job->dir, true);
    } else {
        settle_later(context, job->dir);
    }
    if (context->options->keep_runs && !evidence)
        bound_kept_runs(context, job->run_id);
    batch_end(context, job->result.wall_ms);
    return outcome;
}
