/*
 * test_kernelcov.c — the kernel error legs of kernelcov.c on a small stand-in for vmlinux: this
 * test program itself (built without PIE, with -g, so its addresses are its ELF's). A fired run
 * reaches a line its site's unfailed run did not: that line is its leg, the shared one is not;
 * a site without an unfailed run gets none; the leg is "only too small to fail" while the run's
 * allocation was, and stops being so once a
 * run whose allocation can fail reaches it too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/database.h"
#include "kernel/buildid.h"
#include "kernel/kernelcov.h"
#include "kernel/kmemleak.h"
#include "report/parts.h"

/* Two functions on lines of their own: the "kernel" code the runs reach. */
__attribute__((noinline)) int shared_path(int x)
{
    return x * 3 + 1;
}

__attribute__((noinline)) int error_path(int x)
{
    return x - 7;
}

/* The line of the function's opening brace, where GCC's line table puts its first
   instruction. */
static int line_of(const char *function_name)
{
    FILE *file = fopen(__FILE__, "r");
    char text[256], wanted[128];
    snprintf(wanted, sizeof wanted, "__attribute__((noinline)) int %s(", function_name);
    int line = 0, found = 0;
    while (file && fgets(text, sizeof text, file)) {
        line++;
        if (!strncmp(text, wanted, strlen(wanted)))
            found = line + 1;
    }
    if (file)
        fclose(file);
    return found;
}

static void add_run(sqlite3 *db, int run, const char *site, int fired, const uint64_t *pcs,
                    size_t count, int too_small)
{
    char *sql = sqlite3_mprintf(
        "INSERT INTO runs(id, kind, site, state) VALUES (%d, 'fault', %Q, 'done');"
        "INSERT INTO kernel_faults(run, nth, fired, call_failed, errno) VALUES (%d, %d, %d, %d, 12);",
        run, site, run, run, fired, fired);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_free(sql);
    if (fired && too_small >= 0) {
        sql = sqlite3_mprintf("INSERT INTO kernel_allocs(run, kind, call_site, bytes_req,"
                              " bytes_alloc, gfp, via_page, too_small) VALUES"
                              " (%d, 'kmalloc', 'x+0x1/0x2', 64, 64, 3264, 0, %d)",
                              run, too_small);
        assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_free(sql);
    }
    sqlite3_stmt *statement;
    sqlite3_prepare_v2(db, "INSERT INTO kernel_cov(run, pcs, count) VALUES (?, ?, ?)", -1,
                       &statement, NULL);
    sqlite3_bind_int(statement, 1, run);
    sqlite3_bind_blob(statement, 2, pcs, (int)(count * sizeof *pcs), SQLITE_STATIC);
    sqlite3_bind_int(statement, 3, (int)count);
    assert_int_equal(sqlite3_step(statement), SQLITE_DONE);
    sqlite3_finalize(statement);
}

static int count_legs(sqlite3 *db, int run, int line)
{
    char *sql = sqlite3_mprintf("SELECT COUNT(*) FROM kernel_legs WHERE run = %d AND line = %d"
                                " AND file LIKE '%%test_kernelcov.c'", run, line);
    sqlite3_stmt *statement;
    sqlite3_prepare_v2(db, sql, -1, &statement, NULL);
    sqlite3_free(sql);
    int count = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int(statement, 0) : -1;
    sqlite3_finalize(statement);
    return count;
}

/* A new campaign database at a fresh name made from `path` (a mkstemp template). */
static sqlite3 *scratch_database(char *path)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    return database_open(path, true);
}

