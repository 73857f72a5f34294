/*
 * planner.c — the plan of fault runs: one per site of the baseline (or nth, random), and follow-
 * ups for the sites a run found first on an error leg.
 */
#include "base/util.h"
#include "engine/campaign_run.h"
#include "format/plan.h"
#include "store/database.h"
#include "store/plan.h"
#include "verdict/policy.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int64_t insert_run(sqlite3 *db, const char *kind, const char *site, const char *chain,
                   const char *plan, int64_t owner)
{
    return store_run_plan(db, kind, site, chain, plan, owner);
}

/* The chain with each site's first frame ("S:K@MODULE+OFFSET"), which lets the preload skip
   the unwind of every call that cannot be a planned site (plan.c). */
static char *chain_with_tops(sqlite3 *db, const char *chain)
{
    char *result = xstrdup("");
    char *copy = xstrdup(chain);
    for (char *item = strtok(copy, ","); item; item = strtok(NULL, ",")) {
        char *next, *module = NULL;
        int64_t offset = 0;
        if (store_site_top_frame(db, item, &module, &offset))
            next = xasprintf("%s%s%s@%s+%llx", result, *result ? "," : "", item, module,
                             (unsigned long long)offset);
        else
            next = xasprintf("%s%s%s", result, *result ? "," : "", item);
        free(module);
        free(result);
        result = next;
    }
    free(copy);
    return result;
}

/* Plan a fault run unless the campaign reached --max-runs. */
static bool plan_run_in(struct campaign_context *context, const char *site, const char *chain,
                        uint64_t nth, uint64_t seed, int64_t owner, bool every_start)
{
    if (store_fault_run_count(context->db) >= context->options->settings.max_runs)
        return false;
    char *located = chain ? chain_with_tops(context->db, chain) : NULL;
    char *plan = plan_text(&context->options->settings, located, nth, seed);
    int64_t run = insert_run(context->db, "fault", site, chain, plan, owner);
    if (every_start)
        store_run_mark_every_start(context->db, run);
    free(plan);
    free(located);
    context->total++;
    return true;
}

/* In the program that owns the chain's first site (chain_owner). */
static bool plan_run(struct campaign_context *context, const char *site, const char *chain,
                     uint64_t nth, uint64_t seed)
{
    return plan_run_in(context, site, chain, nth, seed, chain_owner(context, chain), false);
}

/* A site's first run, unless it is another shard's. */
static void plan_first_run(const char *site, void *data)
{
    struct campaign_context *context = data;
    const struct campaign_settings *settings = &context->options->settings;
    uint64_t signature = 0;
    if (!parse_hex16(site, &signature) || !in_shard(settings, signature))
        return; /* another shard's */
    char *chain = xasprintf("%s:%llu", site, (unsigned long long)settings->occurrence);
    /* failrun kernel: each system-call site starts its sweep at N = 1. */
    plan_run(context, site, chain, settings->kernel ? 1 : 0, 0);
    free(chain);
}

/* --every-start: the site failed in another program that reached it in the baseline, started
   alone (so only where it runs alone: owners_check drops the run otherwise). */
static void plan_other_start(const char *site, int64_t program, void *data)
{
    struct campaign_context *context = data;
    const struct campaign_settings *settings = &context->options->settings;
    uint64_t signature = 0;
    if (!parse_hex16(site, &signature) || !in_shard(settings, signature))
        return;
    struct program *other = program_get(context, program);
    if (!other || other->top)
        return; /* the command's own process: its first run is already the command's */
    char *chain = xasprintf("%s:%llu", site, (unsigned long long)settings->occurrence);
    plan_run_in(context, site, chain, 0, 0, program, true);
    free(chain);
}

/* After the baseline: one run per site (in the order first seen), or the first nth/random runs;
   with --every-start, one more per other program that reached the site. */
void plan_first_runs(struct campaign_context *context)
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
    struct store_failable failable = failable_sites(settings);
    if (settings->kernel && settings->syscall_once) {
        /* --once-per-syscall: the campaign's first site of each system call is swept (a
           census of the kernel, whichever program makes the call); the others say why not. */
        store_sites_mark_same_syscall(context->db, &failable);
    }
    store_sites_to_plan_each(context->db, &failable, plan_first_run, context);
    if (settings->every_start && owner_mode(settings) && !settings->kernel)
        store_site_other_programs_each(context->db, &failable, plan_other_start, context);
}

/* Exploration: sites this run revealed (on the error leg of its chain) get runs of their own,
   with the chain that led there; an nth sweep moves on to the next call. */
/* Mark the sites a run revealed first (or just `site`) that will get no run of their own, and
   why. */
static void leave_unexplored(struct campaign_context *context, int64_t run_id, const char *site,
                             const char *reason)
{
    /* Only sites a run could fail (not exempt by the NOFAIL policy) count. */
    struct store_failable failable = failable_sites(&context->options->settings);
    store_sites_leave_unexplored(context->db, &failable, run_id, site, reason);
}

static uint64_t site_key(struct campaign_context *context, const char *site)
{
    struct frame_list frames = {0};
    site_frames(context->db, site, &frames);
    return exploration_key(context, &frames);
}

static void add_explored(const char *site, void *data)
{
    struct campaign_context *context = data;
    VECTOR_PUSH(context->explored, site_key(context, site));
}

/* Has a site with the same exploration key had a run? If not, remember this one as explored. */
static bool explored_before(struct campaign_context *context, const char *site)
{
    if (!context->explored_loaded) {
        context->explored_loaded = true;
        /* Every site of the baseline (each has a run, in this shard or another) and every site
           that got a run since. */
        store_sites_explored_each(context->db, add_explored, context);
    }
    uint64_t key = site_key(context, site);
    for (size_t i = 0; i < context->explored.count; i++)
        if (context->explored.items[i] == key)
            return true;
    VECTOR_PUSH(context->explored, key);
    return false;
}

struct follow_up {
    struct campaign_context *context;
    const struct job *job;
};

/* A site `job` revealed first: a run with the chain that led there, unless it is nothing new. */
static void plan_follow_up(const char *site, void *data)
{
    struct follow_up *follow_up = data;
    struct campaign_context *context = follow_up->context;
    const struct job *job = follow_up->job;
    if (explored_before(context, site)) {
        /* The same allocation call, made from the same call of its function: nothing new. */
        leave_unexplored(context, job->run_id, site, "same-call");
        return;
    }
    char *chain = xasprintf("%s,%s:1", job->chain, site);
    /* In the program the run started (another than the first site's owner with --every-start). */
    if (!(job->program ? plan_run_in(context, site, chain, 0, 0, job->program->id, false)
                       : plan_run(context, site, chain, 0, 0)))
        leave_unexplored(context, job->run_id, site, "max-runs");
    free(chain);
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
        outcome == OUTCOME_CALLER_CRASH || outcome == OUTCOME_HANG || job->hung) {
        leave_unexplored(context, job->run_id, NULL,
                         outcome_name(job->hung ? OUTCOME_HANG : outcome));
        return;
    }
    struct store_failable failable = failable_sites(settings);
    struct follow_up follow_up = {context, job};
    store_sites_first_seen_each(context->db, &failable, job->run_id, plan_follow_up, &follow_up);
}
