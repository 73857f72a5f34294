/*
 * cmd_run.c — `failrun run`: the campaign. Baseline run recording every site, one run per site
 * failing its first occurrence, each classified and stored; then the report.
 *
 * Every run is a row planned before it starts and completed in one transaction with all it found,
 * so killing failrun at any moment loses at most the run in flight: `failrun run` again resumes.
 */
#include "campaign.h"
#include "classify.h"
#include "commands.h"
#include "database.h"
#include "internal.h"
#include "report.h"
#include "sanitizer.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char run_usage[] =
    "usage: failrun run [options] -- COMMAND [ARGS...]\n"
    "\n"
    "Run COMMAND once to record every allocation site, then once per site with that site's\n"
    "first allocation failing; classify and store each run, then print the report.\n"
    "Standard input, when not a terminal, is saved and given to every run.\n"
    "\n"
    "  --db PATH         campaign database (default .failrun/campaign.db)\n"
    "  --depth N         frames in a site signature, 1..28 (default 8)\n"
    "  --timeout SEC     per-run limit; default 10x the baseline plus 5 s\n"
    "  --exe GLOB        fail allocations only in executables matching GLOB (repeatable);\n"
    "                    default: COMMAND and every non-system executable it starts\n"
    "  --module GLOB     fail only allocations whose caller is in a matching module\n"
    "\n"
    "What each run fails (default: each site's first call, one site per run):\n"
    "  --occurrence K    each site's K-th call instead\n"
    "  --persistent      and every later call too (for programs that retry)\n"
    "  --nth N           one run failing the N-th call (the kernel's fail-nth rules)\n"
    "  --nth-sweep       runs failing call 1, 2, 3, ... until the N-th call never comes\n"
    "  --probability P   runs failing each call with probability P (0 < P <= 1),\n"
    "  --seed S          ... the first run with seed S, then S+1, ... (default 1)\n"
    "  --max-runs N      at most N fault runs (default 10000; 100 with --probability).\n"
    "                    Sites first seen on an error path join the queue, with the\n"
    "                    failures that led there, until none is new or N is reached.\n"
    "\n"
    "  --json            print the report as JSON\n"
    "  --junit PATH      also write JUnit XML; --sarif PATH also write SARIF 2.1.0\n"
    "  -j, --jobs N      runs at once (default: the number of cores)\n"
    "  --shard K/N       run slice K (1..N) of the campaign; `failrun merge` joins slices\n"
    "  --keep-runs       keep every run's folder (default: only runs that found bugs)\n"
    "  --quiet           no progress lines\n"
    "\n"
    "Exit status: 0 no bugs, 1 bugs found, 2 usage error.\n"
    "A campaign killed before it finished resumes when run again with the same command.\n";

struct run_options {
    const char *database_path;
    struct campaign_settings settings;
    bool json, keep_runs, quiet, help;
    const char *junit, *sarif;
    int jobs;
};

struct campaign_context {
    /* The lock guards the database, the module map and the counters below; runs themselves
       execute outside it, -j at a time. */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int busy;
    int64_t last_taken, total, done, findings, started_ms;
    bool terminal;
    sqlite3 *db;
    struct run_options *options;
    char *state_dir;
    struct module_map modules;
    struct baseline_observation baseline;
    int64_t baseline_id;
    uint64_t baseline_stdout, baseline_stderr;
    char *baseline_sanitizer; /* finding key of a sanitizer report the baseline already had */
    int64_t timeout_ms;
};

static char *join_globs(const char *existing, const char *glob)
{
    char *joined = *existing ? xasprintf("%s:%s", existing, glob) : xstrdup(glob);
    return joined;
}

static uint64_t parse_count(const char *text, const char *option)
{
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    /* Found by fuzzing: a huge --max-runs wrapped around to a negative bound. */
    if (*end || !*text || value == 0 || text[0] == '-' || errno == ERANGE || value > (1ull << 53))
        fatal("%s %s: give a whole number from 1 to 2^53", option, text);
    return value;
}

