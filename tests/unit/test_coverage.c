/*
 * test_coverage.c — the rules of error-leg coverage (covanalysis.c) on small made-up campaigns:
 * what counts as an error leg, who reached it, when the NOFAIL policy makes it deletable, and
 * the eligibility rule itself (policy.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "coverage.h"
#include "database.h"
#include "policy.h"

#include <string.h>

/* Items 0..5. Sites: 0 eligible (small), 1 not eligible (big), 2 eligible. */
static const bool eligible[] = {true, false, true};

static void analyse(const struct coverage_run *runs, size_t count, struct coverage_item *out)
{
    struct coverage_input input = {.item_count = 6, .site_count = 3, .site_eligible = eligible,
                                   .run_count = count, .runs = runs};
    coverage_analyse(&input, out);
}

static void test_classes_and_attribution(void **state)
{
    (void)state;
    static const size_t baseline_hits[] = {0, 1}, run0_hits[] = {0, 2, 3}, run1_hits[] = {1, 3, 4};
    static const int chain0[] = {0}, chain1[] = {1};
    const struct coverage_run runs[] = {
        {.baseline = true, .site = -1, .hit_count = 2, .hits = baseline_hits},
        {.site = 0, .chain_count = 1, .chain = chain0, .hit_count = 3, .hits = run0_hits},
        {.site = 1, .chain_count = 1, .chain = chain1, .hit_count = 3, .hits = run1_hits},
    };
    struct coverage_item out[6];
    analyse(runs, 3, out);
    assert_int_equal(out[0].class, LINE_BASELINE); /* in the baseline: never an error leg */
    assert_int_equal(out[1].class, LINE_BASELINE);
    assert_int_equal(out[2].class, LINE_DELETABLE); /* only through eligible site 0 */
    assert_int_equal(out[3].class, LINE_KEPT);      /* also through site 1 */
    assert_int_equal(out[4].class, LINE_KEPT);
    assert_int_equal(out[5].class, LINE_UNTESTED);
    assert_int_equal(out[2].site_count, 1);
    assert_int_equal(out[2].sites[0], 0);
    assert_int_equal(out[3].site_count, 2); /* both sites that reached it, sorted */
    assert_int_equal(out[3].sites[0], 0);
    assert_int_equal(out[3].sites[1], 1);
    assert_int_equal(out[0].site_count, 0);
    coverage_items_free(out, 6);
}

/* A chain run failed an eligible site before the big one: under the policy the first failure
   never happens, so what the chain reached is deletable even though its last site is not
   eligible. A run whose fault never fired (site -1) is no error leg at all. */
static void test_chains_and_unfired_runs(void **state)
{
    (void)state;
    static const size_t hits[] = {2, 3};
    static const int chain[] = {2, 1};
    const struct coverage_run runs[] = {
        {.baseline = true, .site = -1},
        {.site = 1, .chain_count = 2, .chain = chain, .hit_count = 1, .hits = hits},
        {.site = -1, .hit_count = 1, .hits = hits + 1},
    };
    struct coverage_item out[6];
    analyse(runs, 3, out);
    assert_int_equal(out[2].class, LINE_DELETABLE);
    assert_int_equal(out[2].sites[0], 1); /* credited to the run's faulted site */
    assert_int_equal(out[3].class, LINE_BASELINE);
    coverage_items_free(out, 6);
}

/* --faults io: site 3 is an I/O call, never eligible. An item reached by a small allocation
   and by the I/O failure is kept, and marked as kept because of I/O; one reached only through
   the small allocation stays deletable; one reached by the I/O failure only after an eligible
   failure in its chain is deletable too (under the policy that run never happens). */
