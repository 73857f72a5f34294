/*
 * conclude.c — concluding runs: each run judged and stored under the campaign's lock, in
 * transactions of a batch of runs.
 */
#include "base/util.h"
#include "engine/campaign_run.h"
#include "store/database.h"
#include "store/runs.h"

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

void conclusions_commit(struct campaign_context *context)
{
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
    settle_run_folder(context, job->dir, evidence || context->options->keep_runs);
    if (context->options->keep_runs && !evidence)
        bound_kept_runs(context, job->run_id);
    batch_end(context, job->result.wall_ms);
    return outcome;
}
