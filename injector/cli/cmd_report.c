/*
 * cmd_report.c — `failrun report`: print the findings of the campaign in the database again.
 */
#include "store/campaign.h"
#include "cli/commands.h"
#include "store/database.h"
#include "report/report.h"
#include "verdict/suppress.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

struct report_options {
    const char *database_path, *junit, *sarif;
    bool json, sites, no_default_suppressions;
    VECTOR(const char *) suppression_files;
};

#define OPTIONS (*(struct report_options *)target)
static void take_db(void *target, const char *value) { OPTIONS.database_path = value; }
static void take_json(void *target, const char *value)
{
    (void)value;
    OPTIONS.json = true;
}
static void take_sites(void *target, const char *value)
{
    (void)value;
    OPTIONS.sites = true;
}
static void take_junit(void *target, const char *value) { OPTIONS.junit = value; }
static void take_sarif(void *target, const char *value) { OPTIONS.sarif = value; }
static void take_suppressions(void *target, const char *value)
{
    VECTOR_PUSH(OPTIONS.suppression_files, value);
}
static void take_no_default_suppressions(void *target, const char *value)
{
    (void)value;
    OPTIONS.no_default_suppressions = true;
}
#undef OPTIONS

static const struct option_row report_rows[] = {
    {"db", 0, OPTION_REQUIRED, "PATH", OPTION_INVOCATION,
     "campaign database (default .failrun/campaign.db)", take_db},
    {"json", 0, OPTION_FLAG, NULL, OPTION_INVOCATION, "JSON instead of text", take_json},
    {"sites", 0, OPTION_FLAG, NULL, OPTION_INVOCATION,
     "instead of the findings, every fault run: the site it failed, by place (\"f at "
     "file.c:40\"), its outcome and its finding", take_sites},
    {"junit", 0, OPTION_REQUIRED, "PATH", OPTION_INVOCATION,
     "also write JUnit XML (a test case per fault run, failures for bugs)", take_junit},
    {"sarif", 0, OPTION_REQUIRED, "PATH", OPTION_INVOCATION,
     "also write SARIF 2.1.0 (a result per finding, stacks as code flows)", take_sarif},
    {"suppressions", 0, OPTION_REQUIRED, "FILE", OPTION_INVOCATION,
     "hide findings matching its rules (repeatable; see failrun(1))", take_suppressions},
    {"no-default-suppressions", 0, OPTION_FLAG, NULL, OPTION_INVOCATION,
     "do not apply the bundled rules for known glibc bugs", take_no_default_suppressions},
    {NULL, 0, OPTION_FLAG, NULL, OPTION_INVOCATION, NULL, NULL},
};

const struct option_table report_options_table = {
    .synopsis =
        "usage: failrun report [--db PATH] [--json | --sites]\n"
        "\n"
        "Print the report of the campaign stored in the database: every finding (deduplicated by\n"
        "where it ended) with its injection stack, crash stack and replay command, then the number\n"
        "of runs per outcome. Exit status: 0 no bugs, 1 bugs found, 2 error.\n"
        "\n",
    .rows = report_rows,
};

int cmd_report(int argc, char **argv)
{
    struct report_options options = {.database_path = DEFAULT_DATABASE};
    int optind = options_parse(&report_options_table, argc, argv, &options);
    if (optind < 0) {
        options_usage(&report_options_table, stdout);
        return 0;
    }
    if (optind < argc)
        fatal("unexpected argument '%s'; see `failrun help report`", argv[optind]);
    const char *database_path = options.database_path, *junit = options.junit,
               *sarif = options.sarif;
    bool json = options.json, sites = options.sites;
    if (json && sites)
        fatal("--json and --sites: give one (the JSON lists the runs with their sites' places)");
    VECTOR_PUSH(options.suppression_files, NULL);
    struct suppressions *rules = suppressions_load(options.suppression_files.items,
                                                   !options.no_default_suppressions);
    free(options.suppression_files.items);
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