static void parse_options(int argc, char **argv, struct run_options *options)
{
    static const struct option long_options[] = {
        {"db", required_argument, NULL, 'd'},      {"depth", required_argument, NULL, 'D'},
        {"timeout", required_argument, NULL, 't'}, {"exe", required_argument, NULL, 'e'},
        {"module", required_argument, NULL, 'm'},  {"json", no_argument, NULL, 'O'},
        {"keep-runs", no_argument, NULL, 'k'},     {"quiet", no_argument, NULL, 'q'},
        {"jobs", required_argument, NULL, 'j'},    {"help", no_argument, NULL, 'h'},
        {"occurrence", required_argument, NULL, 'K'}, {"persistent", no_argument, NULL, 'P'},
        {"nth", required_argument, NULL, 'N'},     {"nth-sweep", no_argument, NULL, 'W'},
        {"probability", required_argument, NULL, 'p'}, {"seed", required_argument, NULL, 's'},
        {"max-runs", required_argument, NULL, 'M'}, {"shard", required_argument, NULL, 'S'},
        {"junit", required_argument, NULL, 'U'},   {"sarif", required_argument, NULL, 'R'},
        {NULL, 0, NULL, 0},
    };
    struct campaign_settings *settings = &options->settings;
    options->database_path = DEFAULT_DATABASE;
    settings->depth = 8;
    settings->occurrence = 1;
    settings->seed = 1;
    settings->exe_globs = xstrdup("");
    settings->module_globs = xstrdup("");
    int c;
    char *end;
    optind = 0; /* 0, not 1: glibc then also forgets where it was inside a grouped option */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    options->jobs = cores > 0 ? (int)cores : 1;
    while ((c = getopt_long(argc, argv, "+hqj:", long_options, NULL)) != -1) {
        switch (c) {
        case 'K':
            settings->occurrence = parse_count(optarg, "--occurrence");
            break;
        case 'P':
            settings->persistent = true;
            break;
        case 'N':
            settings->nth = parse_count(optarg, "--nth");
            break;
        case 'W':
            settings->nth_sweep = true;
            break;
        case 'p': {
            struct plan check;
            char *probe = xasprintf("mode=random;probability=%s", optarg);
            if (plan_parse(probe, &check))
                fatal("--probability %s: give a decimal number, more than 0 and at most 1 "
                      "(e.g. 0.01)", optarg);
            free(probe);
            free(settings->probability);
            settings->probability = xstrdup(optarg);
            break;
        }
        case 's':
            settings->seed = strtoull(optarg, &end, 10);
            if (*end || !*optarg)
                fatal("--seed %s: give a whole number", optarg);
            break;
        case 'M':
            settings->max_runs = (int64_t)parse_count(optarg, "--max-runs");
            break;
        case 'S': {
            unsigned shard = 0, shards = 0;
            char extra;
            if (sscanf(optarg, "%u/%u%c", &shard, &shards, &extra) != 2 || shard < 1 ||
                shards < 1 || shard > shards)
                fatal("--shard %s: give K/N with 1 <= K <= N, e.g. --shard 2/8", optarg);
            settings->shard = shard;
            settings->shards = shards;
            break;
        }
        case 'j':
            options->jobs = (int)strtol(optarg, &end, 10);
            if (*end || options->jobs < 1 || options->jobs > 1024)
                fatal("-j %s: give the number of runs at once, from 1 to 1024", optarg);
            break;
        case 'd':
            options->database_path = optarg;
            break;
        case 'D':
            settings->depth = (int)strtol(optarg, &end, 10);
            if (*end || settings->depth < 1 || settings->depth > RECORD_MAX_FRAMES)
                fatal("--depth %s: give a whole number from 1 to %d", optarg, RECORD_MAX_FRAMES);
            break;
        case 't': {
            double seconds = strtod(optarg, &end);
            if (*end || !(seconds > 0) || seconds > 86400)
                fatal("--timeout %s: give seconds, more than 0 and at most 86400", optarg);
            settings->timeout_ms = (int64_t)(seconds * 1000);
            break;
        }
        case 'e': {
            char *joined = join_globs(settings->exe_globs, optarg);
            free(settings->exe_globs);
            settings->exe_globs = joined;
            break;
        }
        case 'm': {
            char *joined = join_globs(settings->module_globs, optarg);
            free(settings->module_globs);
            settings->module_globs = joined;
            break;
        }
        case 'O':
            options->json = true;
            break;
        case 'U':
            options->junit = optarg;
            break;
        case 'R':
            options->sarif = optarg;
            break;
        case 'k':
            options->keep_runs = true;
            break;
        case 'q':
            options->quiet = true;
            break;
        case 'h':
            options->help = true;
            return;
        default:
            fatal("unknown option; see `failrun help run`");
        }
    }
    if (optind >= argc)
        fatal("no command given; usage: failrun run [options] -- COMMAND [ARGS...]");
    int modes = (settings->nth || settings->nth_sweep) + (settings->probability != NULL) +
                (settings->occurrence != 1 || settings->persistent);
    if (modes > 1)
        fatal("choose one of --occurrence/--persistent, --nth/--nth-sweep and --probability");
    if (settings->nth && settings->nth_sweep)
        fatal("--nth N fails one call, --nth-sweep fails each in turn: give one of them");
    if (!settings->max_runs)
        settings->max_runs = settings->probability ? 100 : 10000;
    size_t count = (size_t)(argc - optind);
    settings->argv = xcalloc(count + 1, sizeof *settings->argv);
    for (size_t i = 0; i < count; i++)
        settings->argv[i] = xstrdup(argv[optind + (int)i]);
    settings->top_exe = resolve_command(settings->argv[0]);
    if (!settings->top_exe)
        fatal("%s: command not found; give a path or a name on PATH", settings->argv[0]);
    char cwd[PATH_MAX];
    settings->cwd = xstrdup(getcwd(cwd, sizeof cwd) ? cwd : ".");
}

/* The folder for a campaign's files (saved stdin, run folders): beside the database and named
   after it, so several databases in one folder never share or wipe each other's runs. */
static char *state_directory(const char *database_path)
{
    char *base = xstrdup(database_path);
    size_t length = strlen(base);
    if (length > 3 && !strcmp(base + length - 3, ".db"))
        base[length - 3] = '\0';
    char *directory = xasprintf("%s.files", base);
    free(base);
    return directory;
}

/* Standard input is given to every run: keep one copy of it in the state folder. */
static char *save_stdin(const char *state_dir)
{
    if (isatty(0))
        return NULL;
    size_t length = 0;
    char *data = read_whole_file("/dev/stdin", &length);
    if (!data || length == 0) {
        free(data);
        return NULL; /* closed or empty stdin: the runs get /dev/null */
    }
    char *path = xasprintf("%s/stdin", state_dir);
    if (!write_whole_file(path, data, length))
        fatal("cannot write %s: %s; check the folder of --db", path, strerror(errno));
    free(data);
    char *absolute = realpath(path, NULL);
    free(path);
    return absolute;
}

