/*
 * report.h — the campaign report, built once as a JSON document from the database and printed
 * either as JSON (--json) or as text, so both always say the same thing.
 */
#ifndef FAILRUN_REPORT_H
#define FAILRUN_REPORT_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>

struct suppressions;

/* The whole report. `database_path` appears in replay commands when not the default. Findings
   a rule of `rules` (may be NULL) matches are listed apart and counted as suppressed. */
json_t *report_build(sqlite3 *db, const char *database_path, const struct suppressions *rules);
/* The number of finished fault runs per outcome, every outcome present (0 when none). */
json_t *report_outcome_counts(sqlite3 *db);
/* The text a campaign prints by default (text.c). */
void report_print_text(json_t *report, FILE *out);
/* The writers of formats.def's rows. */
/* The model as it is, indented JSON. */
void report_print_json(json_t *report, FILE *out);
/* Every fault run, one line each: site, outcome, finding, and the site's place, by place. */
void report_print_sites(json_t *report, FILE *out);
/* JUnit XML: one test case per fault run (per site), a failure for each run that found a bug. */
void report_print_junit(json_t *report, FILE *out);
/* SARIF 2.1.0: one result per finding, the injection and crash stacks as code flows. */
void report_print_sarif(json_t *report, FILE *out);

/* The output formats (formats.def): what a command was asked to print and write. */
enum report_where { REPORT_STANDARD_OUTPUT, REPORT_FILE };
enum report_format {
    REPORT_TEXT,
#define REPORT_FORMAT(name, writer, where, help) REPORT_FORMAT_##name,
#include "report/formats.def"
#undef REPORT_FORMAT
    REPORT_FORMATS
};
struct report_outputs {
    enum report_format standard;       /* what goes to standard output (REPORT_TEXT: the text) */
    const char *paths[REPORT_FORMATS]; /* the files asked for, by format (NULL: none) */
};
/* A format's option was given (`path` for a file's): fatal when it asks for a second format on
   standard output. */
void report_outputs_take(struct report_outputs *outputs, enum report_format format,
                         const char *path);
/* Write the files asked for, then print the standard output's format to `out`. */
void report_emit(json_t *report, const struct report_outputs *outputs, FILE *out);
/* Number of findings that are bugs. */
size_t report_bug_count(json_t *report);


#endif
