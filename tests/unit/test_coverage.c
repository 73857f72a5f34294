/*
 * test_coverage.c — the rules of error-leg coverage on small made-up campaigns: gcov JSON
 * documents (as `gcov --json-format` prints them) stored as each run's data, then the analysis
 * of the database (covload.c, covanalysis.c): what counts as an error leg (the reaction to a
 * failure, followed up the calling context and into helpers), who reached it, when the NOFAIL
 * policy makes it deletable, the lines no run reached, the error reactions no run took; and the
 * eligibility rule itself (policy.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "coverage.h"
#include "store/database.h"
#include "gcovdata.h"
#include "verdict/policy.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The program every campaign below ran. Its gcov data names it by this file, written by the
   test (the analysis reads the source to find which functions a line calls). */
static const char source[] =
    "int put(int n)\n"                        /*  1 */
    "{\n"                                     /*  2 */
    "    char *p = malloc(n);\n"              /*  3: the failable call */
    "    if (!p) {\n"                         /*  4: its reaction point */
    "        report(\"oom\");\n"              /*  5 */
    "        return -1;\n"                    /*  6 */
    "    }\n"                                 /*  7 */
    "    use(p);\n"                           /*  8 */
    "    return 0;\n"                         /*  9 */
    "}\n"                                     /* 10: both paths end here */
    "void report(const char *what)\n"         /* 11 */
    "{\n"                                     /* 12 */
    "    fprintf(stderr, \"%s\\n\", what);\n" /* 13 */
    "}\n"                                     /* 14 */
    "int main(void)\n"                        /* 15 */
    "{\n"                                     /* 16 */
    "    if (put(1) < 0) {\n"                 /* 17: the caller's reaction */
    "        puts(\"failed\");\n"             /* 18 */
    "        return 1;\n"                     /* 19 */
    "    }\n"                                 /* 20 */
    "    if (!check())\n"                     /* 21 */
    "        return 2;\n"                     /* 22 */
    "    return 0;\n"                         /* 23 */
    "}\n"                                     /* 24 */
    "int check(void)\n"                       /* 25 */
    "{\n"                                     /* 26 */
    "    if (!lookup())\n"                    /* 27: ordinary validation */
    "        return 0;\n"                     /* 28 */
    "    return 1;\n"                         /* 29 */
    "}\n"                                     /* 30 */
    "int grow(int n)\n"                       /* 31 */
    "{\n"                                     /* 32 */
    "    char *p = malloc(n ? n : 1);\n"      /* 33: branches before the call */
    "    if (!p)\n"                           /* 34: the reaction */
    "        return -1;\n"                    /* 35 */
    "    return 0;\n"                         /* 36 */
    "}\n"                                     /* 37 */
    "int lines(FILE *f)\n"                    /* 38 */
    "{\n"                                     /* 39 */
    "    int c, n = 0;\n"                     /* 40 */
    "    while ((c = getc(f)) != EOF)\n"      /* 41: the read; EOF ends the loop either way */
    "        if (c == '\\n')\n"               /* 42 */
    "            n++;\n"                      /* 43 */
    "    if (ferror(f))\n"                    /* 44: the reaction to a failed read */
    "        return -1;\n"                    /* 45 */
    "    return n;\n"                         /* 46 */
    "}\n"                                     /* 47 */
    "int step(void)\n"                        /* 48 */
    "{\n"                                     /* 49 */
    "    int rc = next();\n"                  /* 50: the result kept for later */
    "    if (rc == 0)\n"                      /* 51: not the failure's value */
    "        return 0;\n"                     /* 52 */
    "    if (total > 3)\n"                    /* 53: reads no rc */
    "        total = 0;\n"                    /* 54 */
    "    if (rc < 0)\n"                       /* 55: the reaction */
    "        return -1;\n"                    /* 56 */
    "    return 2;\n"                         /* 57 */
    "}\n"                                     /* 58 */
    "void *wrap(int n)\n"                     /* 59 */
    "{\n"                                     /* 60 */
    "    return malloc(n ? n : 1);\n"         /* 61: decides before the call, never after */
    "}\n";                                    /* 62 */

static char source_path[64];

static int write_source(void **state)
{
    (void)state;
    strcpy(source_path, "/tmp/test_coverage.XXXXXX.c");
    int fd = mkstemps(source_path, 2);
    if (fd < 0 || write(fd, source, strlen(source)) != (ssize_t)strlen(source))
        return -1;
    close(fd);
    return 0;
}

static int remove_source(void **state)
{
    (void)state;
    unlink(source_path);
    return 0;
}

/* The program's counts as the gcov data reader gives them (gcovdata.h): `counts` is
   "LINE:COUNT" or "LINE:COUNT/B0,B1" (branch counts, the error branch first) for each
   instrumented line, space separated. */
static const struct gcov_function functions[] = {
    {"put", 1, 10},    {"report", 11, 14}, {"main", 15, 24}, {"check", 25, 30},
    {"grow", 31, 37},  {"lines", 38, 47},  {"step", 48, 58}, {"wrap", 59, 62},
};