/* Each attempt at a run gets its own folder: a process left over from a killed failrun (a
   harness's grandchild, say) can then never write into the folder of the resumed attempt. */
static char *run_directory(struct campaign_context *context, int64_t run_id)
{
    return xasprintf("%s/runs/%lld-%ld", context->state_dir, (long long)run_id, (long)getpid());
}

static struct spawn_result execute(struct campaign_context *context, const char *dir,
                                   const char *plan, int64_t timeout_ms)
{
    remove_tree(dir);
    if (!make_directories(dir))
        fatal("cannot create %s: %s; check the folder of --db", dir, strerror(errno));
    char **environment = run_environment(&context->options->settings, dir, plan);
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    struct spawn_request request = {
        .argv = context->options->settings.argv,
        .extra_environment = (const char *const *)environment,
        .stdin_path = context->options->settings.stdin_path
                          ? context->options->settings.stdin_path : "/dev/null",
        .stdout_path = out,
        .stderr_path = err,
        .timeout_ms = timeout_ms,
    };
    struct spawn_result result = spawn_and_wait(&request);
    environment_free(environment);
    free(out);
    free(err);
    return result;
}

static void set_run_directory(sqlite3 *db, int64_t run_id, const char *dir)
{
    sqlite3_stmt *statement = database_prepare(db, "UPDATE runs SET dir = ? WHERE id = ?");
    sqlite3_bind_text(statement, 1, dir, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 2, run_id);
    database_step_done(statement);
    sqlite3_finalize(statement);
}

static int64_t insert_run(sqlite3 *db, const char *kind, const char *site, const char *chain,
                          const char *plan)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT INTO runs(kind, site, chain, plan, state) VALUES (?, ?, ?, ?, 'planned')");
    sqlite3_bind_text(statement, 1, kind, -1, SQLITE_STATIC);
    if (site)
        sqlite3_bind_text(statement, 2, site, -1, SQLITE_TRANSIENT);
    if (chain)
        sqlite3_bind_text(statement, 3, chain, -1, SQLITE_TRANSIENT);
    if (plan)
        sqlite3_bind_text(statement, 4, plan, -1, SQLITE_TRANSIENT);
    database_step_done(statement);
    sqlite3_finalize(statement);
    return sqlite3_last_insert_rowid(db);
}

static int64_t fault_run_count(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT count(*) FROM runs WHERE kind = 'fault'");
    int64_t count = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    sqlite3_finalize(statement);
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
    sqlite3_finalize(statement);
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
    insert_run(context->db, "fault", site, chain, plan);
    free(plan);
    free(located);
    context->total++;
    return true;
}

/* After the baseline: one run per site (in the order first seen), or the first nth/random runs. */
static void plan_first_runs(struct campaign_context *context)
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
    sqlite3_stmt *sites = database_prepare(context->db, "SELECT id FROM sites ORDER BY rowid");
    while (sqlite3_step(sites) == SQLITE_ROW) {
        const char *site = (const char *)sqlite3_column_text(sites, 0);
        uint64_t signature = 0;
        if (!parse_hex16(site, &signature) || !in_shard(settings, signature))
            continue; /* another shard's */
        char *chain = xasprintf("%s:%llu", site, (unsigned long long)settings->occurrence);
        plan_run(context, site, chain, 0, 0);
        free(chain);
    }
    sqlite3_finalize(sites);
}

