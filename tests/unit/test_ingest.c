/*
 * test_ingest.c — reading record files that a crashing or hostile target garbled: every bad
 * record is skipped and counted, the good ones still count, nothing crashes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "store/ingest.h"

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

static struct record unpreloaded_record(uint32_t pid, const char *program, uint64_t attempt,
                                        uint32_t reason, bool failed)
{
    struct record r = make(RECORD_UNPRELOADED, pid);
    r.signature = attempt;
    r.value = reason;
    r.flags = failed ? RECORD_FLAG_EXEC_FAILED : 0;
    strcpy(r.body.text.path, program);
    seal(&r);
    return r;
}

/* A failed exec takes back its own record: the same attempt of the same image, never the same
   number in the image that an exec before it started (pid 10 runs /bin/sh, then /bin/x). */
static void test_unpreloaded_and_failed_execs(void **state)
{
    (void)state;
    struct record first[4] = {start_record(10, "/bin/sh"),
                              unpreloaded_record(10, "/bin/a", 0, UNPRELOADED_CLEARED, false),
                              unpreloaded_record(10, "/bin/b", 1, UNPRELOADED_SETUID, false),
                              unpreloaded_record(10, "/bin/b", 1, UNPRELOADED_SETUID, true)};
    struct record second[2] = {start_record(10, "/bin/x"),
                               unpreloaded_record(10, "/bin/a", 0, UNPRELOADED_CLEARED, true)};
    struct run_records out = {0};
    ingest_bytes((const unsigned char *)first, sizeof first, "first", &out);
    ingest_bytes((const unsigned char *)second, sizeof second, "second", &out);
    assert_int_equal(out.problems, 0);
    assert_int_equal(out.unpreloaded.count, 2);
    assert_string_equal(out.unpreloaded.items[0].program, "/bin/a");
    assert_false(out.unpreloaded.items[0].failed);
    assert_string_equal(unpreloaded_reason_name(out.unpreloaded.items[0].reason), "cleared");
    assert_true(out.unpreloaded.items[1].failed);
    assert_string_equal(unpreloaded_reason_name(out.unpreloaded.items[1].reason), "setuid");
    run_records_free(&out);
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

/* LIVE_SET records carry several sites each; with LIVE records and several processes, each
   site's counts are summed into one entry. A LIVE_SET whose frames are not whole triples is
   refused. */
static void test_live_sets_are_summed_per_site(void **state)
{
    (void)state;
    struct record records[5] = {start_record(10, "/bin/x"), make(RECORD_LIVE_SET, 10),
                                start_record(11, "/bin/y"), make(RECORD_LIVE, 11),
                                make(RECORD_LIVE_SET, 11)};
    uint64_t sites[3][3] = {{0x30, 4, 400}, {0x10, 1, 8}, {0x20, 2, 64}};
    for (int i = 0; i < 3; i++) {
        records[1].body.frames[3 * i] = (struct record_frame){7, 0x100 + (uint64_t)i};
        records[1].body.frames[3 * i + 1] = (struct record_frame){sites[i][0], sites[i][1]};
        records[1].body.frames[3 * i + 2] = (struct record_frame){sites[i][2], 0};
    }
    records[1].frame_count = 9;
    seal(&records[1]);
    records[3].signature = 0x20;
    records[3].value = 5;
    records[3].value2 = 50;
    records[3].frame_count = 1;
    records[3].body.frames[0] = (struct record_frame){7, 0x102};
    seal(&records[3]);
    records[4].frame_count = 4; /* not whole triples */
    seal(&records[4]);
    struct run_records out = {0};
    ingest_bytes((const unsigned char *)records, sizeof records, "t", &out);
    assert_int_equal(out.problems, 1);
    assert_int_equal(out.live.count, 3);
    uint64_t expected[3][4] = {{0x10, 1, 8, 0x101}, {0x20, 7, 114, 0x102}, {0x30, 4, 400, 0x100}};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(out.live.items[i].signature, expected[i][0]);
        assert_int_equal(out.live.items[i].blocks, expected[i][1]);
        assert_int_equal(out.live.items[i].bytes, expected[i][2]);
        assert_int_equal(out.live.items[i].top.offset, expected[i][3]);
    }
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

/* An I/O site (--faults io) and its fault: the kind is told by the function, the fault carries
   the errno of the table (fwrite fails with ENOSPC), and no size. */
static void test_io_fault(void **state)
{
    (void)state;
    struct record records[3] = {start_record(10, "/bin/x"), site_record(10, 0xabc, 0),
                                make(RECORD_FAULT, 10)};
    records[1].function = FUNCTION_IO_FWRITE;
    seal(&records[1]);
    records[2] = records[1];
    records[2].type = RECORD_FAULT;
    records[2].sequence = 2;
    seal(&records[2]);
    struct run_records out = {0};
    ingest_bytes((const unsigned char *)records, sizeof records, "t", &out);
    assert_int_equal(out.problems, 0);
    assert_int_equal(out.sites.count, 1);
    assert_string_equal(function_name(out.sites.items[0].function), "fwrite");
    assert_string_equal(function_kind_name(out.sites.items[0].function), "io");
    assert_int_equal(out.faults.count, 1);
    assert_false(out.faults.items[0].kernel);
    assert_true(out.faults.items[0].fired);
    assert_true(out.faults.items[0].call_failed);
    assert_int_equal(out.faults.items[0].error, ENOSPC);
    assert_int_equal(function_io_errno_by_name("fopen"), EMFILE);
    assert_int_equal(function_io_errno_by_name("read"), EIO);
    assert_int_equal(function_io_errno_by_name("malloc"), 0);
    assert_string_equal(function_kind_name(FUNCTION_MALLOC), "alloc");
    assert_string_equal(function_kind_name(FUNCTION_FAILPOINT), "failpoint");
    assert_string_equal(function_kind_name(FUNCTION_SYS_READ), "syscall");
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

/* An invocation file as the preload writes it (runtime.c, write_invocation). */
static size_t invocation_section_text(char *out, const char *name, const char *bytes, size_t length)
{
    int header = sprintf(out, "%s %016zx\n", name, length);
    memcpy(out + header, bytes, length);
    out[header + (int)length] = '\n';
    return (size_t)header + length + 1;
}

static size_t sample_invocation(char *out, const char *stdin_kind, const char *stdin_path)
{
    size_t used = (size_t)sprintf(out, "libfail-invocation 1\n");
    used += invocation_section_text(out + used, "exe", "/opt/t/test_x", 13);
    used += invocation_section_text(out + used, "cwd", "/opt/t", 6);
    used += invocation_section_text(out + used, "argv", "./test_x\0-v\0", 12);
    used += invocation_section_text(out + used, "environ", "A=1\0B=x y\0", 10);
    used += invocation_section_text(out + used, "stdin", stdin_kind, strlen(stdin_kind));
    used += invocation_section_text(out + used, "stdin-path", stdin_path, strlen(stdin_path));
    return used;
}

static void test_invocation(void **state)
{
    (void)state;
    char text[1024];
    size_t length = sample_invocation(text, "file", "/opt/t/input.txt");
    struct ingest_invocation parsed;
    assert_true(invocation_parse(text, length, &parsed));
    assert_string_equal(parsed.exe, "/opt/t/test_x");
    assert_string_equal(parsed.cwd, "/opt/t");
    assert_int_equal(parsed.argv_length, 12);
    assert_memory_equal(parsed.argv, "./test_x\0-v\0", 12);
    assert_int_equal(parsed.environment_length, 10);
    assert_string_equal(parsed.environment + 4, "B=x y");
    assert_string_equal(parsed.stdin_kind, "file");
    assert_string_equal(parsed.stdin_path, "/opt/t/input.txt");
    invocation_free(&parsed);

    /* Every truncation, and a damaged length, is refused without a crash. */
    for (size_t cut = 0; cut < length; cut++)
        assert_false(invocation_parse(text, cut, &parsed));
    char damaged[1024];
    memcpy(damaged, text, length);
    damaged[strlen("libfail-invocation 1\nexe ") + 15] = 'f';
    assert_false(invocation_parse(damaged, length, &parsed));
    /* A NUL inside a one-string section (exe) is refused. */
    memcpy(damaged, text, length);
    damaged[strlen("libfail-invocation 1\nexe 0000000000000000\n") + 3] = '\0';
    assert_false(invocation_parse(damaged, length, &parsed));
}

/* A trapped system call is named by its number (x86_64's numbering). */
static void test_system_call_names(void **state)
{
    (void)state;
    assert_string_equal(function_name(FUNCTION_SYSCALL_FIRST + 0), "read");
    assert_string_equal(function_name(FUNCTION_SYSCALL_FIRST + 257), "openat");
    assert_string_equal(function_name(FUNCTION_SYSCALL_FIRST + 1000), "syscall"); /* no such call */
    assert_string_equal(function_name(FUNCTION_SYS_PIPE), "pipe"); /* the wrappers' own */
    /* ... and a trapped call is a system-call site: its FAULT record says whether it fired. */
    assert_int_equal(record_function_kind(FUNCTION_SYSCALL_FIRST + 257), KIND_SYSCALL);
    assert_int_equal(record_function_kind(FUNCTION_SYS_PIPE), KIND_SYSCALL);
    assert_int_equal(record_function_kind(FUNCTION_MALLOC), KIND_ALLOC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_stream),
        cmocka_unit_test(test_unpreloaded_and_failed_execs),
        cmocka_unit_test(test_live_sets_are_summed_per_site),
        cmocka_unit_test(test_system_call_names),
        cmocka_unit_test(test_nofail_flag_and_failpoint_names),
        cmocka_unit_test(test_io_fault),
        cmocka_unit_test(test_garbled_records_are_skipped),
        cmocka_unit_test(test_truncated_file),
        cmocka_unit_test(test_random_garbage),
        cmocka_unit_test(test_invocation),
    };
    return cmocka_run_group_tests_name("ingest", tests, NULL, NULL);
}