static void store_program_counts(sqlite3 *db, int64_t run, const char *counts)
{
    struct gcov_line lines[128];
    int64_t branch_counts[256];
    size_t line_count = 0, branch_count = 0;
    for (const char *at = counts; *at && line_count < 128;) {
        int line = 0, count = 0, consumed = 0, branches[2] = {0, 0};
        if (sscanf(at, "%d:%d%n", &line, &count, &consumed) != 2)
            break;
        at += consumed;
        struct gcov_line *entry = &lines[line_count++];
        *entry = (struct gcov_line){.line = line, .count = count,
                                    .first_branch = (int)branch_count};
        if (*at == '/') {
            sscanf(at, "/%d,%d%n", &branches[0], &branches[1], &consumed);
            at += consumed;
            branch_counts[branch_count++] = branches[0];
            branch_counts[branch_count++] = branches[1];
            entry->branches = 2;
        }
        while (*at == ' ')
            at++;
    }
    struct gcov_file file = {.name = source_path, .lines = lines, .line_count = line_count,
                             .branch_counts = branch_counts, .branch_count = branch_count,
                             .functions = functions,
                             .function_count = sizeof functions / sizeof *functions};
    struct gcov_counts all = {.files = &file, .file_count = 1};
    coverage_store_counts(db, run, "/build/a.gcda", "/tmp", &all);
}

/* The baseline: put succeeds, check passes; no error path runs. */
static const char baseline_counts[] =
    "1:1 3:1 4:1/0,1 5:0 6:0 8:1 9:1 10:1 11:0 13:0 14:0 15:1 17:1/0,1 18:0 19:0 21:1/0,1 22:0 "
    "23:1 24:1 25:1 27:1/0,1 28:0 29:1 30:1";
/* The malloc of line 3 fails: put reports and returns -1, main reports and returns 1. */
static const char failed_counts[] =
    "1:1 3:1 4:1/1,0 5:1 6:1 8:0 9:0 10:1 11:1 13:1 14:1 15:1 17:1/1,0 18:1 19:1 21:0/0,0 22:0 "
    "23:0 24:1 25:0 27:0/0,0 28:0 29:0 30:0";

struct campaign {
    sqlite3 *db;
    int64_t file;
};

static void add_run(struct campaign *c, int64_t id, const char *site, const char *chain,
                    const char *counts)
{
    char *sql = sqlite3_mprintf(
        "INSERT INTO runs(id, kind, site, chain, state, outcome) VALUES (%lld, %Q, %Q, %Q, 'done',"
        " %Q); INSERT INTO cov_runs(run, data_files, gcov_files, read_ms) VALUES (%lld, 1, 1, 0)",
        (long long)id, site ? "fault" : "baseline", site, chain, site ? "handled" : NULL,
        (long long)id);
    database_exec(c->db, sql);
    sqlite3_free(sql);
    store_program_counts(c->db, id, counts);
    sqlite3_stmt *statement = database_prepare(c->db, "SELECT id FROM cov_files");
    assert_int_equal(sqlite3_step(statement), SQLITE_ROW);
    c->file = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
}

static struct campaign new_campaign(const char *baseline)
{
    struct campaign c = {database_open(":memory:", true), 0};
    add_run(&c, 1, NULL, NULL, baseline);
    return c;
}

/* Sites by id "000000000000000N" (N = index + 1). */
static char *const site_ids[] = {"0000000000000001", "0000000000000002", "0000000000000003",
                                 "0000000000000004"};

static struct coverage_result analyse(struct campaign *c, struct coverage_site *sites,
                                      size_t count)
{
    struct coverage_result result;
    assert_true(coverage_analyse_database(c->db, site_ids, sites, count, NULL, &result));
    return result;
}

static const struct coverage_item *line_item(const struct coverage_result *result, int64_t file,
                                             int line)
{
    long at = coverage_find_line(&result->layout, file, line);
    assert_true(at >= 0);
    return &result->lines[at];
}

static enum line_class line_class(const struct coverage_result *result, int64_t file, int line)
{
    return line_item(result, file, line)->class;
}

static enum line_class branch_class(const struct coverage_result *result, int64_t file, int line,
                                    size_t branch)
{
    long at = coverage_find_line(&result->layout, file, line);
    assert_true(at >= 0 && branch < result->layout.lines[at].branch_count);
    return result->branches[result->layout.lines[at].first_branch + branch].class;
}

static void finish(struct campaign *c, struct coverage_result *result)
{
    coverage_result_free(result);
    database_close(c->db);
}

/* The failed call's reaction (line 4 takes its error branch), the lines after it the failing
   path ran (5, 6), the helper line 5 calls (report: 11, 13, 14), then the caller's reaction at
   its call (17) and its leg (18, 19). Line 10 both paths run: not a leg. */
static void test_leg_from_the_reaction_up_the_callers(void **state)
{
    (void)state;
    struct campaign c = new_campaign(baseline_counts);
    add_run(&c, 2, site_ids[0], "0000000000000001:1", failed_counts);
    struct coverage_call calls[] = {{c.file, 3}, {c.file, 17}};
    struct coverage_site sites[] = {{.eligible = true, .call_count = 2, .calls = calls}};
    struct coverage_result r = analyse(&c, sites, 1);
    int legs[] = {5, 6, 11, 13, 14, 18, 19};
    for (size_t i = 0; i < sizeof legs / sizeof *legs; i++) {
        assert_int_equal(line_class(&r, c.file, legs[i]), LINE_DELETABLE);
        assert_int_equal(line_item(&r, c.file, legs[i])->site_count, 1);
        assert_int_equal(line_item(&r, c.file, legs[i])->sites[0], 0);
    }
    int ordinary[] = {1, 3, 4, 8, 9, 10, 15, 17, 21, 24};
    for (size_t i = 0; i < sizeof ordinary / sizeof *ordinary; i++)
        assert_int_equal(line_class(&r, c.file, ordinary[i]), LINE_ORDINARY);
    assert_int_equal(line_class(&r, c.file, 22), LINE_UNREACHED);
    assert_int_equal(line_class(&r, c.file, 28), LINE_UNREACHED);
    /* The reaction branches are error legs too; the branch unfailed calls take is not. */
    assert_int_equal(branch_class(&r, c.file, 4, 0), LINE_DELETABLE);
    assert_int_equal(branch_class(&r, c.file, 4, 1), LINE_ORDINARY);
    assert_int_equal(branch_class(&r, c.file, 17, 0), LINE_DELETABLE);
    assert_int_equal(r.baseline_runs, 1);
    assert_int_equal(r.fault_runs, 1);
    assert_int_equal(r.line_totals[coverage_find_line(&r.layout, c.file, 8)], 1);
    assert_int_equal(r.line_totals[coverage_find_line(&r.layout, c.file, 10)], 2);
    assert_int_equal(r.line_totals[coverage_find_line(&r.layout, c.file, 5)], 1);
    finish(&c, &r);
}