static void finish_run(sqlite3 *db, int64_t run_id, const char *site,
                       const struct spawn_result *result, const char *outcome,
                       const char *crash_frames, int problems, int64_t finding)
{
    sqlite3_stmt *statement = database_prepare(
        db, "UPDATE runs SET state = 'done', exit_code = ?, signal = ?, timed_out = ?,"
            " wall_ms = ?, outcome = ?, site = ?, crash_frames = ?, problems = ?,"
            " finding = ? WHERE id = ?");
    sqlite3_bind_int(statement, 1, result->exit_code);
    sqlite3_bind_int(statement, 2, result->signal);
    sqlite3_bind_int(statement, 3, result->timed_out);
    sqlite3_bind_int64(statement, 4, result->wall_ms);
    if (outcome)
        sqlite3_bind_text(statement, 5, outcome, -1, SQLITE_STATIC);
    if (site)
        sqlite3_bind_text(statement, 6, site, -1, SQLITE_TRANSIENT);
    if (crash_frames)
        sqlite3_bind_text(statement, 7, crash_frames, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(statement, 8, problems);
    if (finding > 0)
        sqlite3_bind_int64(statement, 9, finding);
    sqlite3_bind_int64(statement, 10, run_id);
    database_step_done(statement);
    sqlite3_finalize(statement);
}

/* ---- baseline ---- */

static void keep_sites_in_scope(struct run_records *records, const char *scope)
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

static void store_scope(sqlite3 *db, const char *scope)
{
    sqlite3_stmt *statement = database_prepare(db, "UPDATE campaign SET scope = ?");
    sqlite3_bind_text(statement, 1, scope, -1, SQLITE_TRANSIENT);
    database_step_done(statement);
    sqlite3_finalize(statement);
}

/* Output that changes from run to run by itself (timings, a test harness's durations, pids)
   says nothing about a fault: run the command once more, fail nothing, and forget the hash of a
   stream that differed (0 = not compared; such runs cannot be `silent`). */
static void stable_output(struct campaign_context *context, uint64_t *stdout_hash,
                          uint64_t *stderr_hash)
{
    char *dir = xasprintf("%s/runs/baseline-check-%ld", context->state_dir, (long)getpid());
    char *plan = plan_record(&context->options->settings);
    int64_t limit = context->options->settings.timeout_ms ? context->options->settings.timeout_ms
                                                           : 3600 * 1000;
    execute(context, dir, plan, limit);
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    if (file_hash(out) != *stdout_hash) {
        *stdout_hash = 0;
        warn("the command's standard output differs from run to run; no run can be `silent`");
    }
    if (file_hash(err) != *stderr_hash)
        *stderr_hash = 0;
    remove_tree(dir);
    free(out);
    free(err);
    free(plan);
    free(dir);
}

static void run_baseline(struct campaign_context *context)
{
    sqlite3 *db = context->db;
    database_exec(db, "BEGIN IMMEDIATE");
    database_exec(db, "DELETE FROM runs; DELETE FROM sites; DELETE FROM live; DELETE FROM processes;"
                      " DELETE FROM findings; DELETE FROM modules;");
    int64_t run_id = insert_run(db, "baseline", NULL, NULL, NULL);
    database_exec(db, "COMMIT");
    char *dir = run_directory(context, run_id);
    char *plan = plan_record(&context->options->settings);
    int64_t limit = context->options->settings.timeout_ms ? context->options->settings.timeout_ms
                                                           : 3600 * 1000;
    if (!context->options->quiet)
        fprintf(stderr, "failrun: baseline run of %s\n", context->options->settings.argv[0]);
    struct spawn_result result = execute(context, dir, plan, limit);
    set_run_directory(db, run_id, dir);
    free(plan);
    if (result.timed_out)
        fatal("the command did not finish within %lld s without any fault injected; "
              "raise --timeout or fix the command", (long long)(limit / 1000));
    if (result.signal)
        fatal("the command dies of SIG%s without any fault injected; failrun needs a command "
              "that passes on its own (output in %s)", sigabbrev_np(result.signal), dir);
    if (result.exit_code == 127 && !result.started)
        fatal("cannot run %s (see %s/stderr)", context->options->settings.argv[0], dir);
    if (result.exit_code != 0)
        warn("the command exits with status %d even without faults; outcomes compare against it",
             result.exit_code);
    struct run_records records = {0};
    ingest_run(dir, &records);
    if (records.processes.count == 0)
        fatal("no process of the command loaded libfail-preload.so: is it statically linked or "
              "setuid? failrun needs a dynamically linked program");
    struct campaign_settings *settings = &context->options->settings;
    free(settings->scope);
    settings->scope = decide_scope(settings, &records);
    keep_sites_in_scope(&records, settings->scope);
    if (records.sites.count == 0)
        warn("no allocation site seen in scope: check --exe/--module, or the command starts no "
             "in-scope program");
    char *out = xasprintf("%s/stdout", dir), *err = xasprintf("%s/stderr", dir);
    uint64_t stdout_hash = file_hash(out), stderr_hash = file_hash(err);
    stable_output(context, &stdout_hash, &stderr_hash);
    database_exec(db, "BEGIN IMMEDIATE");
    store_scope(db, settings->scope);
    database_store_records(db, run_id, &records);
    finish_run(db, run_id, NULL, &result, NULL, NULL, records.problems, 0);
    sqlite3_stmt *statement = database_prepare(
        db, "UPDATE campaign SET baseline_exit = ?, baseline_signal = ?, baseline_stdout = ?,"
            " baseline_stderr = ?, baseline_wall_ms = ?");
    sqlite3_bind_int(statement, 1, result.exit_code);
    sqlite3_bind_int(statement, 2, result.signal);
    if (stdout_hash)
        sqlite3_bind_int64(statement, 3, (sqlite3_int64)stdout_hash);
    if (stderr_hash)
        sqlite3_bind_int64(statement, 4, (sqlite3_int64)stderr_hash);
    sqlite3_bind_int64(statement, 5, result.wall_ms);
    database_step_done(statement);
    sqlite3_finalize(statement);
    plan_first_runs(context);
    database_exec(db, "COMMIT");
    free(out);
    free(err);
    free(dir);
    run_records_free(&records);
}

static void load_baseline(struct campaign_context *context)
{
    sqlite3_stmt *statement = database_prepare(
        context->db, "SELECT baseline_exit, baseline_signal, baseline_stdout, baseline_stderr,"
                     " baseline_wall_ms, (SELECT id FROM runs WHERE kind = 'baseline')"
                     " FROM campaign");
    if (sqlite3_step(statement) != SQLITE_ROW)
        fatal("the campaign database lost its baseline; remove it and run again");
    context->baseline.exit_code = sqlite3_column_int(statement, 0);
    context->baseline.signal = sqlite3_column_int(statement, 1);
    context->baseline_stdout = (uint64_t)sqlite3_column_int64(statement, 2);
    context->baseline_stderr = (uint64_t)sqlite3_column_int64(statement, 3);
    int64_t wall = sqlite3_column_int64(statement, 4);
    context->baseline_id = sqlite3_column_int64(statement, 5);
    sqlite3_finalize(statement);
    context->timeout_ms = context->options->settings.timeout_ms
                              ? context->options->settings.timeout_ms
                              : 10 * wall + 5000;
}

static bool baseline_done(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT count(*) FROM runs WHERE kind = 'baseline' AND state = 'done'");
    bool done = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int(statement, 0) > 0;
    sqlite3_finalize(statement);
    return done;
}

/* ---- fault runs ---- */

/* Did the process end inside the very call that allocated (xmalloc style: print, then exit or
   abort right there) rather than after the failure was passed up to a caller?
   The activation of the allocating function is still live exactly when the ending stack (of exit
   or of the fatal signal) holds a frame of its module followed by the same return addresses that
   followed the allocating function in the injection stack. Return addresses, not names: this
   works on stripped binaries too. */
static bool frames_equal(const struct record_frame *a, const struct record_frame *b)
{
    return a->module == b->module && a->offset == b->offset;
}

static bool ended_in_caller(struct campaign_context *context, const struct run_records *records,
                            const struct frame_list *injection)
{
    int caller = first_own_frame(&context->modules, injection);
    if (caller < 0 || caller + 1 >= injection->count)
        return false;
    const struct record_frame *below = &injection->frames[caller + 1];
    int below_count = injection->count - caller - 1;
    for (size_t i = 0; i < records->processes.count; i++) {
        const struct ingest_process *process = &records->processes.items[i];
        if (!process->faulted)
            continue;
        const struct frame_list *ending =
            process->signal ? &process->crash_stack : &process->exit_stack;
        for (int j = 0; j + 1 < ending->count; j++) {
            if (ending->frames[j].module != injection->frames[caller].module)
                continue;
            int k = 0;
            while (k < below_count && j + 1 + k < ending->count &&
                   frames_equal(&below[k], &ending->frames[j + 1 + k]))
                k++;
            if (k == below_count || (k > 0 && j + 1 + k == ending->count))
                return true;
        }
    }
    return false;
}

/* The static site (allocation caller) with more live blocks at exit than in the baseline. */
static const struct ingest_live *leaking_site(struct campaign_context *context,
                                             const struct run_records *records)
{
    for (size_t i = 0; i < records->processes.count; i++)
        if (records->processes.items[i].live_overflow)
            return NULL; /* counts are partial: no verdict */
    sqlite3_stmt *statement =
        database_prepare(context->db, "SELECT blocks FROM live WHERE run = ? AND site = ?");
    const struct ingest_live *leaking = NULL;
    for (size_t i = 0; i < records->live.count && !leaking; i++) {
        char site[17];
        hex16(site, records->live.items[i].signature);
        sqlite3_bind_int64(statement, 1, context->baseline_id);
        sqlite3_bind_text(statement, 2, site, -1, SQLITE_TRANSIENT);
        uint64_t before = sqlite3_step(statement) == SQLITE_ROW
                              ? (uint64_t)sqlite3_column_int64(statement, 0) : 0;
        sqlite3_reset(statement);
        if (records->live.items[i].blocks > before)
            leaking = &records->live.items[i];
    }
    sqlite3_finalize(statement);
    return leaking;
}

/* The stack of a leaked block: the first site of the campaign whose caller is the block's
   (live blocks are counted per caller), else that one frame. */
static void leak_frames(sqlite3 *db, const struct record_frame *top, struct frame_list *out)
{
    char module[17];
    hex16(module, top->module);
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT frames FROM sites WHERE json_extract(frames, '$[0][0]') = ?"
            " AND json_extract(frames, '$[0][1]') = ? ORDER BY rowid LIMIT 1");
    sqlite3_bind_text(statement, 1, module, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 2, (sqlite3_int64)top->offset);
    out->count = 0;
    if (sqlite3_step(statement) != SQLITE_ROW ||
        !frames_from_json((const char *)sqlite3_column_text(statement, 0), out)) {
        out->count = 1;
        out->frames[0] = *top;
    }
    sqlite3_finalize(statement);
}

