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
/* Every fault run, one line each: site, outcome, finding, and the site's place, by place. */
void report_print_sites(json_t *report, FILE *out);
void report_print_text(json_t *report, FILE *out);
/* JUnit XML: one test case per fault run (per site), a failure for each run that found a bug. */
void report_print_junit(json_t *report, FILE *out);
/* SARIF 2.1.0: one result per finding, the injection and crash stacks as code flows. */
void report_print_sarif(json_t *report, FILE *out);
/* Write the --junit / --sarif files a command was asked for (NULL: not asked). */
void report_write_files(json_t *report, const char *junit_path, const char *sarif_path);
/* Number of findings that are bugs. */
size_t report_bug_count(json_t *report);


#endif