/* Rows of a run's data file and whether they are a difference from the baseline's copy. */
static void stored_rows(sqlite3 *db, int64_t run, int *rows, int *delta)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT (SELECT count(*) FROM cov_line_hits WHERE run = ?1)"
            " + (SELECT count(*) FROM cov_branch_hits WHERE run = ?1),"
            " (SELECT delta FROM cov_run_data WHERE run = ?1)");
    sqlite3_bind_int64(statement, 1, run);
    assert_int_equal(sqlite3_step(statement), SQLITE_ROW);
    *rows = sqlite3_column_int(statement, 0);
    *delta = sqlite3_column_int(statement, 1);
    sqlite3_finalize(statement);
}

/* A run's data file is stored the shorter way: where it differs from the baseline's copy (a
   run that ran as the baseline did but for line 8: one row, its 0), or its non-zero counts (a
   child forked late, whose counters hold only lines 1 and 3: two rows, where the difference
   would be every other line the baseline ran). Both read back as the run's own counts. */
static void test_runs_stored_the_shorter_way(void **state)
{
    (void)state;
    struct campaign c = new_campaign(baseline_counts);
    add_run(&c, 2, site_ids[0], "0000000000000001:1",
            "1:1 3:1 4:1/0,1 5:0 6:0 8:0 9:1 10:1 11:0 13:0 14:0 15:1 17:1/0,1 18:0 19:0 "
            "21:1/0,1 22:0 23:1 24:1 25:1 27:1/0,1 28:0 29:1 30:1");
    add_run(&c, 3, site_ids[1], "0000000000000002:1",
            "1:1 3:1 4:0/0,0 5:0 6:0 8:0 9:0 10:0 11:0 13:0 14:0 15:0 17:0/0,0 18:0 19:0 "
            "21:0/0,0 22:0 23:0 24:0 25:0 27:0/0,0 28:0 29:0 30:0");
    int rows, delta;
    stored_rows(c.db, 2, &rows, &delta);
    assert_int_equal(delta, 1);
    assert_int_equal(rows, 1);
    stored_rows(c.db, 3, &rows, &delta);
    assert_int_equal(delta, 0);
    assert_int_equal(rows, 2);
    struct coverage_call calls[] = {{c.file, 3}};
    struct coverage_site sites[] = {{.eligible = true, .call_count = 1, .calls = calls},
                                    {.eligible = true, .call_count = 1, .calls = calls}};
    struct coverage_result r = analyse(&c, sites, 2);
    /* Totals over the three runs: the baseline's 1 at line 8, the others' none; line 1 all. */
    assert_int_equal(r.line_totals[coverage_find_line(&r.layout, c.file, 8)], 1);
    assert_int_equal(r.line_totals[coverage_find_line(&r.layout, c.file, 1)], 3);
    assert_int_equal(r.line_totals[coverage_find_line(&r.layout, c.file, 9)], 2);
    assert_int_equal(r.line_totals[coverage_find_line(&r.layout, c.file, 30)], 2);
    finish(&c, &r);
}

/* A failure that corrupted data instead of being reacted to: the allocation (inside use(),
   whose own code has no coverage) failed, put carried on, and check's ordinary validation went
   the other way. That validation ran in a fault run only, yet it is no error leg: put has no
   branch after line 8, and main's branch after its call of put (17) did not change. */
static void test_corrupted_data_is_not_a_leg(void **state)
{
    (void)state;
    struct campaign c = new_campaign(baseline_counts);
    add_run(&c, 2, site_ids[0], NULL,
            "1:1 3:1 4:1/0,1 5:0 6:0 8:1 9:1 10:1 11:0 13:0 14:0 15:1 17:1/0,1 18:0 19:0 "
            "21:1/1,0 22:1 23:0 24:1 25:1 27:1/1,0 28:1 29:0 30:1");
    struct coverage_call calls[] = {{-1, 0}, {c.file, 8}, {c.file, 17}};
    struct coverage_site sites[] = {{.eligible = true, .call_count = 3, .calls = calls}};
    struct coverage_result r = analyse(&c, sites, 1);
    assert_int_equal(line_class(&r, c.file, 28), LINE_ORDINARY);
    assert_int_equal(line_class(&r, c.file, 22), LINE_ORDINARY);
    assert_int_equal(branch_class(&r, c.file, 27, 0), LINE_ORDINARY);
    for (size_t l = 0; l < r.layout.line_count; l++)
        assert_true(r.lines[l].class != LINE_DELETABLE && r.lines[l].class != LINE_KEPT);
    finish(&c, &r);
}

