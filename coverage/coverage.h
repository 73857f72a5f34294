/*
 * coverage.h — error-leg coverage (doc/guide/coverage.md).
 *
 * Reading (coverage.c): every run of a campaign ran with GCOV_PREFIX set to its own folder
 * (environment.c), so a target built with --coverage left one set of .gcda files per run.
 * coverage_read() stores their line and branch counts, reading (gcovdata.c) only the files whose
 * bytes differ from the baseline's.
 *
 * Analysis (covanalysis.c, pure; covload.c feeds it from the database): an error leg is the
 * program's reaction to a failure, found from the counts of the fault run against the
 * baseline's, level by level up the failed site's calling context (its stored frames). "The
 * baseline" is the run's own reference: for a run that started one program of a suite alone
 * (runs.owner), that program's check run alone without a fault (owner.c keeps its gcov data,
 * read as run -program); for a run of the whole command, or when the program's run alone left
 * no data, the campaign's baseline:
 *   - the reaction point of a call is the branch after it: the branches on the call's own
 *     line (`if (!(p = malloc(n)))`), else those of the next line with branches in the same
 *     function (`p = malloc(n); if (!p)`); for the failed call itself the next line's are
 *     tried too, as its own line's branches may come before the call (`malloc(n ? n : 1)`);
 *   - the failure reached that point when the fault run took one of its branches more often
 *     than the baseline did: that branch went the way no unfailed call went. (Compared by
 *     count, not by "never in the baseline", so a leg the baseline also ran, through a suite's
 *     own OOM test, is still credited to the site whose failure reaches it.);
 *   - the leg: the lines of that function after the reaction point that the fault run ran more
 *     often than the baseline, and that the baseline ran no more often than it took those
 *     branches itself (the non-failing path covers the others: code after the paths join, or
 *     run again because the program retried); then, recursively, the functions such a line
 *     calls by name, with the same two conditions (the baseline's runs of the calling line in
 *     place of the branches): an error-reporting or cleanup helper;
 *   - two later reaction points: a call whose result is kept for later (`rc = f();` with no
 *     branch on its line, and the next decision not changed: `if (rc == DONE) break;`) reacts
 *     at the first later decision of its function that reads that name and went otherwise
 *     (`if (rc < 0)`); decisions reading other names are skipped, as they may be testing data
 *     the failure corrupted. A failed read whose failure returns what the end of the input
 *     returns (fgets, fread, getc, read...: the loop ends as the baseline's last read ended it)
 *     reacts at the first later decision of its function that went otherwise (the ferror()
 *     check), or, when none did, in its caller;
 *   - then the caller, at the line of its call: a level with no branch after the call passes
 *     the failure up unexamined (so does the failed call's own function when its line's
 *     branches come before the call and no decision follows: `return malloc(n ? n : 1);`); a level whose branch after the call shows no change absorbed
 *     the failure (or the program never came back), and the walk stops there.
 * Lines a failure reached by other ways (ordinary validation of data the failure corrupted, an
 * argument check in shared cleanup, later work of a program that carried on) are not on the
 * failed site's calling context after a reaction, or are run by the non-failing path too, so
 * they are not error legs. Limits: the calling context is the stored frames (--depth, 8 by
 * default); counts are compared whole-run, so a program whose counts vary from run to run
 * (threads, timing) can add or hide lines.
 *   - deletable: every fault run that reached a leg failed a NOFAIL-eligible site on the way
 *     (its chain holds one): a campaign under --policy nofail can reach it through none of
 *     them, and no run without a fault executes it (the baseline of the whole command: every
 *     program of a suite, and each program's run alone); kept: some run reached it failing
 *     only sites the policy still lets fail — any I/O failure (--faults io) is one, the policy
 *     never exempts an I/O site; a kept item reached so by a run whose own failure was an I/O
 *     call is marked (by_io): kept because of I/O; a leg that a run without a fault executes
 *     too (another program's parse error, a public error getter: a fault run is compared with
 *     its own program's run alone, so what another program runs plainly can be its error
 *     leg) is marked (by_plain): kept, as live code, whichever sites reach it;
 *   - unreached: a line (or branch) no run executed;
 *   - untaken: a branch at the reaction point right after a failable site's call that no run
 *     took: an error reaction no failure exercised.
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
    int gcov_files; /* of them, read (the others were the baseline's, byte for byte) */
    int unreadable; /* of those, cut short or not matching their .gcno: left out */
    int missing;    /* .gcda files whose .gcno was gone */
};

/* Progress of failrun cov on standard error, a line every few seconds, whether or not it is a
   terminal (a suite's campaign takes a minute or more: a log shows it is moving), none when
   quiet: "failrun cov: 800 of 2068 runs read (12 s)". NULL where one is taken: no lines. */
struct coverage_progress {
    bool quiet;
    int64_t started_ms, printed_ms;
};
void coverage_progress(struct coverage_progress *progress, const char *done_what, size_t done,
                       size_t total);

/* Read the gcov data of every finished run not read before. False when no run has any. */
bool coverage_read(sqlite3 *db, struct coverage_progress *progress,
                   struct coverage_read_stats *stats);

/* One data file's counts (gcovdata.h; its build path, the compiler's folder for relative source
   names) as `run`'s rows, as coverage_read stores them. Exposed for tests. */