/* The deduplication key of a bug: the frame of the program's own code where it ended (or, for a
   leak, that allocated the leaked block). One faulty error leg reached from many sites, or through
   many callers, is one finding seen in many runs. */
static char *finding_key(struct campaign_context *context, enum outcome outcome, int signal,
                         const struct frame_list *evidence)
{
    int first = first_own_frame(&context->modules, evidence);
    if (first < 0)
        first = 0;
    if (evidence->count == 0)
        return xasprintf("%s:%d", outcome_name(outcome), signal);
    return xasprintf("%s:%d:%016llx+%llx", outcome_name(outcome), signal,
                     (unsigned long long)evidence->frames[first].module,
                     (unsigned long long)evidence->frames[first].offset);
}

/* A module named only by a sanitizer's report: found by path, or added under the id the preload
   gives a module without build-id, so symbolisation can find the file. */
static uint64_t module_for_path(struct campaign_context *context, const char *path)
{
    for (size_t i = 0; i < context->modules.count; i++)
        if (!strcmp(context->modules.paths[i], path))
            return context->modules.ids[i];
    uint64_t id = hash_bytes(2, path, strlen(path));
    char text[17];
    hex16(text, id);
    sqlite3_stmt *statement = database_prepare(
        context->db, "INSERT OR IGNORE INTO modules(id, path, build_id) VALUES (?, ?, '')");
    sqlite3_bind_text(statement, 1, text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 2, path, -1, SQLITE_TRANSIENT);
    database_step_done(statement);
    sqlite3_finalize(statement);
    module_map_free(&context->modules);
    module_map_load(context->db, &context->modules);
    return id;
}