/* The suite's own OOM test already failed that malloc once in the baseline: the error leg ran
   there too. The fault run takes it once more, and it is still credited to the site. */
static void test_baseline_ran_the_leg_through_its_own_failure(void **state)
{
    (void)state;
    struct campaign c = new_campaign(
        "1:2 3:2 4:2/1,1 5:1 6:1 8:1 9:1 10:2 11:1 13:1 14:1 15:2 17:2/1,1 18:1 19:1 21:1/0,1 "
        "22:0 23:1 24:2 25:1 27:1/0,1 28:0 29:1 30:1");
    add_run(&c, 2, site_ids[0], NULL,
            "1:2 3:2 4:2/2,0 5:2 6:2 8:0 9:0 10:2 11:2 13:2 14:2 15:2 17:2/2,0 18:2 19:2 21:0/0,0 "
            "22:0 23:0 24:2 25:0 27:0/0,0 28:0 29:0 30:0");
    struct coverage_call calls[] = {{c.file, 3}, {c.file, 17}};
    struct coverage_site sites[] = {{.eligible = false, .call_count = 2, .calls = calls}};
    struct coverage_result r = analyse(&c, sites, 1);
    int legs[] = {5, 6, 11, 13, 14, 18, 19};
    for (size_t i = 0; i < sizeof legs / sizeof *legs; i++)
        assert_int_equal(line_class(&r, c.file, legs[i]), LINE_KEPT);
    assert_int_equal(line_class(&r, c.file, 10), LINE_ORDINARY);
    finish(&c, &r);
}

/* The caller retried the failed call, which then succeeded: the success path's lines ran more
   often than in the baseline, but they are the non-failing path's (the baseline ran them
   without failing), so only the failing path's lines are the leg. */
static void test_a_retry_adds_no_leg_lines(void **state)
{
    (void)state;
    struct campaign c = new_campaign(baseline_counts);
    add_run(&c, 2, site_ids[0], NULL,
            "1:2 3:2 4:2/1,1 5:1 6:1 8:1 9:1 10:2 11:1 13:1 14:1 15:1 17:1/0,1 18:0 19:0 "
            "21:1/0,1 22:0 23:1 24:1 25:1 27:1/0,1 28:0 29:1 30:1");
    struct coverage_call calls[] = {{c.file, 3}, {c.file, 17}};
    struct coverage_site sites[] = {{.eligible = true, .call_count = 2, .calls = calls}};
    struct coverage_result r = analyse(&c, sites, 1);
    assert_int_equal(line_class(&r, c.file, 5), LINE_DELETABLE);
    assert_int_equal(line_class(&r, c.file, 6), LINE_DELETABLE);
    assert_int_equal(line_class(&r, c.file, 8), LINE_ORDINARY);
    assert_int_equal(line_class(&r, c.file, 10), LINE_ORDINARY);
    /* main's branch after the call did not change: the failure was absorbed below it. */
    assert_int_equal(line_class(&r, c.file, 18), LINE_UNREACHED);
    finish(&c, &r);
}

/* Two sites reach the same leg: one NOFAIL-eligible, one not, so the leg is kept and names
   both. A chain run that failed an eligible site first makes what it reached deletable even
   though its own site is not eligible: under the policy the first failure never happens. */
static void test_deletable_and_kept(void **state)
{
    (void)state;
    struct campaign c = new_campaign(baseline_counts);
    add_run(&c, 2, site_ids[0], NULL, failed_counts);
    add_run(&c, 3, site_ids[1], NULL, failed_counts);
    struct coverage_call calls[] = {{c.file, 3}, {c.file, 17}};
    struct coverage_site sites[] = {{.eligible = true, .call_count = 2, .calls = calls},
                                    {.eligible = false, .call_count = 2, .calls = calls}};
    struct coverage_result r = analyse(&c, sites, 2);
    assert_int_equal(line_class(&r, c.file, 5), LINE_KEPT);
    assert_int_equal(line_item(&r, c.file, 5)->site_count, 2);
    assert_int_equal(line_item(&r, c.file, 5)->sites[0], 0);
    assert_int_equal(line_item(&r, c.file, 5)->sites[1], 1);
    finish(&c, &r);

    c = new_campaign(baseline_counts);
    add_run(&c, 2, site_ids[1], "0000000000000001:1,0000000000000002:1", failed_counts);
    r = analyse(&c, sites, 2);
    assert_int_equal(line_class(&r, c.file, 5), LINE_DELETABLE);
    assert_int_equal(line_class(&r, c.file, 18), LINE_DELETABLE);
    finish(&c, &r);
}

/* A failable site never failed (or its run never fired): its reaction branch, which no run
   took, is an untaken error reaction; the same branch after an LF_NOFAIL call is not, since
   that call cannot fail. A run whose fault never fired credits nothing. */