static void test_legs(void **state)
{
    (void)state;
    char path[] = "/tmp/test_kernelcov-XXXXXX";
    sqlite3 *db = scratch_database(path);
    /* A KCOV PC is a return address: the instruction after the call, looked up minus one. The
       first instruction of each function stands for its opening brace's line. */
    uint64_t shared = (uint64_t)(uintptr_t)&shared_path + 1, error = (uint64_t)(uintptr_t)&error_path + 1;
    uint64_t base[] = {shared}, fault[] = {shared, error};
    if (error < shared) {
        fault[0] = error;
        fault[1] = shared;
    }
    add_run(db, 1, "site-a", 1, fault, 2, 1); /* fired, too small to fail */
    add_run(db, 2, "site-a", 0, base, 1, -1); /* the same call unfailed */
    add_run(db, 3, "site-b", 1, fault, 2, 0); /* another site, no unfailed run: no legs */
    assert_true(kernelcov_present(db));
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(length > 0);
    self[length] = '\0';
    assert_int_equal(kernelcov_analyse(db, self), 2); /* site-b's run done, without legs */
    int error_line = line_of("error_path"), shared_line = line_of("shared_path");
    assert_true(error_line > 0 && shared_line > 0);
    assert_int_equal(count_legs(db, 1, error_line), 1);
    assert_int_equal(count_legs(db, 1, shared_line), 0);
    assert_int_equal(count_legs(db, 3, error_line), 0);
    json_t *files = kernelcov_files(db);
    assert_int_equal(json_array_size(files), 1);
    json_t *file = json_array_get(files, 0);
    assert_int_equal(json_integer_value(json_object_get(file, "legs")), 1);
    assert_int_equal(json_integer_value(json_object_get(file, "only_too_small")), 1);
    json_t *leg = json_array_get(json_object_get(file, "lines"), 0);
    assert_string_equal(json_string_value(json_object_get(leg, "function")), "error_path");
    json_decref(files);
    /* Analysed runs are not analysed again (site-b's too: it had no unfailed run). */
    assert_int_equal(kernelcov_analyse(db, self), 0);
    /* A site with an unfailed run: its fired run's allocation can fail, so the line is no
       longer reached only through too small ones. */
    add_run(db, 4, "site-c", 0, base, 1, -1);
    add_run(db, 6, "site-c", 1, fault, 2, 0);
    assert_int_equal(kernelcov_analyse(db, self), 1);
    assert_int_equal(count_legs(db, 6, error_line), 1);
    files = kernelcov_files(db);
    file = json_array_get(files, 0);
    assert_int_equal(json_integer_value(json_object_get(file, "legs")), 1);
    assert_int_equal(json_integer_value(json_object_get(file, "only_too_small")), 0);
    json_decref(files);
    /* Not an ELF file: -1, nothing analysed. */
    add_run(db, 5, "site-c", 1, fault, 2, 1);
    assert_int_equal(kernelcov_analyse(db, "/dev/null"), -1);
    /* A campaign that ran on another kernel build than this "vmlinux": -1, nothing analysed;
       on this one's build (its own build-id), analysed. */
    assert_int_equal(sqlite3_exec(db, "INSERT INTO campaign(id, command, cwd, top_exe, depth,"
                                      " timeout_ms, exe_globs, module_globs, occurrence,"
                                      " persistent, nth, nth_sweep, seed, max_runs, shard, shards,"
                                      " started_ms, kernel_build_id)"
                                      " VALUES (1, '[]', '/', '/', 0, 0, '', '', 0, 0, 0, 0, 0, 0,"
                                      " 0, 0, 0, '00112233')",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(kernelcov_analyse(db, self), -1);
    assert_int_equal(count_legs(db, 5, error_line), 0);
    char *own = elf_file_build_id(self);
    assert_non_null(own);
    char *sql = sqlite3_mprintf("UPDATE campaign SET kernel_build_id = %Q", own);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_free(sql);
    free(own);
    assert_int_equal(kernelcov_analyse(db, self), 1);
    assert_int_equal(count_legs(db, 5, error_line), 1);
    database_close(db);
    unlink(path);
}

/* The census per subsystem: each leg line counted once under its kernel folder, split by
   whether only too-small-to-fail failures reached it and whether a failure that can happen did. */
static void test_census(void **state)
{
    (void)state;
    char path[] = "/tmp/test_kernelcov-XXXXXX";
    sqlite3 *db = scratch_database(path);
    json_t *none = kernel_census(db);
    assert_true(json_is_null(none)); /* no KCOV analysed */
    uint64_t pc = 0x1000;
    add_run(db, 1, "a", 1, &pc, 1, 1);  /* too small to fail */
    add_run(db, 2, "a", 1, &pc, 1, 0);  /* can fail */
    add_run(db, 3, "b", 1, &pc, 1, -1); /* allocation not named */
    assert_int_equal(sqlite3_exec(db,
        "INSERT INTO kernel_cov_done VALUES (1, 1), (2, 1), (3, 1);"
        "INSERT INTO kernel_legs(file, line, run) VALUES"
        " ('/k/src/fs/pipe.c', 10, 1), ('/k/src/fs/pipe.c', 10, 2),"  /* both: can happen */
        " ('/k/src/fs/pipe.c', 11, 1),"                               /* only too small */
        " ('/k/src/fs/proc/base.c', 7, 3),"                           /* unnamed: neither */
        " ('/k/src/net/ipv4/tcp.c', 5, 1), ('/k/src/net/ipv4/tcp.c', 6, 1),"
        " ('/k/src/net/core/sock.c', 9, 1),"
        " ('/k/src/arch/x86/kernel/process.c', 3, 2);",
        NULL, NULL, NULL), SQLITE_OK);
    json_t *rows = kernel_census(db);
    char text[512] = "";
    size_t index;
    json_t *row;
    json_array_foreach(rows, index, row)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s %lld %lld %lld; ",
                 json_string_value(json_object_get(row, "subsystem")),
                 (long long)json_integer_value(json_object_get(row, "error_leg_lines")),
                 (long long)json_integer_value(json_object_get(row, "only_too_small")),
                 (long long)json_integer_value(json_object_get(row, "can_fail")));
    assert_string_equal(text, "fs/ 3 1 1; net/ 3 3 0; arch/x86/ 1 0 1; ");
    json_decref(rows);
    database_close(db);
    unlink(path);
}

/* Where a recorded path enters the kernel tree: its first top folder, never the /usr of a tree
   kept in /usr/src; none for a path outside any tree. */
static void test_tree_path(void **state)
{
    (void)state;
    assert_string_equal(kernel_tree_path("/var/cache/k/src/fs/pipe.c"), "fs/pipe.c");
    assert_string_equal(kernel_tree_path("/usr/src/linux-source-6.1/mm/slub.c"), "mm/slub.c");
    assert_string_equal(kernel_tree_path("/b/arch/x86/include/asm/uaccess.h"),
                        "arch/x86/include/asm/uaccess.h");
    assert_string_equal(kernel_tree_path("include/linux/slab.h"), "include/linux/slab.h");
    assert_null(kernel_tree_path("/home/me/fs"));      /* a file named like a folder */
    assert_null(kernel_tree_path("/tmp/build/x.c"));
    assert_null(kernel_tree_path(NULL));
}

/* kmemleak's report: one object per block, each with the allocating thread; a thread id is a
   run's only when exactly one fault run's armed call was made by it. */
static void count_leak(const struct kmemleak_leak *leak, void *data)
{
    char *seen = data;
    char line[64];
    snprintf(line, sizeof line, "%u:%.*s;", leak->pid, (int)strcspn(leak->text, "\n"), leak->text);
    strncat(seen, line, 511 - strlen(seen));
}

static void test_kmemleak(void **state)
{
    (void)state;
    const char *report =
        "unreferenced object 0xffff888003a1b000 (size 64):\n"
        "  comm \"mq_open_tests\", pid 123, jiffies 4294893456 (age 12.345s)\n"
        "  hex dump (first 32 bytes):\n"
        "    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................\n"
        "  backtrace:\n"
        "    [<ffffffff81234567>] kmalloc_trace+0x26/0x60\n"
        "    [<ffffffff81234568>] mqueue_alloc_inode+0x12/0x40\n"
        "unreferenced object 0xffff888003a1c000 (size 32):\n"
        "  comm \"sh\", pid 7, jiffies 4294893457 (age 12.300s)\n"
        "  backtrace:\n"
        "    [<ffffffff81234569>] kstrdup+0x2/0x40\n";
    char seen[512] = "";
    assert_int_equal(kmemleak_parse(report, count_leak, seen), 2);
    assert_string_equal(seen, "123:unreferenced object 0xffff888003a1b000 (size 64):;"
                              "7:unreferenced object 0xffff888003a1c000 (size 32):;");
    assert_int_equal(kmemleak_parse("", count_leak, seen), 0);
    char path[] = "/tmp/test_kernelcov-XXXXXX";
    sqlite3 *db = scratch_database(path);
    assert_int_equal(sqlite3_exec(db,
        "INSERT INTO runs(id, kind, site, state) VALUES (1, 'baseline', NULL, 'done'),"
        " (2, 'fault', 'aaaaaaaaaaaaaaaa', 'done'), (3, 'fault', 'bbbbbbbbbbbbbbbb', 'done'),"
        " (4, 'fault', 'cccccccccccccccc', 'done');"
        "INSERT INTO kernel_faults(run, nth, fired, call_failed, errno, pid) VALUES"
        " (2, 1, 1, 1, 12, 123), (3, 1, 1, 1, 12, 200), (4, 2, 1, 1, 12, 200);",
        NULL, NULL, NULL), SQLITE_OK);
    char site[17] = "";
    assert_int_equal(kmemleak_run_of(db, 123, site), 2);
    assert_string_equal(site, "aaaaaaaaaaaaaaaa");
    assert_int_equal(kmemleak_run_of(db, 200, site), 0); /* two runs' thread: no one's */
    assert_int_equal(kmemleak_run_of(db, 7, site), 0);   /* no armed call's */
    database_close(db);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legs),
        cmocka_unit_test(test_census),
        cmocka_unit_test(test_tree_path),
        cmocka_unit_test(test_kmemleak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
