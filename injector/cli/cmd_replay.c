/*
 * cmd_replay.c — `failrun replay SITE -- CMD`: run a command once with one site failing, its
 * standard streams connected to the terminal, to reproduce a finding (under gdb, say).
 *
 * A finding of a run that started one program of a suite alone replays that program: the report
 * names it with its folder (`--cwd DIR -- PROG ARGS`); when the campaign recorded a program with
 * that executable, folder and arguments, it gets the environment it had there too.
 */
#include "engine/environment.h"
#include "store/campaign.h"
#include "cli/commands.h"
#include "store/database.h"
#include "store/forks.h"
#include "store/ingest.h"
#include "base/spawn.h"
#include "base/util.h"
#include "format/plan.h"
#include "format/text.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct replay_options {
    const char *database_path, *plan, *directory;
    bool persistent, print_environment;
};

#define OPTIONS (*(struct replay_options *)target)
static void take_db(void *target, const char *value) { OPTIONS.database_path = value; }
static void take_plan(void *target, const char *value) { OPTIONS.plan = value; }
static void take_cwd(void *target, const char *value) { OPTIONS.directory = value; }
static void take_persistent(void *target, const char *value)
{
    (void)value;
    OPTIONS.persistent = true;
}
static void take_print_env(void *target, const char *value)
{
    (void)value;
    OPTIONS.print_environment = true;
}
#undef OPTIONS

static const struct option_row replay_rows[] = {
    {"db", 0, OPTION_REQUIRED, "PATH", OPTION_INVOCATION,
     "campaign database (default .failrun/campaign.db)", take_db},
    {"cwd", 0, OPTION_REQUIRED, "DIR", OPTION_INVOCATION,
     "run COMMAND in DIR; a program the campaign's command started there with these arguments "
     "gets the environment it had in the campaign", take_cwd},
    {"persistent", 0, OPTION_FLAG, NULL, OPTION_INVOCATION,
     "the last site keeps failing at every later call", take_persistent},
    {"plan", 0, OPTION_REQUIRED, "PLAN", OPTION_INVOCATION,
     "the exact plan of a run (nth or random runs: the report gives it) instead of SITE",
     take_plan},
    {"print-env", 0, OPTION_FLAG, NULL, OPTION_INVOCATION,
     "print the environment that arms the fault instead of running anything, e.g. for gdb: "
     "`env $(failrun replay --print-env SITE) gdb --args CMD`; the records go to the "
     "/tmp/failrun-replay-* folder it names", take_print_env},
    {NULL, 0, OPTION_FLAG, NULL, OPTION_INVOCATION, NULL, NULL},
};

const struct option_table replay_options_table = {
    .synopsis =
        "usage: failrun replay [options] SITE[:K][,SITE[:K]...] [-- COMMAND [ARGS...]]\n"
        "       failrun replay [options] --plan PLAN [-- COMMAND [ARGS...]]\n"
        "\n"
        "Run COMMAND (default: the campaign's command) once with the allocation at SITE (16 hex\n"
        "digits, as the report shows) failing at its K-th call (default 1); several sites form a\n"
        "chain, failed in turn, as the report prints for error-path sites. --plan gives the exact\n"
        "plan of an nth or random run. The scope and signature depth come from the campaign\n"
        "database when there is one. Exit status: the command's own (128+N for signal N).\n"
        "\n",
    .rows = replay_rows,
};

struct recorded {
    char *const *argv;
    char ***environment;
    char **found;
};

/* A program started with the arguments asked for (argv[0] aside): its argv and environment. */
static bool same_arguments(const void *argv, int argv_length, const void *environment,
                           int environment_length, void *data)
{
    struct recorded *wanted = data;
    char **recorded = strings_from_blob(argv, argv_length);
    bool same = recorded[0] != NULL;
    size_t i = 1;
    for (; same && wanted->argv[i] && recorded[i]; i++)
        same = !strcmp(wanted->argv[i], recorded[i]);
    if (same && !wanted->argv[i] && !recorded[i]) {
        wanted->found = recorded;
        *wanted->environment = strings_from_blob(environment, environment_length);
        return true;
    }
    environment_free(recorded);
    return false;
}

/* A program of the campaign's baseline with this executable and arguments, started in the
   current folder: its recorded argv (argv[0] as it was) and, in *environment, its environment. */
static char **recorded_program(sqlite3 *db, const char *exe, char *const *argv,
                               char ***environment)
{
    char cwd[PATH_MAX];
    if (!exe || !getcwd(cwd, sizeof cwd))
        return NULL;
    struct recorded recorded = {argv, environment, NULL};
    store_programs_at_each(db, exe, cwd, same_arguments, &recorded);
    return recorded.found;
}