static void test_untaken_reactions(void **state)
{
    (void)state;
    struct campaign c = new_campaign(baseline_counts);
    add_run(&c, 2, NULL, NULL, failed_counts); /* a second baseline-like run: no fault fired */
    database_exec(c.db, "UPDATE runs SET kind = 'fault', site = '0000000000000001',"
                        " outcome = 'not-reached' WHERE id = 2");
    struct coverage_call put_calls[] = {{c.file, 3}};
    struct coverage_call check_calls[] = {{c.file, 27}};
    struct coverage_site sites[] = {
        {.eligible = true, .call_count = 1, .calls = put_calls},
        {.never_fails = true, .call_count = 1, .calls = check_calls}};
    struct coverage_result r = analyse(&c, sites, 2);
    assert_int_equal(line_class(&r, c.file, 5), LINE_ORDINARY); /* ran, but nothing failed */
    assert_int_equal(branch_class(&r, c.file, 21, 0), LINE_UNREACHED);
    assert_int_equal(branch_class(&r, c.file, 27, 0), LINE_UNREACHED);
    finish(&c, &r);

    c = new_campaign(baseline_counts);
    r = analyse(&c, sites, 2);
    assert_int_equal(branch_class(&r, c.file, 4, 0), LINE_UNTAKEN);
    assert_int_equal(branch_class(&r, c.file, 4, 1), LINE_ORDINARY);
    assert_int_equal(branch_class(&r, c.file, 27, 0), LINE_UNREACHED);
    finish(&c, &r);
}

/* A data file whose bytes equal another run's copy has no rows of its own: its counts are that
   run's. A run sharing the baseline's reaches no leg; one sharing a fault run's reaches that
   run's legs, credited to its own site; the totals count each shared copy again. */
static void test_data_file_shared_with_another_run(void **state)
{
    (void)state;
    struct campaign c = new_campaign(baseline_counts);
    add_run(&c, 2, site_ids[0], NULL, failed_counts);
    database_exec(c.db, "INSERT INTO runs(id, kind, site, chain, state, outcome)"
                        " VALUES (3, 'fault', '0000000000000002', NULL, 'done', 'absorbed'),"
                        " (4, 'fault', '0000000000000003', NULL, 'done', 'handled');"
                        "INSERT INTO cov_runs VALUES (3, 1, 0, 0), (4, 1, 0, 0);"
                        "INSERT INTO cov_run_data SELECT 3, data, 1, hash, 0 FROM cov_run_data"
                        " WHERE run = 1;"
                        "INSERT INTO cov_run_data SELECT 4, data, 2, hash, 0 FROM cov_run_data"
                        " WHERE run = 2");
    struct coverage_call calls[] = {{c.file, 3}, {c.file, 17}};
    struct coverage_site sites[] = {{.eligible = true, .call_count = 2, .calls = calls},
                                    {.eligible = true, .call_count = 2, .calls = calls},
                                    {.eligible = false, .call_count = 2, .calls = calls}};
    struct coverage_result r = analyse(&c, sites, 3);
    assert_int_equal(r.line_totals[coverage_find_line(&r.layout, c.file, 9)], 2); /* 1, 3 */
    assert_int_equal(r.line_totals[coverage_find_line(&r.layout, c.file, 5)], 2); /* 2, 4 */
    assert_int_equal(line_class(&r, c.file, 5), LINE_KEPT);
    assert_int_equal(line_item(&r, c.file, 5)->site_count, 2);
    assert_int_equal(line_item(&r, c.file, 5)->sites[1], 2);
    assert_int_equal(r.fault_runs, 3);
    finish(&c, &r);
}

/* The failed call's own line has branches that come before the call (`n ? n : 1`): they do
   not change, the next line's do, and that is the reaction; once a run has shown it, the
   untouched branch of the call's line is no untaken error reaction. */
static void test_branches_before_the_call(void **state)
{
    (void)state;
    struct campaign c = new_campaign("31:1 33:1/0,1 34:1/0,1 35:0 36:1 37:1");
    struct coverage_call calls[] = {{0, 33}};
    struct coverage_site sites[] = {{.eligible = true, .call_count = 1, .calls = calls}};
    calls[0].file = c.file;
    add_run(&c, 2, site_ids[0], NULL, "31:1 33:1/0,1 34:1/1,0 35:1 36:0 37:1");
    struct coverage_result r = analyse(&c, sites, 1);
    assert_int_equal(line_class(&r, c.file, 35), LINE_DELETABLE);
    assert_int_equal(branch_class(&r, c.file, 34, 0), LINE_DELETABLE);
    assert_int_equal(branch_class(&r, c.file, 33, 0), LINE_UNREACHED);
    finish(&c, &r);
}

/* --faults io: site 2 is an I/O call, never eligible. A leg reached by the small allocation
   (site 1) and by the I/O failure is kept, and marked as kept because of I/O; reached through
   the small allocation alone it stays deletable; reached by the I/O failure only after an
   eligible failure in its chain it is deletable too (under the policy that run never happens);
   kept by a large allocation (site 3), it is kept but not because of I/O. */
