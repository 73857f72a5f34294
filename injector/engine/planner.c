/*
 * planner.c — the plan of fault runs: one per site of the baseline (or nth, random), and follow-
 * ups for the sites a run found first on an error leg.
 */
#include "base/util.h"
#include "engine/campaign_run.h"
#include "format/plan.h"
#include "store/database.h"
#include "verdict/policy.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int64_t insert_run(sqlite3 *db, const char *kind, const char *site, const char *chain,
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
    char *failable = failable_sites_condition(settings);
    if (settings->kernel && settings->syscall_once) {
        /* --once-per-syscall: the campaign's first site of each system call is swept (a
           census of the kernel, whichever program makes the call); the others say why not. */
        char *query = xasprintf(
            "UPDATE sites SET unexplored = 'same-syscall' WHERE unexplored IS NULL AND %s AND"
            " rowid NOT IN (SELECT min(rowid) FROM sites WHERE %s GROUP BY function)",
            failable, failable);
        database_exec(context->db, query);
        free(query);
    }
    char *query = xasprintf("SELECT id FROM sites WHERE %s AND (unexplored IS NOT 'same-syscall')"
                            " ORDER BY rowid", failable);
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
    struct frame_list frames = {0};
    site_frames(context->db, site, &frames);
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