static void test_io_keeps(void **state)
{
    (void)state;
    static const bool eligible4[] = {true, false, true, false};
    static const bool io4[] = {false, false, false, true};
    static const size_t small_hits[] = {1, 2}, io_hits[] = {2, 3}, after_small[] = {4};
    static const int chain_small[] = {0}, chain_io[] = {3}, chain_both[] = {0, 3};
    const struct coverage_run runs[] = {
        {.baseline = true, .site = -1},
        {.site = 0, .chain_count = 1, .chain = chain_small, .hit_count = 2, .hits = small_hits},
        {.site = 3, .chain_count = 1, .chain = chain_io, .hit_count = 2, .hits = io_hits},
        {.site = 3, .chain_count = 2, .chain = chain_both, .hit_count = 1, .hits = after_small},
    };
    struct coverage_input input = {.item_count = 6, .site_count = 4, .site_eligible = eligible4,
                                   .site_io = io4, .run_count = 4, .runs = runs};
    struct coverage_item out[6];
    coverage_analyse(&input, out);
    assert_int_equal(out[1].class, LINE_DELETABLE);
    assert_false(out[1].by_io);
    assert_int_equal(out[2].class, LINE_KEPT);
    assert_true(out[2].by_io);
    assert_int_equal(out[3].class, LINE_KEPT);
    assert_true(out[3].by_io);
    assert_int_equal(out[4].class, LINE_DELETABLE);
    assert_false(out[4].by_io);
    coverage_items_free(out, 6);
}

static void test_eligibility(void **state)
{
    (void)state;
    assert_true(site_nofail_eligible(false, "alloc", 32768, 32768));
    assert_false(site_nofail_eligible(false, "alloc", 32769, 32768));
    assert_true(site_nofail_eligible(true, "alloc", 1 << 20, 32768)); /* LF_NOFAIL */
    assert_false(site_nofail_eligible(false, "failpoint", 0, 32768)); /* not an allocation */
    assert_true(site_nofail_eligible(true, "failpoint", 0, 32768));
    /* An I/O site is never exempted, however small its request, LF_NOFAIL flag or not. */
    assert_false(site_nofail_eligible(false, "io", 0, 32768));
    assert_false(site_nofail_eligible(true, "io", 0, 32768));
    assert_false(site_nofail_eligible(false, "syscall", 0, 32768));
}

/* gcov --stdout prints one JSON document per data file: both are read, counts of a line seen
   in two documents add up, relative names are resolved against the compile directory, and a
   branch taken is stored apart from one not taken. Garbage is refused, not half-read. */
static void test_gcov_json(void **state)
{
    (void)state;
    sqlite3 *db = database_open(":memory:", true);
    const char *text =
        "{\"files\": [{\"file\": \"a.c\", \"lines\": [{\"line_number\": 3, \"count\": 2,"
        " \"branches\": [{\"count\": 0}, {\"count\": 2}]}, {\"line_number\": 4, \"count\": 0,"
        " \"branches\": []}]}], \"current_working_directory\": \"/nonexistent/src\"}\n"
        "{\"files\": [{\"file\": \"/nonexistent/src/a.c\", \"lines\": [{\"line_number\": 3,"
        " \"count\": 5, \"branches\": []}]}], \"current_working_directory\": \"/x\"}\n";
    assert_int_equal(coverage_store_gcov_json(db, 7, text, strlen(text)), 2);
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT (SELECT count(*) FROM cov_files), (SELECT path FROM cov_files),"
            " (SELECT count(*) FROM cov_lines), (SELECT count FROM cov_line_hits WHERE line = 3),"
            " (SELECT count(*) FROM cov_line_hits), (SELECT count(*) FROM cov_branches),"
            " (SELECT group_concat(branch) FROM cov_branch_hits WHERE run = 7)");
    assert_int_equal(sqlite3_step(statement), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(statement, 0), 1);
    assert_string_equal((const char *)sqlite3_column_text(statement, 1), "/nonexistent/src/a.c");
    assert_int_equal(sqlite3_column_int(statement, 2), 2);
    assert_int_equal(sqlite3_column_int(statement, 3), 7);
    assert_int_equal(sqlite3_column_int(statement, 4), 1);
    assert_int_equal(sqlite3_column_int(statement, 5), 2);
    assert_string_equal((const char *)sqlite3_column_text(statement, 6), "1");
    sqlite3_finalize(statement);
    warnings_quiet = true;
    assert_int_equal(coverage_store_gcov_json(db, 8, "{\"files\": [", 12), -1);
    database_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes_and_attribution),
        cmocka_unit_test(test_chains_and_unfired_runs),
        cmocka_unit_test(test_io_keeps),
        cmocka_unit_test(test_eligibility),
        cmocka_unit_test(test_gcov_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