static void test_io_keeps(void **state)
{
    (void)state;
    struct coverage_call calls[] = {{0, 3}, {0, 17}};
    struct coverage_site sites[] = {{.eligible = true, .call_count = 2, .calls = calls},
                                    {.io = true, .call_count = 2, .calls = calls},
                                    {.eligible = false, .call_count = 2, .calls = calls}};
    struct campaign c = new_campaign(baseline_counts);
    calls[0].file = calls[1].file = c.file;
    add_run(&c, 2, site_ids[0], NULL, failed_counts);
    add_run(&c, 3, site_ids[1], NULL, failed_counts);
    struct coverage_result r = analyse(&c, sites, 3);
    int legs[] = {5, 6, 11, 13, 18, 19};
    for (size_t i = 0; i < sizeof legs / sizeof *legs; i++) {
        assert_int_equal(line_class(&r, c.file, legs[i]), LINE_KEPT);
        assert_true(line_item(&r, c.file, legs[i])->by_io);
        assert_int_equal(line_item(&r, c.file, legs[i])->site_count, 2);
    }
    assert_int_equal(branch_class(&r, c.file, 4, 0), LINE_KEPT);
    assert_false(line_item(&r, c.file, 10)->by_io); /* ordinary: both paths run it */
    finish(&c, &r);

    c = new_campaign(baseline_counts);
    add_run(&c, 2, site_ids[0], NULL, failed_counts);
    r = analyse(&c, sites, 3);
    assert_int_equal(line_class(&r, c.file, 5), LINE_DELETABLE);
    assert_false(line_item(&r, c.file, 5)->by_io);
    finish(&c, &r);

    c = new_campaign(baseline_counts);
    add_run(&c, 2, site_ids[1], "0000000000000001:1,0000000000000002:1", failed_counts);
    r = analyse(&c, sites, 3);
    assert_int_equal(line_class(&r, c.file, 5), LINE_DELETABLE);
    assert_false(line_item(&r, c.file, 5)->by_io);
    finish(&c, &r);

    c = new_campaign(baseline_counts);
    add_run(&c, 2, site_ids[2], NULL, failed_counts);
    r = analyse(&c, sites, 3);
    assert_int_equal(line_class(&r, c.file, 5), LINE_KEPT);
    assert_false(line_item(&r, c.file, 5)->by_io);
    finish(&c, &r);
}

/* A read failing like the end of its input (getc's EOF): the loop's branch goes the way the
   baseline's last read went, and the reaction is the later ferror() check. Only for a read
   marked so: the same counts after an allocation are no leg. */
static void test_read_failing_like_end_of_input(void **state)
{
    (void)state;
    const char *baseline = "38:1 40:1 41:5/1,4 42:4/1,3 43:1 44:1/0,1 45:0 46:1 47:1";
    const char *failed = "38:1 40:1 41:1/1,0 42:0/0,0 43:0 44:1/1,0 45:1 46:0 47:1";
    for (int read = 0; read <= 1; read++) {
        struct campaign c = new_campaign(baseline);
        add_run(&c, 2, site_ids[0], NULL, failed);
        struct coverage_call calls[] = {{c.file, 41}};
        struct coverage_site sites[] = {{.io = true, .ends_like_eof = read, .call_count = 1,
                                         .calls = calls}};
        struct coverage_result r = analyse(&c, sites, 1);
        assert_int_equal(line_class(&r, c.file, 45), read ? LINE_KEPT : LINE_ORDINARY);
        assert_int_equal(line_item(&r, c.file, 45)->by_io, read);
        assert_int_equal(branch_class(&r, c.file, 44, 0), read ? LINE_KEPT : LINE_ORDINARY);
        assert_int_equal(line_class(&r, c.file, 41), LINE_ORDINARY);
        finish(&c, &r);
    }
}

/* A caller keeps the result (`rc = next()`) and tests it after other decisions: its reaction is
   the first later decision that reads rc and went otherwise (55), not line 53, which changed
   too but reads something else (data the failure may have corrupted). */
static void test_result_kept_for_later(void **state)
{
    (void)state;
    struct campaign c = new_campaign("48:1 50:1 51:1/0,1 52:0 53:1/0,1 54:0 55:1/0,1 56:0 57:1 58:1");
    add_run(&c, 2, site_ids[0], NULL, "48:1 50:1 51:1/0,1 52:0 53:1/1,0 54:1 55:1/1,0 56:1 57:0 58:1");
    struct coverage_call calls[] = {{-1, 0}, {c.file, 50}}; /* failed inside next(), uncovered */
    struct coverage_site sites[] = {{.eligible = true, .call_count = 2, .calls = calls}};
    struct coverage_result r = analyse(&c, sites, 1);
    assert_int_equal(line_class(&r, c.file, 56), LINE_DELETABLE);
    assert_int_equal(branch_class(&r, c.file, 55, 0), LINE_DELETABLE);
    assert_int_equal(line_class(&r, c.file, 54), LINE_ORDINARY);
    assert_int_equal(branch_class(&r, c.file, 53, 0), LINE_ORDINARY);
    finish(&c, &r);
}

/* A suite: the whole command ran put three times, twice through its own OOM test (the leg ran
   twice in the baseline). Program 1 run alone ran it once, without failing; its fault run
   (runs.owner = 1) fails the malloc once. Against the whole suite's counts nothing changed
   (the leg ran twice there, once here); against program 1's own run alone (stored as run -1)
   the failure took line 4's error branch: the leg is found, and credited to the site. But the
   suite runs it without any fault of failrun's: live code, kept whatever the policy. Program
   2's run alone left no coverage data: its run compares with the campaign's baseline, as a run
   of the whole command does, and finds nothing. */
static const char suite_counts[] =
    "1:3 3:3 4:3/2,1 5:2 6:2 8:1 9:1 10:3 11:2 13:2 14:2 15:3 17:3/2,1 18:2 19:2 21:1/0,1 22:0 "
    "23:1 24:3 25:1 27:1/0,1 28:0 29:1 30:1";

static void add_owned_run(struct campaign *c, int64_t id, const char *site, int64_t owner,
                          const char *counts)
{
    add_run(c, id, site, NULL, counts);
    char *sql = sqlite3_mprintf("UPDATE runs SET owner = %lld WHERE id = %lld", (long long)owner,
                                (long long)id);
    database_exec(c->db, sql);
    sqlite3_free(sql);
}