static void sanitizer_frames(struct campaign_context *context,
                             const struct sanitizer_report *report, struct frame_list *out)
{
    out->count = report->frame_count;
    for (int i = 0; i < report->frame_count; i++) {
        out->frames[i].module = module_for_path(context, report->paths[i]);
        out->frames[i].offset = report->offsets[i];
    }
}

static int64_t record_finding(struct campaign_context *context, int64_t run_id, const char *site,
                              enum outcome outcome, int signal, const struct frame_list *evidence,
                              const char *detail)
{
    char *key = finding_key(context, outcome, signal, evidence);
    char *frames = frames_to_json(evidence);
    sqlite3_stmt *statement = database_prepare(
        context->db, "INSERT INTO findings(key, outcome, signal, site, frames, first_run, runs,"
                     " detail) VALUES (?, ?, ?, ?, ?, ?, 1, ?)"
                     " ON CONFLICT(key) DO UPDATE SET runs = runs + 1,"
                     /* whatever order -j finishes runs in, the earliest run represents it */
                     "  site = iif(excluded.first_run < first_run, excluded.site, site),"
                     "  frames = iif(excluded.first_run < first_run, excluded.frames, frames),"
                     "  first_run = min(first_run, excluded.first_run)"
                     " RETURNING id");
    sqlite3_bind_text(statement, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 2, outcome_name(outcome), -1, SQLITE_STATIC);
    sqlite3_bind_int(statement, 3, signal);
    sqlite3_bind_text(statement, 4, site, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 5, frames, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 6, run_id);
    if (detail)
        sqlite3_bind_text(statement, 7, detail, -1, SQLITE_TRANSIENT);
    int64_t id = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    sqlite3_finalize(statement);
    free(key);
    free(frames);
    return id;
}

/* One fault run: its plan, what it did, what was recorded. */
struct job {
    int64_t run_id;
    char *site;  /* the target; NULL for nth and random runs until one fires */
    char *chain; /* site mode */
    char *plan;
    char *dir;
    struct spawn_result result;
    struct run_records records;
};

/* Unlocked: several of these run at once (-j), each with its own folder. */
static void perform_job(struct campaign_context *context, struct job *job)
{
    job->dir = run_directory(context, job->run_id);
    job->result = execute(context, job->dir, job->plan, context->timeout_ms);
    ingest_run(job->dir, &job->records);
    keep_sites_in_scope(&job->records, context->options->settings.scope);
}

/* The failure the run was about: the chain's last site, or the first that fired. */
static const struct ingest_fault *target_fault(const struct job *job)
{
    uint64_t target = 0;
    if (job->site && !parse_hex16(job->site, &target))
        return NULL;
    for (size_t i = 0; i < job->records.faults.count; i++)
        if (!job->site || job->records.faults.items[i].signature == target)
            return &job->records.faults.items[i];
    return NULL;
}

/* Exploration: sites this run revealed (on the error leg of its chain) get runs of their own,
   with the chain that led there; an nth sweep moves on to the next call. */
static void plan_follow_ups(struct campaign_context *context, const struct job *job)
{
    const struct campaign_settings *settings = &context->options->settings;
    if (settings->nth_sweep) {
        struct plan plan;
        if (!plan_parse(job->plan, &plan))
            plan_run(context, NULL, NULL, plan.nth + (settings->shards > 1 ? settings->shards : 1), 0);
        return;
    }
    int length = 1;
    for (const char *c = job->chain; c && *c; c++)
        length += *c == ',';
    if (!job->chain || length >= PLAN_MAX_FAULTS)
        return; /* random runs are not extended; a chain of 8 is long enough */
    sqlite3_stmt *fresh = database_prepare(
        context->db, "SELECT id FROM sites WHERE first_run = ? ORDER BY rowid");
    sqlite3_bind_int64(fresh, 1, job->run_id);
    while (sqlite3_step(fresh) == SQLITE_ROW) {
        const char *site = (const char *)sqlite3_column_text(fresh, 0);
        char *chain = xasprintf("%s,%s:1", job->chain, site);
        plan_run(context, site, chain, 0, 0);
        free(chain);
    }
    sqlite3_finalize(fresh);
}

/* Judge the exit status of the process that had the fault against the same process (program,
   command line, fork child or not) in the baseline, not the status of the command failrun
   started: a test harness that swallows its children's exit status must not hide an outcome. */
