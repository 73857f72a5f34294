/*
 * scheduler.c — the -j workers that take the planned runs one by one, execute each outside the
 * campaign's lock and conclude it under the lock (conclude.c), in the order they were planned.
 */
#include "base/util.h"
#include "engine/campaign_run.h"
#include "store/runs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    struct store_planned_run next;
    bool found = store_run_next_planned(context->db, context->last_taken, &next);
    if (found) {
        memset(job, 0, sizeof *job);
        job->run_id = next.id;
        job->site = next.site;
        job->chain = next.chain;
        job->plan = next.plan;
        int64_t owner = next.owner;
        job->program = owner ? program_get(context, owner) : NULL;
        if (job->program && !job->program->alone)
            job->program = NULL; /* not checked (or failed it): the whole command */
        context->last_taken = job->run_id;
    }
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
    check_parallel(context);
    check_output(context);
    store_fault_run_counts(context->db, &context->total, &context->done, &context->findings);
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