struct gcov_counts;
void coverage_store_counts(sqlite3 *db, int64_t run, const char *build_path,
                           const char *directory, const struct gcov_counts *counts);


/* ---- the analysis ---- */

enum line_class {
    LINE_UNREACHED, /* no run executed it */
    LINE_UNTAKEN,   /* branches only: an error reaction of a failable site no run took */
    LINE_ORDINARY,  /* executed, on no error leg */
    LINE_DELETABLE, /* error leg reached only through NOFAIL-eligible sites */
    LINE_KEPT,      /* error leg reached through a site the policy still fails */
    LINE_CLASSES
};
const char *line_class_name(enum line_class class);

/* The instrumented code as gcov describes it. Lines sorted by (file, line), each once; a
   line's branches are branch items first_branch .. first_branch + branch_count - 1. */
struct coverage_line {
    int64_t file;
    int line;
    size_t first_branch, branch_count;
};
struct coverage_function {
    int64_t file;
    int start, end; /* lines */
};
struct coverage_layout {
    size_t line_count;
    const struct coverage_line *lines;
    size_t branch_count;
    size_t function_count;
    const struct coverage_function *functions;
    /* The functions each line calls by name (from its source text): line l calls
       callees[callee_start[l] .. callee_start[l + 1] - 1]. NULL: unknown (no source). */
    const size_t *callee_start;
    const long *callees;
    /* Per line, from the same text (NULL without source): the names it reads, as a 64-bit set
       (bit hash % 64 of each identifier not followed by `(`), and the name it assigns
       (`rc = f()`, `p->next = f()`: the last identifier before a lone `=`) as its bit, 0 when
       none. Enough to tell the decision that reads a call's kept result. */
    const uint64_t *line_names;
    const uint64_t *line_assigns;
};

/* A site's calling context as source lines: calls[0] is the failed call (the site's first own
   frame), then each caller's call into it, outwards (inlined calls included). file -1: a frame
   without coverage data (another module, no line information), skipped. */
struct coverage_call {
    int64_t file;
    int line;
};
struct coverage_site {
    bool eligible;    /* NOFAIL-eligible (policy.h) */
    bool never_fails; /* LF_NOFAIL or gcov's own runtime: no error reaction to look for */
    bool io;          /* an I/O call (--faults io) */
    /* A read whose failure returns what the end of the input returns (fgets's NULL, getc's EOF,
       read's -1 where loops test > 0): the branch after the call goes the way the baseline's
       last call went, and the reaction is the later check (ferror). */
    bool ends_like_eof;
    size_t call_count;
    const struct coverage_call *calls;
};

/* One run's counts, indexed like the layout's lines and branches. */
struct coverage_run {
    bool baseline;
    int site;           /* index of the faulted site; -1: none (baseline, or never fired) */
    size_t chain_count; /* every site this run failed, the faulted one included */
    const int *chain;
    const uint64_t *line_counts;
    const uint64_t *branch_counts;
    /* The counts this run is compared with, indexed the same way: a run that started one
       program of a suite alone (runs.owner) compares with that program run alone without a
       fault, since the whole command's baseline ran shared code many more times. NULL: the
       baseline given to coverage_analysis_new. */
    const uint64_t *reference_lines;
    const uint64_t *reference_branches;
};

struct coverage_item {
    enum line_class class;
    bool by_io; /* kept: reached by a run the policy allows whose own failure was an I/O call */
    bool by_plain; /* an error leg that a run without any fault executes too: kept, live code */
    size_t site_count; /* sites whose failure reached it, sorted, each once (error legs only) */
    int *sites;
};

/* The analysis takes the runs one at a time (their counts need not outlive the call). The
   layout, sites and baseline counts must outlive the analysis; a run's own reference counts
   need only outlive the call. */
struct coverage_analysis;
struct coverage_analysis *coverage_analysis_new(const struct coverage_layout *layout,
                                                const struct coverage_site *sites,
                                                size_t site_count, const uint64_t *baseline_lines,
                                                const uint64_t *baseline_branches);
void coverage_analysis_add_run(struct coverage_analysis *analysis, const struct coverage_run *run);
/* Fills lines[0 .. line_count-1] and branches[0 .. branch_count-1] (free each with
   coverage_items_free) and frees the analysis. */
void coverage_analysis_finish(struct coverage_analysis *analysis, struct coverage_item *lines,
                              struct coverage_item *branches);
void coverage_items_free(struct coverage_item *items, size_t count);

/* ---- covload.c: a campaign's stored counts through the analysis ---- */

struct coverage_result {
    struct coverage_layout layout; /* owned */
    struct coverage_item *lines, *branches;
    uint64_t *line_totals, *branch_totals; /* counts summed over every run */
    int baseline_runs, fault_runs;         /* runs with coverage data */
};

/* Analyses the campaign in `db` (its coverage read): runs name sites by id, sites[i] being the
   one whose id is site_ids[i]. False when the baseline has no coverage data. */
bool coverage_analyse_database(sqlite3 *db, char *const *site_ids,
                               const struct coverage_site *sites, size_t site_count,
                               struct coverage_progress *progress, struct coverage_result *out);
void coverage_result_free(struct coverage_result *result);
/* The index of (file, line) in the layout's lines; -1 when that line is not instrumented. */
long coverage_find_line(const struct coverage_layout *layout, int64_t file, int line);

#endif
