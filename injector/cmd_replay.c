/*
 * cmd_replay.c — `failrun replay SITE -- CMD`: run a command once with one site failing, its
 * standard streams connected to the terminal, to reproduce a finding (under gdb, say).
 */
#include "campaign.h"
#include "commands.h"
#include "database.h"
#include "ingest.h"
#include "spawn.h"
#include "util.h"
#include "internal.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char replay_usage[] =
    "usage: failrun replay [--db PATH] [--occurrence K] [--print-env] SITE [-- COMMAND [ARGS...]]\n"
    "\n"
    "Run COMMAND (default: the campaign's command) once with the allocation at SITE (16 hex\n"
    "digits, as the report shows) failing at its K-th occurrence (default 1). The scope and\n"
    "signature depth come from the campaign database when there is one.\n"
    "Exit status: the command's own (128+N when killed by signal N).\n"
    "\n"
    "  --print-env   print the environment that arms the fault instead of running anything,\n"
    "                e.g. for gdb: `env $(failrun replay --print-env SITE) gdb --args CMD`\n";

int cmd_replay(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"db", required_argument, NULL, 'd'},
        {"occurrence", required_argument, NULL, 'o'},
        {"print-env", no_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *database_path = DEFAULT_DATABASE;
    unsigned long long occurrence = 1;
    bool print_environment = false;
    int c;
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+h", long_options, NULL)) != -1) {
        switch (c) {
        case 'd':
            database_path = optarg;
            break;
        case 'o':
            occurrence = strtoull(optarg, &end, 10);
            if (*end || occurrence == 0)
                fatal("--occurrence %s: give a whole number >= 1", optarg);
            break;
        case 'p':
            print_environment = true;
            break;
        case 'h':
            fputs(replay_usage, stdout);
            return 0;
        default:
            fatal("unknown option; see `failrun help replay`");
        }
    }
    uint64_t signature;
    if (optind >= argc || !parse_hex16(argv[optind], &signature))
        fatal("give the site to fail as 16 hex digits, as `failrun report` shows it");
    const char *site = argv[optind++];
    if (optind < argc && !strcmp(argv[optind], "--"))
        optind++;

    struct campaign_settings settings = {0};
    bool have_campaign = false;
    if (access(database_path, F_OK) == 0) {
        sqlite3 *db = database_open(database_path, false);
        have_campaign = campaign_load(db, &settings);
        database_close(db);
    }
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
    if (!settings.scope) {
        /* No campaign decided the scope (a campaign's holds for any command, gdb included): fail
           in the command itself when it is a system program, else in the user's own programs. */
        free(settings.scope);
        settings.scope = xstrdup(path_is_system(settings.top_exe) ? settings.top_exe : "");
    }

    char directory_template[] = "/tmp/failrun-replay-XXXXXX";
    if (!mkdtemp(directory_template))
        fatal("cannot create a folder in /tmp: %s", strerror(errno));
    char *plan = plan_for_site(site, occurrence, settings.depth);
    char **environment = run_environment(&settings, directory_template, plan);
    if (print_environment) {
        for (size_t i = 0; environment[i]; i++) {
            char *quoted = shell_quote(environment[i]);
            printf("%s\n", quoted);
            free(quoted);
        }
        rmdir(directory_template);
        return 0;
    }
    struct spawn_request request = {
        .argv = settings.argv,
        .extra_environment = (const char *const *)environment,
        .stdin_path = settings.stdin_path,
    };
    struct spawn_result result = spawn_and_wait(&request);
    struct run_records records = {0};
    ingest_run(directory_template, &records);
    if (records.fault_fired)
        fprintf(stderr, "failrun: injected: %s(%llu) failing at site %s\n",
                function_name(records.fault_function), (unsigned long long)records.fault_size,
                site);
    else
        fprintf(stderr, "failrun: site %s was not reached: nothing was failed\n", site);
    run_records_free(&records);
    remove_tree(directory_template);
    environment_free(environment);
    free(plan);
    campaign_settings_free(&settings);
    return result.signal ? 128 + result.signal : result.exit_code;
}
