/*
 * coverage.h — error-leg coverage (DESIGN.md "Coverage of error legs").
 *
 * Reading: every run of a campaign ran with GCOV_PREFIX set to its own folder (campaign.c), so
 * a target built with --coverage left one set of .gcda files per run. coverage_read() feeds
 * each run's files to `gcov --json-format --stdout -b` and stores its line and branch counts.
 *
 * Analysis: coverage_analyse() is a pure function of those counts, the runs and the sites, so
 * its rules are unit-tested without running anything:
 *   - error leg: executed in some fault run, never in the baseline;
 *   - attributed to the faulted site of each fault run that executed it;
 *   - deletable: every fault run that reached it failed a NOFAIL-eligible site on the way (its
 *     chain holds one) — a campaign under --policy nofail can reach it through none of them;
 *     kept: some run reached it failing only sites the policy still lets fail — any I/O failure
 *     (--faults io) is one, the policy never exempts an I/O site; a kept item reached so by a
 *     run whose own failure was an I/O call is marked (by_io): kept because of I/O;
 *   - untested: executed in no run at all.
 */
#ifndef FAILRUN_COVERAGE_H
#define FAILRUN_COVERAGE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct coverage_read_stats {
    int runs;       /* runs read this time */
    int data_files; /* .gcda files among them */
    int missing;    /* .gcda files whose .gcno was gone */
};

/* Read the gcov data of every finished run not read before. False when no run has any. */
bool coverage_read(sqlite3 *db, struct coverage_read_stats *stats);

/* The gcov JSON of one data file (or several, one document per line) into `run`'s rows.
   Exposed for tests. Returns the number of documents read, -1 on malformed input. */
int coverage_store_gcov_json(sqlite3 *db, int64_t run, const char *text, size_t length);

enum line_class {
    LINE_UNTESTED, /* executed in no run */
    LINE_BASELINE, /* executed without an error leg: in the baseline (or a run whose fault
                      never fired) */
    LINE_DELETABLE,/* error leg reached only through NOFAIL-eligible sites */
    LINE_KEPT,     /* error leg reached through a site the policy still fails */
    LINE_CLASSES
};
const char *line_class_name(enum line_class class);

struct coverage_run {
    bool baseline;
    int site;          /* index of the faulted site; -1: none (baseline, or never fired) */
    size_t chain_count;/* every site this run failed, the faulted one included */
    const int *chain;
    size_t hit_count;  /* executed items (lines or branches), as indices, any order */
    const size_t *hits;
};

struct coverage_input {
    size_t item_count; /* lines (or branches) */
    size_t site_count;
    const bool *site_eligible;
    const bool *site_io; /* the site is an I/O call (--faults io); NULL: none is */
    size_t run_count;
    const struct coverage_run *runs;
};

struct coverage_item {
    enum line_class class;
    bool by_io; /* kept: reached by a run the policy allows whose own failure was an I/O call */
    size_t site_count; /* sites whose failure reached it, sorted, each once (error legs only) */
    int *sites;
};

/* Fills out[0 .. item_count-1]; free with coverage_items_free. */
void coverage_analyse(const struct coverage_input *input, struct coverage_item *out);
void coverage_items_free(struct coverage_item *items, size_t count);

#endif