static void compare_faulted_process(struct campaign_context *context,
                                    const struct run_records *records,
                                    const struct ingest_fault *target, struct observation *run,
                                    struct baseline_observation *baseline)
{
    const struct ingest_process *image = final_image(records, target->pid);
    if (!image || !image->exited)
        return;
    char command_line[17];
    hex16(command_line, image->command_line);
    sqlite3_stmt *statement = database_prepare(
        context->db, "SELECT exit_code FROM processes WHERE run = ? AND exe = ? AND"
                     " command_line = ? AND forked = ? AND exit_code IS NOT NULL"
                     " GROUP BY exit_code ORDER BY count(*) DESC LIMIT 1");
    sqlite3_bind_int64(statement, 1, context->baseline_id);
    sqlite3_bind_text(statement, 2, image->exe, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 3, command_line, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(statement, 4, image->forked);
    if (sqlite3_step(statement) == SQLITE_ROW) {
        baseline->exit_code = sqlite3_column_int(statement, 0);
        run->exit_code = image->exit_status;
    }
    sqlite3_finalize(statement);
}

/* Under the database lock: classify the run and store it with all it revealed, in one
   transaction. */
/* A sanitizer report the program makes without any fault (a leak it always has) is not a
   finding of the fault runs: remember its key. */
static void load_baseline_sanitizer(struct campaign_context *context)
{
    sqlite3_stmt *statement =
        database_prepare(context->db, "SELECT dir FROM runs WHERE kind = 'baseline'");
    char *dir = sqlite3_step(statement) == SQLITE_ROW ? column_text(statement, 0) : NULL;
    sqlite3_finalize(statement);
    struct sanitizer_report report;
    if (dir && sanitizer_read(dir, &report)) {
        struct frame_list frames;
        sanitizer_frames(context, &report, &frames);
        context->baseline_sanitizer = finding_key(context, OUTCOME_SANITIZER, 0, &frames);
        warn("the command has a sanitizer report even without faults (%s); fault runs report only "
             "others", report.kind);
        sanitizer_report_free(&report);
    }
    free(dir);
}

static enum outcome conclude_job(struct campaign_context *context, struct job *job)
{
    const struct run_records *records = &job->records;
    const struct ingest_fault *target = target_fault(job);
    if (target && !job->site) {
        job->site = xmalloc(17);
        hex16(job->site, target->signature);
    }
    char *out = xasprintf("%s/stdout", job->dir), *err = xasprintf("%s/stderr", job->dir);
    char *stderr_text = read_whole_file(err, NULL);

    /* New modules may appear on error paths: store first, so symbolisation finds them. */
    database_exec(context->db, "BEGIN IMMEDIATE");
    set_run_directory(context->db, job->run_id, job->dir);
    database_store_records(context->db, job->run_id, records);
    if (target)
        plan_follow_ups(context, job); /* sites this run stored first are new */
    module_map_free(&context->modules);
    module_map_load(context->db, &context->modules);

    struct observation observation = {
        .fault_fired = target != NULL,
        .timed_out = job->result.timed_out,
        .exit_code = job->result.exit_code,
        .signal = job->result.signal,
        /* Output is judged only when the fault was in the command itself: a test driver's
           output mixes its children's with its own timings, and which child said what is
           unknowable. Elsewhere exit statuses and stacks decide. */
        .stdout_same = !context->baseline_stdout || (target && target->pid != (uint32_t)job->result.pid) ||
                       file_hash(out) == context->baseline_stdout,
        .stderr_same = !context->baseline_stderr || file_hash(err) == context->baseline_stderr,
        .stderr_text = stderr_text,
    };
    struct frame_list evidence = {0};
    for (size_t i = 0; i < records->processes.count && !observation.crash_signal; i++) {
        if (records->processes.items[i].signal) {
            observation.crash_signal = records->processes.items[i].signal;
            evidence = records->processes.items[i].crash_stack;
        }
    }
    /* glibc aborts from inside free() or malloc() when it finds the heap corrupted (a double
       free): then an interposer of ours is on the crash stack. A test harness may hide the
       message, the stack cannot. */
    for (int i = 0; i < evidence.count; i++) {
        const char *path = module_map_path(&context->modules, evidence.frames[i].module);
        const char *base = path ? strrchr(path, '/') : NULL;
        if (base && !strncmp(base + 1, "libfail-preload", 15))
            observation.in_allocator = true;
    }
    observation.ended_in_caller = target && ended_in_caller(context, records, &target->stack);
    const struct ingest_live *leaked = target ? leaking_site(context, records) : NULL;
    observation.leaked = leaked != NULL;
    struct sanitizer_report report;
    bool reported = sanitizer_read(job->dir, &report);
    struct frame_list sanitizer_stack = {0};
    if (reported) {
        sanitizer_frames(context, &report, &sanitizer_stack);
        char *key = finding_key(context, OUTCOME_SANITIZER, 0, &sanitizer_stack);
        observation.sanitizer =
            !context->baseline_sanitizer || strcmp(key, context->baseline_sanitizer) != 0;
        observation.sanitizer_crash = report.crash;
        free(key);
    }
    struct baseline_observation baseline = context->baseline;
    if (target)
        compare_faulted_process(context, records, target, &observation, &baseline);
    enum outcome outcome = classify(&observation, &baseline);

    int64_t finding = 0;
    int signal = observation.crash_signal ? observation.crash_signal : job->result.signal;
    if (observation.sanitizer && (outcome == OUTCOME_SANITIZER || outcome == OUTCOME_CRASH))
        evidence = sanitizer_stack;
    else if (outcome == OUTCOME_LEAK)
        leak_frames(context->db, &leaked->top, &evidence);
    else if (outcome != OUTCOME_CRASH && target)
        evidence = target->stack; /* hang, silent: located at the injection */
    if (outcome_is_bug(outcome))
        finding = record_finding(context, job->run_id, job->site ? job->site : "", outcome,
                                 outcome == OUTCOME_CRASH ? signal : 0, &evidence,
                                 observation.sanitizer ? report.kind : NULL);
    if (reported)
        sanitizer_report_free(&report);
    char *frames = evidence.count ? frames_to_json(&evidence) : NULL;
    finish_run(context->db, job->run_id, job->site, &job->result, outcome_name(outcome), frames,
               records->problems, finding);
    database_exec(context->db, "COMMIT");

