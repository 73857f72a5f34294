/*
 * test_ingest.c — reading record files that a crashing or hostile target garbled: every bad
 * record is skipped and counted, the good ones still count, nothing crashes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ingest.h"

static struct record make(uint16_t type, uint32_t pid)
{
    struct record r;
    memset(&r, 0, sizeof r);
    r.magic = RECORD_MAGIC;
    r.type = type;
    r.pid = pid;
    return r;
}

static void seal(struct record *r)
{
    r->checksum = record_checksum(r);
}

static struct record start_record(uint32_t pid, const char *exe)
{
    struct record r = make(RECORD_START, pid);
    r.flags = RECORD_FLAG_IN_SCOPE;
    r.value = 1;
    strcpy(r.body.text.path, exe);
    seal(&r);
    return r;
}

static struct record site_record(uint32_t pid, uint64_t signature, uint64_t size)
{
    struct record r = make(RECORD_SITE, pid);
    r.function = FUNCTION_CALLOC;
    r.signature = signature;
    r.value = size;
    r.frame_count = 1;
    r.body.frames[0].module = 7;
    r.body.frames[0].offset = 0x42;
    seal(&r);
    return r;
}

static void test_valid_stream(void **state)
{
    (void)state;
    struct record records[5] = {start_record(10, "/bin/x"), site_record(10, 0xabc, 16),
                                site_record(10, 0xabc, 64), make(RECORD_EXIT, 10),
                                make(RECORD_LIVE, 10)};
    records[3].value = 3;
    records[3].value2 = EXIT_BY_EXIT;
    seal(&records[3]);
    records[4].signature = 0xabc;
    records[4].value = 2;
    records[4].value2 = 80;
    seal(&records[4]);
    struct run_records out = {0};
    ingest_bytes((const unsigned char *)records, sizeof records, "test", &out);
    assert_int_equal(out.problems, 0);
    assert_int_equal(out.processes.count, 1);
    assert_string_equal(out.processes.items[0].exe, "/bin/x");
    assert_true(out.processes.items[0].exited);
    assert_int_equal(out.processes.items[0].exit_status, 3);
    assert_int_equal(out.sites.count, 1);
    assert_int_equal(out.sites.items[0].max_size, 64);
    assert_string_equal(function_name(out.sites.items[0].function), "calloc");
    assert_int_equal(out.live.count, 1);
    assert_int_equal(out.live.items[0].blocks, 2);
    run_records_free(&out);
}

/* The policy contract: a SITE record with RECORD_FLAG_NOFAIL marks its site NOFAIL (in any of
   its records: the flag travels with the request), and a NAME record names a failpoint site, its
   text cut at the record's end when the target forgot the NUL. */
static void test_nofail_flag_and_failpoint_names(void **state)
{
    (void)state;
    struct record records[6] = {start_record(10, "/bin/x"), site_record(10, 0xabc, 16),
                                site_record(10, 0xabc, 64), site_record(10, 0xdef, 8),
                                make(RECORD_NAME, 10), make(RECORD_NAME, 10)};
    records[2].flags = RECORD_FLAG_NOFAIL;
    seal(&records[2]);
    records[3].function = FUNCTION_FAILPOINT;
    records[3].value = 0;
    seal(&records[3]);
    records[4].signature = 0xdef;
    strcpy(records[4].body.text.path, "wal-fsync");
    seal(&records[4]);
    records[5].signature = 0x123;
    memset(records[5].body.text.path, 'n', sizeof records[5].body.text.path);
    seal(&records[5]);
    struct run_records out = {0};
    ingest_bytes((const unsigned char *)records, sizeof records, "t", &out);
    assert_int_equal(out.sites.count, 2);
    assert_true(out.sites.items[0].nofail);
    assert_int_equal(out.sites.items[0].max_size, 64);
    assert_false(out.sites.items[1].nofail);
    assert_int_equal(out.sites.items[1].function, FUNCTION_FAILPOINT);
    assert_true(out.names.count >= 1 && out.names.count + (size_t)out.problems == 2);
    assert_int_equal(out.names.items[0].signature, 0xdef);
    assert_string_equal(out.names.items[0].name, "wal-fsync");
    if (out.names.count == 2) /* unless record_check refuses unterminated names */
        assert_int_equal(strlen(out.names.items[1].name), sizeof records[5].body.text.path);
    run_records_free(&out);
}

static void test_garbled_records_are_skipped(void **state)
{
    (void)state;
    struct record records[4] = {start_record(10, "/bin/x"), site_record(10, 1, 8),
                                site_record(10, 2, 8), site_record(10, 3, 8)};
    records[1].value = 999; /* changed after sealing: checksum mismatch */
    records[2].magic = 0xdeadbeef;
    struct run_records out = {0};
    ingest_bytes((const unsigned char *)records, sizeof records, "test", &out);
    assert_int_equal(out.problems, 2);
    assert_int_equal(out.sites.count, 1);
    assert_int_equal(out.sites.items[0].signature, 3);
    run_records_free(&out);
}

static void test_truncated_file(void **state)
{
    (void)state;
    struct record records[2] = {start_record(10, "/bin/x"), site_record(10, 5, 8)};
    struct run_records out = {0};
    ingest_bytes((const unsigned char *)records, sizeof records - 100, "test", &out);
    assert_int_equal(out.problems, 1); /* the cut record */
    assert_int_equal(out.processes.count, 1);
    assert_int_equal(out.sites.count, 0);
    run_records_free(&out);
}

/* Random bytes, and random bit flips of a valid stream, must never crash or be believed. */
static void test_random_garbage(void **state)
{
    (void)state;
    srand(12345);
    unsigned char *noise = malloc(RECORD_SIZE * 64);
    for (int round = 0; round < 200; round++) {
        size_t length = (size_t)rand() % (RECORD_SIZE * 64);
        for (size_t i = 0; i < length; i++)
            noise[i] = (unsigned char)rand();
        struct run_records out = {0};
        ingest_bytes(noise, length, "noise", &out);
        assert_int_equal(out.sites.count, 0);
        assert_int_equal(out.processes.count, 0);
        run_records_free(&out);
    }
    struct record valid = site_record(10, 9, 8);
    for (int bit = 0; bit < RECORD_SIZE * 8; bit += 7) {
        struct record flipped = valid;
        ((unsigned char *)&flipped)[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        struct run_records out = {0};
        ingest_bytes((const unsigned char *)&flipped, sizeof flipped, "flip", &out);
        assert_int_equal(out.problems, 1);
        assert_int_equal(out.sites.count, 0);
        run_records_free(&out);
    }
    free(noise);
}

/* A trapped system call is named by its number (x86_64's numbering). */
static void test_system_call_names(void **state)
{
    (void)state;
    assert_string_equal(function_name(FUNCTION_SYSCALL_FIRST + 0), "read");
    assert_string_equal(function_name(FUNCTION_SYSCALL_FIRST + 257), "openat");
    assert_string_equal(function_name(FUNCTION_SYSCALL_FIRST + 1000), "syscall"); /* no such call */
    assert_string_equal(function_name(FUNCTION_SYS_PIPE), "pipe"); /* the wrappers' own */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_stream),
        cmocka_unit_test(test_system_call_names),
        cmocka_unit_test(test_nofail_flag_and_failpoint_names),
        cmocka_unit_test(test_garbled_records_are_skipped),
        cmocka_unit_test(test_truncated_file),
        cmocka_unit_test(test_random_garbage),
    };
    return cmocka_run_group_tests_name("ingest", tests, NULL, NULL);
}