static void test_run_alone_compares_with_its_program_alone(void **state)
{
    (void)state;
    struct campaign c = new_campaign(suite_counts);
    database_exec(c.db, "INSERT INTO programs(id, exe, cwd, argv, environment, stdin_kind, top,"
                        " alone, alone_dir) VALUES (1, '/t/a', '/t', x'', x'', 'null', 0, 'yes',"
                        " '/t/alone-1'), (2, '/t/b', '/t', x'', x'', 'null', 0, 'yes', NULL);"
                        "INSERT INTO cov_runs(run, data_files, gcov_files, read_ms)"
                        " VALUES (-1, 1, 1, 0)");
    store_program_counts(c.db, -1, baseline_counts);
    add_owned_run(&c, 2, site_ids[0], 1, failed_counts);
    add_owned_run(&c, 3, site_ids[1], 2, failed_counts);
    struct coverage_call calls[] = {{c.file, 3}, {c.file, 17}};
    struct coverage_site sites[] = {{.eligible = true, .call_count = 2, .calls = calls},
                                    {.eligible = true, .call_count = 2, .calls = calls}};
    struct coverage_result r = analyse(&c, sites, 2);
    int legs[] = {5, 6, 11, 13, 14, 18, 19};
    for (size_t i = 0; i < sizeof legs / sizeof *legs; i++) {
        assert_int_equal(line_class(&r, c.file, legs[i]), LINE_KEPT);
        assert_true(line_item(&r, c.file, legs[i])->by_plain);
        assert_int_equal(line_item(&r, c.file, legs[i])->site_count, 1);
        assert_int_equal(line_item(&r, c.file, legs[i])->sites[0], 0);
    }
    assert_int_equal(branch_class(&r, c.file, 4, 0), LINE_KEPT);
    assert_int_equal(line_class(&r, c.file, 8), LINE_ORDINARY);
    /* The run alone is a reference, not a run of the campaign: not counted, not in the totals. */
    assert_int_equal(r.baseline_runs, 1);
    assert_int_equal(r.fault_runs, 2);
    assert_int_equal(r.line_totals[coverage_find_line(&r.layout, c.file, 5)], 2 + 1 + 1);
    assert_int_equal(line_class(&r, c.file, 22), LINE_UNREACHED);
    finish(&c, &r);
}

/* A suite of two programs: program 1's fault run reaches put's leg and the helper report();
   program 2 calls report() in the suite's plain run (a parse error it reports, say), program 1
   alone never does. Compared with program 1's run alone, report() is an error leg of the
   failure; but a run without a fault executes it: it is kept (marked so), never deletable,
   while put's own leg and main's stay deletable. */
static void test_a_leg_another_program_runs_plainly(void **state)
{
    (void)state;
    struct campaign c = new_campaign(
        "1:1 3:1 4:1/0,1 5:0 6:0 8:1 9:1 10:1 11:1 13:1 14:1 15:1 17:1/0,1 18:0 19:0 21:1/0,1 "
        "22:0 23:1 24:1 25:1 27:1/0,1 28:0 29:1 30:1");
    database_exec(c.db, "INSERT INTO programs(id, exe, cwd, argv, environment, stdin_kind, top,"
                        " alone, alone_dir) VALUES (1, '/t/a', '/t', x'', x'', 'null', 0, 'yes',"
                        " '/t/alone-1');"
                        "INSERT INTO cov_runs(run, data_files, gcov_files, read_ms)"
                        " VALUES (-1, 1, 1, 0)");
    store_program_counts(c.db, -1, baseline_counts);
    add_owned_run(&c, 2, site_ids[0], 1, failed_counts);
    struct coverage_call calls[] = {{c.file, 3}, {c.file, 17}};
    struct coverage_site sites[] = {{.eligible = true, .call_count = 2, .calls = calls}};
    struct coverage_result r = analyse(&c, sites, 1);
    int deletable[] = {5, 6, 18, 19}, plain[] = {11, 13, 14};
    for (size_t i = 0; i < sizeof deletable / sizeof *deletable; i++) {
        assert_int_equal(line_class(&r, c.file, deletable[i]), LINE_DELETABLE);
        assert_false(line_item(&r, c.file, deletable[i])->by_plain);
    }
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        assert_int_equal(line_class(&r, c.file, plain[i]), LINE_KEPT);
        assert_true(line_item(&r, c.file, plain[i])->by_plain);
        assert_false(line_item(&r, c.file, plain[i])->by_io);
        assert_int_equal(line_item(&r, c.file, plain[i])->site_count, 1);
        assert_int_equal(line_item(&r, c.file, plain[i])->sites[0], 0);
    }
    assert_int_equal(branch_class(&r, c.file, 4, 0), LINE_DELETABLE);
    finish(&c, &r);
}

/* An allocation wrapper whose line decides before the call (`n ? n : 1`) and nothing after:
   the failure goes back to its caller, whose reaction (main's line 17) starts the leg. */
static void test_wrapper_passes_the_failure_up(void **state)
{
    (void)state;
    struct campaign c = new_campaign(
        "59:1 61:1/0,1 62:1 15:1 17:1/0,1 18:0 19:0 21:1/0,1 22:0 23:1 24:1");
    add_run(&c, 2, site_ids[0], NULL, "59:1 61:1/0,1 62:1 15:1 17:1/1,0 18:1 19:1 21:0/0,0 22:0 23:0 24:1");
    struct coverage_call calls[] = {{c.file, 61}, {c.file, 17}};
    struct coverage_site sites[] = {{.eligible = true, .call_count = 2, .calls = calls}};
    struct coverage_result r = analyse(&c, sites, 1);
    assert_int_equal(line_class(&r, c.file, 18), LINE_DELETABLE);
    assert_int_equal(line_class(&r, c.file, 19), LINE_DELETABLE);
    assert_int_equal(branch_class(&r, c.file, 17, 0), LINE_DELETABLE);
    assert_int_equal(line_class(&r, c.file, 62), LINE_ORDINARY);
    finish(&c, &r);
}

