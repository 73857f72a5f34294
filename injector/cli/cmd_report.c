/*
 * cmd_report.c — `failrun report`: print the findings of the campaign in the database again.
 */
#include "store/campaign.h"
#include "cli/commands.h"
#include "store/database.h"
#include "report/report.h"
#include "verdict/suppress.h"
#include "base/util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

const char report_usage[] =
    "usage: failrun report [--db PATH] [--json | --sites]\n"
    "\n"
    "Print the report of the campaign stored in the database: every finding (deduplicated by\n"
    "where it ended) with its injection stack, crash stack and replay command, then the number\n"
    "of runs per outcome. Exit status: 0 no bugs, 1 bugs found, 2 error.\n"
    "\n"
    "  --db PATH   campaign database (default .failrun/campaign.db)\n"
    "  --json      JSON instead of text\n"
    "  --sites     instead of the findings, every fault run: the site it failed, by place\n"
    "              (\"f at file.c:40\"), its outcome and its finding\n"
    "  --junit PATH   also write JUnit XML (a test case per fault run, failures for bugs)\n"
    "  --sarif PATH   also write SARIF 2.1.0 (a result per finding, stacks as code flows)\n"
    "  --suppressions FILE   hide findings matching its rules (repeatable; see failrun(1))\n"
    "  --no-default-suppressions   do not apply the bundled rules for known glibc bugs\n";

int cmd_report(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"db", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'j'},
        {"sites", no_argument, NULL, 'l'},
        {"junit", required_argument, NULL, 'u'},
        {"sarif", required_argument, NULL, 's'},
        {"suppressions", required_argument, NULL, 'S'},
        {"no-default-suppressions", no_argument, NULL, 'N'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *database_path = DEFAULT_DATABASE;
    bool json = false, sites = false;
    const char *junit = NULL, *sarif = NULL;
    VECTOR(const char *) suppression_files = {0};
    bool default_suppressions = true;
    int c;
    optind = 0; /* 0, not 1: glibc then also forgets where it was inside a grouped option */
    while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
        if (c == 'd')
            database_path = optarg;
        else if (c == 'j')
            json = true;
        else if (c == 'l')
            sites = true;
        else if (c == 'u')
            junit = optarg;
        else if (c == 's')
            sarif = optarg;
        else if (c == 'S')
            VECTOR_PUSH(suppression_files, optarg);
        else if (c == 'N')
            default_suppressions = false;
        else if (c == 'h') {
            fputs(report_usage, stdout);
            return 0;
        } else
            fatal("unknown option; see `failrun help report`");
    }
    if (optind < argc)
        fatal("unexpected argument '%s'; see `failrun help report`", argv[optind]);
    if (json && sites)
        fatal("--json and --sites: give one (the JSON lists the runs with their sites' places)");
    VECTOR_PUSH(suppression_files, NULL);
    struct suppressions *rules = suppressions_load(suppression_files.items, default_suppressions);
    free(suppression_files.items);
    sqlite3 *db = database_open(database_path, false);
    json_t *report = report_build(db, database_path, rules);
    suppressions_free(rules);
    report_write_files(report, junit, sarif);
    if (json) {
        json_dumpf(report, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
    } else if (sites) {
        report_print_sites(report, stdout);
    } else {
        report_print_text(report, stdout);
    }
    size_t bugs = report_bug_count(report);
    json_decref(report);
    database_close(db);
    return bugs ? EXIT_BUGS : 0;
}