int cmd_replay(int argc, char **argv)
{
    struct replay_options options = {.database_path = DEFAULT_DATABASE};
    int optind = options_parse(&replay_options_table, argc, argv, &options);
    if (optind < 0) {
        options_usage(&replay_options_table, stdout);
        return 0;
    }
    const char *database_path = options.database_path, *raw_plan = options.plan,
               *directory = options.directory;
    bool persistent = options.persistent, print_environment = options.print_environment;
    const char *chain = NULL;
    if (!raw_plan) {
        if (optind >= argc || !strcmp(argv[optind], "--"))
            fatal("give the site to fail as 16 hex digits, as `failrun report` shows it");
        chain = argv[optind++];
    }
    if (optind < argc && !strcmp(argv[optind], "--"))
        optind++;

    struct campaign_settings settings = {0};
    bool have_campaign = false;
    sqlite3 *db = NULL;
    if (access(database_path, F_OK) == 0) {
        db = database_open(database_path, false); /* before --cwd: the path is the caller's */
        have_campaign = campaign_load(db, &settings);
    }
    if (directory && chdir(directory) != 0)
        fatal("--cwd %s: %s; give the folder the report names", directory, strerror(errno));
    if (!have_campaign) {
        settings.depth = 8;
        settings.exe_globs = xstrdup("");
        settings.module_globs = xstrdup("");
    }
    if (optind < argc) {
        for (size_t i = 0; settings.argv && settings.argv[i]; i++)
            free(settings.argv[i]);
        free(settings.argv);
        size_t count = (size_t)(argc - optind);
        settings.argv = xcalloc(count + 1, sizeof *settings.argv);
        for (size_t i = 0; i < count; i++)
            settings.argv[i] = xstrdup(argv[optind + (int)i]);
        free(settings.top_exe);
        settings.top_exe = resolve_command(settings.argv[0]);
        if (!settings.top_exe)
            fatal("%s: command not found; give a path or a name on PATH", settings.argv[0]);
        free(settings.stdin_path);
        settings.stdin_path = NULL; /* a command given here reads the terminal's stdin */
    } else if (!have_campaign) {
        fatal("no campaign in %s to take the command from; add -- COMMAND [ARGS...]",
              database_path);
    }
    char **recorded = NULL; /* the environment of the program as the campaign's command ran it */
    char **program_argv = db && optind < argc ? recorded_program(db, settings.top_exe, settings.argv,
                                                                  &recorded)
                                              : NULL;
    if (db)
        database_close(db);
    if (!settings.scope) {
        /* No campaign decided the scope (a campaign's holds for any command, gdb included): fail
           in the command itself when it is a system program, else in the user's own programs. */
        free(settings.scope);
        settings.scope = xstrdup(path_is_system(settings.top_exe) ? settings.top_exe : "");
    }

    settings.persistent = persistent;
    char *plan = raw_plan ? xstrdup(raw_plan) : plan_text(&settings, chain, 0, 0);
    struct plan parsed;
    if (plan_parse(plan, &parsed))
        fatal(raw_plan ? "--plan %s: not a plan; copy it from `failrun report`"
                       : "%s: give each site as 16 hex digits, as `failrun report` shows it",
              raw_plan ? raw_plan : chain);
    settings.fault_kinds |= parsed.fault_kinds; /* a --plan that fails I/O needs its preload */
    /* Made once the plan is known good: a bad one leaves no folder behind. */
    char directory_template[] = "/tmp/failrun-replay-XXXXXX";
    if (!mkdtemp(directory_template))
        fatal("cannot create a folder in /tmp: %s", strerror(errno));
    char **environment = recorded && !print_environment
                             ? program_environment(&settings, recorded, directory_template, plan)
                             : run_environment(&settings, directory_template, plan);
    if (print_environment) {
        /* Plain NAME=value lines: `env $(failrun replay --print-env ...)` splits them on white
           space and removes no quotes. The folder stays: the program writes its records there
           when it runs under gdb later. */
        for (size_t i = 0; environment[i]; i++) {
            /* Only a harness that runs valgrind needs failrun's VALGRIND_OPTS (two options,
               so white space): not a program under gdb. */
            if (!strncmp(environment[i], "VALGRIND_OPTS=", 14))
                continue;
            if (strpbrk(environment[i], " \t\n"))
                warn("%.60s contains white space: `env $(...)` would split it", environment[i]);
            printf("%s\n", environment[i]);
        }
        return 0;
    }
    struct spawn_request request = {
        .argv = settings.argv,
        .extra_environment = (const char *const *)environment,
        .stdin_path = settings.stdin_path,
    };
    if (program_argv) { /* as it was started there: its own argv[0] and environment */
        fprintf(stderr, "failrun: %s with the environment the campaign's command gave it\n",
                settings.argv[0]);
        request.argv = program_argv;
        request.executable = settings.top_exe;
        request.extra_environment = NULL;
        request.environment = (const char *const *)environment;
    }
    struct spawn_result result = spawn_and_wait(&request);
    struct run_records records = {0};
    ingest_run(directory_template, &records);
    for (size_t i = 0; i < records.faults.count; i++) {
        const struct ingest_fault *fault = &records.faults.items[i];
        char site[17];
        hex16(site, fault->signature);
        if (record_function_kind(fault->function) == KIND_IO)
            fprintf(stderr, "failrun: injected: %s failed (%s) at site %s\n",
                    function_name(fault->function), strerrorname_np(fault->error), site);
        else
            fprintf(stderr, "failrun: injected: %s(%llu) failing at site %s\n",
                    function_name(fault->function), (unsigned long long)fault->size, site);
    }
    if (!records.faults.count && !have_campaign)
        fprintf(stderr, "failrun: the plan was not reached: nothing was failed; no campaign at "
                        "%s, so the environment the campaign's command gave the program is not "
                        "known here: pass --db with the campaign's database\n", database_path);
    else if (!records.faults.count)
        fprintf(stderr, "failrun: the plan was not reached: nothing was failed\n");
    run_records_free(&records);
    remove_tree(directory_template);
    environment_free(environment);
    environment_free(program_argv);
    environment_free(recorded);
    free(plan);
    campaign_settings_free(&settings);
    return result.signal ? 128 + result.signal : result.exit_code;
}