static void test_eligibility(void **state)
{
    (void)state;
    assert_true(site_nofail_eligible(false, KIND_ALLOC, 32768, 32768));
    assert_false(site_nofail_eligible(false, KIND_ALLOC, 32769, 32768));
    assert_true(site_nofail_eligible(true, KIND_ALLOC, 1 << 20, 32768)); /* LF_NOFAIL */
    assert_false(site_nofail_eligible(false, KIND_FAILPOINT, 0, 32768)); /* not an allocation */
    assert_true(site_nofail_eligible(true, KIND_FAILPOINT, 0, 32768));
    /* An I/O site is never exempted, however small its request, LF_NOFAIL flag or not. */
    assert_false(site_nofail_eligible(false, KIND_IO, 0, 32768));
    assert_false(site_nofail_eligible(true, KIND_IO, 0, 32768));
    assert_false(site_nofail_eligible(false, KIND_SYSCALL, 0, 32768));
}

/* Two data files' counts, as the gcov data reader gives them: both are stored, counts of a
   line seen in two data files add up, relative names are resolved against the compile
   directory, a branch taken is stored apart from one not taken, and each data file's lines are
   kept under it. */
static void test_stored_counts(void **state)
{
    (void)state;
    sqlite3 *db = database_open(":memory:", true);
    struct gcov_line a_lines[] = {{.line = 3, .count = 2, .branches = 2, .first_branch = 0},
                                  {.line = 4, .count = 0}};
    int64_t a_branches[] = {0, 2};
    struct gcov_function a_functions[] = {{"f", 1, 5}};
    struct gcov_file a = {.name = "a.c", .lines = a_lines, .line_count = 2,
                          .branch_counts = a_branches, .branch_count = 2,
                          .functions = a_functions, .function_count = 1};
    struct gcov_counts a_counts = {.files = &a, .file_count = 1};
    coverage_store_counts(db, 7, "/b/a.gcda", "/nonexistent/src", &a_counts);
    struct gcov_line main_lines[] = {{.line = 3, .count = 5}};
    struct gcov_file main_file = {.name = "/nonexistent/src/a.c", .lines = main_lines,
                                  .line_count = 1};
    struct gcov_counts main_counts = {.files = &main_file, .file_count = 1};
    coverage_store_counts(db, 7, "/b/main.gcda", "/x", &main_counts);
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT (SELECT count(*) FROM cov_files), (SELECT path FROM cov_files),"
            " (SELECT count(*) FROM cov_lines), (SELECT sum(count) FROM cov_line_hits"
            " WHERE line = 3), (SELECT count(*) FROM cov_line_hits), (SELECT count(*) FROM"
            " cov_branches), (SELECT group_concat(branch) FROM cov_branch_hits WHERE run = 7),"
            " (SELECT group_concat(path) FROM (SELECT path FROM cov_data ORDER BY path)),"
            " (SELECT count(*) FROM cov_run_data WHERE run = 7 AND source = run),"
            " (SELECT start_line || '-' || end_line FROM cov_functions)");
    assert_int_equal(sqlite3_step(statement), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(statement, 0), 1);
    assert_string_equal((const char *)sqlite3_column_text(statement, 1), "/nonexistent/src/a.c");
    assert_int_equal(sqlite3_column_int(statement, 2), 2);
    assert_int_equal(sqlite3_column_int(statement, 3), 7);
    assert_int_equal(sqlite3_column_int(statement, 4), 2); /* one row per data file */
    assert_int_equal(sqlite3_column_int(statement, 5), 2);
    assert_string_equal((const char *)sqlite3_column_text(statement, 6), "1");
    assert_string_equal((const char *)sqlite3_column_text(statement, 7), "/b/a.gcda,/b/main.gcda");
    assert_int_equal(sqlite3_column_int(statement, 8), 2);
    assert_string_equal((const char *)sqlite3_column_text(statement, 9), "1-5");
    sqlite3_finalize(statement);
    database_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leg_from_the_reaction_up_the_callers),
        cmocka_unit_test(test_runs_stored_the_shorter_way),
        cmocka_unit_test(test_corrupted_data_is_not_a_leg),
        cmocka_unit_test(test_baseline_ran_the_leg_through_its_own_failure),
        cmocka_unit_test(test_a_retry_adds_no_leg_lines),
        cmocka_unit_test(test_deletable_and_kept),
        cmocka_unit_test(test_untaken_reactions),
        cmocka_unit_test(test_data_file_shared_with_another_run),
        cmocka_unit_test(test_branches_before_the_call),
        cmocka_unit_test(test_io_keeps),
        cmocka_unit_test(test_read_failing_like_end_of_input),
        cmocka_unit_test(test_result_kept_for_later),
        cmocka_unit_test(test_run_alone_compares_with_its_program_alone),
        cmocka_unit_test(test_a_leg_another_program_runs_plainly),
        cmocka_unit_test(test_wrapper_passes_the_failure_up),
        cmocka_unit_test(test_eligibility),
        cmocka_unit_test(test_stored_counts),
    };
    return cmocka_run_group_tests(tests, write_source, remove_source);
}
