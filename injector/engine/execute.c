/*
 * execute.c — executing one run: its folder, its environment, the wait for its end, and which of
 * its folders are kept.
 */
#include "base/util.h"
#include "engine/campaign_run.h"
#include "store/database.h"
#include "store/runs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each attempt at a run gets its own folder: a process left over from a killed failrun (a
   harness's grandchild, say) can then never write into the folder of the resumed attempt. */
char *run_directory(struct campaign_context *context, int64_t run_id)
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
    return store_run_dir(db, run_id);
}

/* A folder an earlier, interrupted failrun kept, into the bound's list. */
static void count_kept_run(int64_t id, void *data)
{
    struct campaign_context *context = data;
    char *dir = run_folder(context->db, id);
    uint64_t bytes = dir ? tree_bytes(dir) : 0;
    free(dir);
    if (bytes) {
        VECTOR_PUSH(context->kept_runs, id);
        context->kept_bytes += bytes;
    }
}

void bound_kept_runs(struct campaign_context *context, int64_t run_id)
{
    if (!context->kept_loaded) { /* folders an earlier, interrupted failrun kept */
        context->kept_loaded = true;
        store_kept_runs_each(context->db, run_id, count_kept_run, context);
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

void start_alone(struct spawn_request *request, const struct program *program,
                 char **environment)
{
    request->argv = program->argv;
    request->executable = program->exe;
    request->cwd = program->cwd;
    request->extra_environment = NULL;
    request->environment = (const char *const *)environment;
    request->stdin_path = program->stdin_path;
}
