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

/* The whole report. `database_path` appears in replay commands when not the default. */
json_t *report_build(sqlite3 *db, const char *database_path);
void report_print_text(json_t *report, FILE *out);
/* Number of findings that are bugs. */
size_t report_bug_count(json_t *report);

#endif
