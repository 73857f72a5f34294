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
    const char *database_path;
    struct report_outputs outputs;
    bool no_default_suppressions;
    VECTOR(const char *) suppression_files;
};

#define OPTIONS (*(struct report_options *)target)
static void take_db(void *target, const char *value) { OPTIONS.database_path = value; }
/* One function per output format (formats.def). */
#define REPORT_FORMAT(name, writer, where, help)                                                   \
    static void take_##name(void *target, const char *value)                                       \
    {                                                                                              \
        report_outputs_take(&OPTIONS.outputs, REPORT_FORMAT_##name, value);                        \
    }
#include "report/formats.def"
#undef REPORT_FORMAT
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
#define REPORT_FORMAT(name, writer, where, help)                                                   \
    {#name, 0, (where) == REPORT_FILE ? OPTION_REQUIRED : OPTION_FLAG,                             \
     (where) == REPORT_FILE ? "PATH" : NULL, OPTION_INVOCATION, help, take_##name},
#include "report/formats.def"
#undef REPORT_FORMAT
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
    const char *database_path = options.database_path;
    VECTOR_PUSH(options.suppression_files, NULL);
    struct suppressions *rules = suppressions_load(options.suppression_files.items,
                                                   !options.no_default_suppressions);
    free(options.suppression_files.items);
    sqlite3 *db = database_open(database_path, false);
    json_t *report = report_build(db, database_path, rules);
    suppressions_free(rules);
    report_emit(report, &options.outputs, stdout);
    size_t bugs = report_bug_count(report);
    json_decref(report);
    database_close(db);
    return bugs ? EXIT_BUGS : 0;
}
