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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_stream),
        cmocka_unit_test(test_garbled_records_are_skipped),
        cmocka_unit_test(test_truncated_file),
        cmocka_unit_test(test_random_garbage),
    };
    return cmocka_run_group_tests_name("ingest", tests, NULL, NULL);
}