    if (!outcome_is_bug(outcome) && !context->options->keep_runs)
        remove_tree(job->dir);
    free(frames);
    free(stderr_text);
    free(out);
    free(err);
    return outcome;
}

static void job_free(struct job *job)
{
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
    sqlite3_stmt *next = database_prepare(
        context->db, "SELECT id, site, chain, plan FROM runs WHERE state = 'planned' AND id > ?"
                     " ORDER BY id LIMIT 1");
    sqlite3_bind_int64(next, 1, context->last_taken);
    bool found = sqlite3_step(next) == SQLITE_ROW;
    if (found) {
        memset(job, 0, sizeof *job);
        job->run_id = sqlite3_column_int64(next, 0);
        job->site = column_text(next, 1);
        job->chain = column_text(next, 2);
        job->plan = column_text(next, 3);
        context->last_taken = job->run_id;
    }
    sqlite3_finalize(next);
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
        pthread_mutex_unlock(&context->lock);
        perform_job(context, &job);
        pthread_mutex_lock(&context->lock);
        enum outcome outcome = conclude_job(context, &job);
        context->busy--;
        context->done++;
        context->findings += outcome_is_bug(outcome);
        show_progress(context, &job, outcome);
        job_free(&job);
        pthread_cond_broadcast(&context->changed);
    }
    pthread_cond_broadcast(&context->changed);
    pthread_mutex_unlock(&context->lock);
    return NULL;
}

static void run_planned(struct campaign_context *context)
{
    sqlite3_stmt *count = database_prepare(
        context->db, "SELECT count(*), coalesce(sum(state = 'done'), 0),"
                     " (SELECT count(*) FROM findings) FROM runs WHERE kind = 'fault'");
    sqlite3_step(count);
    context->total = sqlite3_column_int64(count, 0);
    context->done = sqlite3_column_int64(count, 1);
    context->findings = sqlite3_column_int64(count, 2);
    sqlite3_finalize(count);
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
    free(threads);
    if (!context->options->quiet && context->terminal && context->done)
        fputc('\n', stderr);
}

static void open_campaign(struct campaign_context *context)
{
    struct run_options *options = context->options;
    context->state_dir = state_directory(options->database_path);
    if (!make_directories(context->state_dir))
        fatal("cannot create %s: %s; choose another --db", context->state_dir, strerror(errno));
    /* Absolute, since the runs' LIBFAIL_DIR lives in it and targets may change directory. */
    char *absolute = realpath(context->state_dir, NULL);
    if (absolute) {
        free(context->state_dir);
        context->state_dir = absolute;
    }
    context->db = database_open(options->database_path, true);
    struct campaign_settings stored = {0};
    bool resume = false;
    if (campaign_load(context->db, &stored)) {
        sqlite3_stmt *statement =
            database_prepare(context->db, "SELECT wall_ms IS NULL FROM campaign");
        bool unfinished = sqlite3_step(statement) == SQLITE_ROW &&
                          sqlite3_column_int(statement, 0);
        sqlite3_finalize(statement);
        resume = unfinished && campaign_same_command(&stored, &options->settings);
    }
    if (resume) {
        if (!options->quiet)
            fprintf(stderr, "failrun: resuming the unfinished campaign in %s\n",
                    options->database_path);
        free(options->settings.stdin_path);
        options->settings.stdin_path = stored.stdin_path ? xstrdup(stored.stdin_path) : NULL;
        options->settings.scope = stored.scope ? xstrdup(stored.scope) : NULL;
        if (!options->settings.timeout_ms)
            options->settings.timeout_ms = stored.timeout_ms;
    } else {
        options->settings.stdin_path = save_stdin(context->state_dir);
        char *runs = xasprintf("%s/runs", context->state_dir);
        remove_tree(runs);
        free(runs);
        database_exec(context->db, "BEGIN IMMEDIATE");
        database_reset(context->db);
        campaign_store(context->db, &options->settings, now_ms());
        database_exec(context->db, "COMMIT");
    }
    campaign_settings_free(&stored);
}

int cmd_run(int argc, char **argv)
{
    struct run_options options = {0};
    parse_options(argc, argv, &options);
    if (options.help) {
        fputs(run_usage, stdout);
        return 0;
    }
    struct campaign_context context = {.options = &options};
    int64_t started = now_ms();
    open_campaign(&context);
    if (!baseline_done(context.db))
        run_baseline(&context);
    load_baseline(&context);
    module_map_load(context.db, &context.modules);
    load_baseline_sanitizer(&context);
    signal(SIGPIPE, SIG_IGN);
    run_planned(&context);

    sqlite3_stmt *statement = database_prepare(
        context.db, "UPDATE campaign SET wall_ms = coalesce(wall_ms, 0) + ?");
    sqlite3_bind_int64(statement, 1, now_ms() - started);
    database_step_done(statement);
    sqlite3_finalize(statement);

    json_t *report = report_build(context.db, options.database_path);
    report_write_files(report, options.junit, options.sarif);
    if (options.json)
        json_dumpf(report, stdout, JSON_INDENT(2)), fputc('\n', stdout);
    else
        report_print_text(report, stdout);
    size_t bugs = report_bug_count(report);
    json_decref(report);
    module_map_free(&context.modules);
    database_close(context.db);
    campaign_settings_free(&options.settings);
    free(context.state_dir);
    free(context.baseline_sanitizer);
    return bugs ? EXIT_BUGS : 0;
}
