/*
 * record.h — the event records a target process writes and failrun reads.
 *
 * Why fixed-size records: the writer runs inside the target, where it may not allocate and
 * must survive threads, fork and sudden death. One write(2) of one whole record to an O_APPEND
 * file is the unit of progress: a record is either there or it is not, and a crash between
 * records loses nothing already written. The reader (failrun) treats every byte as untrusted:
 * record_check() validates a record before any field is used.
 *
 * Shared by the writer (records.c, inside the target) and the reader (injector/store/ingest.c).
 */
#ifndef LIBFAIL_RECORD_H
#define LIBFAIL_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define RECORD_MAGIC 0x3146524cu /* "LRF1" little-endian */
#define RECORD_SIZE 512
#define RECORD_MAX_FRAMES 28
#define RECORD_PATH_MAX 408
#define RECORD_BUILD_ID_MAX 40

enum record_type {
    RECORD_START = 1,  /* a process image began: exe path, in scope or not */
    RECORD_MODULE = 2, /* a loaded module: id, build-id bytes, path */
    RECORD_SITE = 3,   /* first sighting of a site (or a new size class): signature, frames */
    RECORD_FAULT = 4,  /* the planned failure was injected at this site */
    RECORD_EXIT = 5,   /* exit() (any path) or _exit(), with the status; frames = the exit stack;
                          signature = the parent's pid then (START's value is the first one) */
    RECORD_SIGNAL = 6, /* a fatal signal; frames = the crash stack, frame 0 the faulting pc */
    RECORD_LIVE = 7,   /* at exit: blocks from this site still live */
    RECORD_NAME = 8,   /* a named failpoint's name: signature = its site, body.text.path = name */
    /* At exit: LIVE for up to RECORD_LIVE_SET_MAX sites in one record, the frames taken three
       at a time: the site's top frame, then {signature, blocks}, then {bytes, 0}. A process that
       ends with many sites live (every fork-mode child) writes a ninth of the bytes. */
    RECORD_LIVE_SET = 9,
    /* An exec (or posix_spawn) of a program that will run without this preload, written by the
       process that starts it, just before: body.text.path = the program, value = enum
       record_unpreloaded_reason, signature = the attempt's number in this image. The same record
       with RECORD_FLAG_EXEC_FAILED after the call failed takes it back. */
    RECORD_UNPRELOADED = 10,
    /* A call into the code under test, made from outside it, as it returned (boundary.c, through
       the LD_AUDIT module): body.call.name = the function's symbol, body.call.caller = the
       call's return address, signature = the function's module id, value = the integer return
       register. RECORD_FLAG_BOUNDARY_FAULTED: a fault fired inside this call in this thread;
       then value2 = errno after the return. Else a summary: value2 = the return classes
       (BOUNDARY_CLASS_*) this process has seen from the function called from that place so
       far, written when the set grows. */
    RECORD_BOUNDARY = 11,
    /* The process did what a test fixture does (a server, a daemon): flags = RECORD_FIXTURE_*,
       once per kind per image, when it first did it. failrun decides from these and from how the
       process ended whether it is a fixture, out of a campaign's default scope (environment.c). */
    RECORD_FIXTURE = 12,
    RECORD_TYPE_LIMIT
};

/* Which interposed function made the request: the rows of functions.def, in order (the
   allocators, the failpoint, the kernel's wrappers, the I/O calls). */
enum record_function {
    FUNCTION_NONE = 0,
#define FUNCTION_ROW(name, id, kind) id,
#include "functions.def"
#undef FUNCTION_ROW
    FUNCTION_LIMIT
};
/* A system call trapped by syscall user dispatch (failrun kernel, injector/preload/dispatch.c):
   the function is FUNCTION_SYSCALL_FIRST + the call's number (x86_64), so every call is a site. */
#define FUNCTION_SYSCALL_FIRST 0x1000u
#define FUNCTION_SYSCALL_LIMIT (FUNCTION_SYSCALL_FIRST + 1024u)

#define RECORD_LIVE_SET_MAX (RECORD_MAX_FRAMES / 3)

/* What kind of fault a function's site is (kinds.def). */
enum function_kind {
#define FAULT_KIND(kind, ...) kind,
#include "kinds.def"
#undef FAULT_KIND
    KIND_LIMIT
};

/* The kind of a function's sites, from the table the function is a row of. */
static inline enum function_kind record_function_kind(uint32_t function)
{
    static const unsigned char kinds[FUNCTION_LIMIT] = {
#define FUNCTION_ROW(name, id, kind) [id] = kind,
#include "functions.def"
#undef FUNCTION_ROW
    };
    if (function >= FUNCTION_SYSCALL_FIRST && function < FUNCTION_SYSCALL_LIMIT)
        return KIND_SYSCALL;
    return function < FUNCTION_LIMIT ? (enum function_kind)kinds[function] : KIND_ALLOC;
}

/* Flags on START and EXIT records. */
#define RECORD_FLAG_IN_SCOPE 0x1u     /* START: this process's allocations are recorded/failed */
#define RECORD_FLAG_LIVE_OVERFLOW 0x2u /* EXIT: live-block table overflowed; leak counts partial */
#define RECORD_FLAG_PATH_TRUNCATED 0x4u
#define RECORD_FLAG_FORKED 0x8u        /* START: a fork child (same program as its parent) */
#define RECORD_FLAG_SITES_OVERFLOW 0x10u /* EXIT: the site table was full; some sites unrecorded */
#define RECORD_FLAG_NOFAIL 0x20u       /* SITE: requested with LF_NOFAIL: the injector never fails it */
/* FAULT of a system call (failrun kernel): value = the N written to fail-nth, value2 = the
   call's occurrence. FIRED: the read-back after the call was 0, so the kernel's N-th fault point
   was reached and failed (the call may still have succeeded: the kernel absorbed it); CALL_FAILED:
   the call returned an error, whose errno is in bits 16..31 of flags. */
#define RECORD_FLAG_KERNEL_FIRED 0x40u
#define RECORD_FLAG_CALL_FAILED 0x80u
#define RECORD_FLAG_ERRNO_SHIFT 16
#define RECORD_FLAG_BOUNDARY_FAULTED 0x200u
/* SIGNAL: the kernel raised it at an address it could not access: value2 = that address. */
#define RECORD_FLAG_SIGNAL_ADDRESS 0x400u

/* What kind of value a function returned (RECORD_BOUNDARY), one bit each, from the integer
   return register: a convention is learned as the classes the unfailed runs saw. */
#define BOUNDARY_CLASS_NULL 0x1u     /* the whole register 0: NULL, 0, false */
#define BOUNDARY_CLASS_ZERO32 0x2u   /* the low 32 bits 0: an int 0 */
#define BOUNDARY_CLASS_NEG32 0x4u    /* the low 32 bits negative: an int error (-1, -ENOMEM) */
#define BOUNDARY_CLASS_FALSE8 0x8u   /* the low 8 bits 0: a bool false */
#define BOUNDARY_CLASS_WIDE 0x10u    /* the upper 32 bits neither 0 nor a sign extension: an address */
#define BOUNDARY_CLASS_OTHER 0x20u   /* anything else (a positive int, a non-zero bool) */

static inline uint64_t boundary_classes(uint64_t value)
{
    uint64_t classes = 0;
    int32_t low = (int32_t)(uint32_t)value;
    uint32_t high = (uint32_t)(value >> 32);
    if (value == 0)
        classes |= BOUNDARY_CLASS_NULL;
    if (low == 0)
        classes |= BOUNDARY_CLASS_ZERO32;
    if (low < 0)
        classes |= BOUNDARY_CLASS_NEG32;
    if ((value & 0xff) == 0)
        classes |= BOUNDARY_CLASS_FALSE8;
    if (high != 0 && high != 0xffffffffu)
        classes |= BOUNDARY_CLASS_WIDE;
    if (!(classes & (BOUNDARY_CLASS_NULL | BOUNDARY_CLASS_NEG32 | BOUNDARY_CLASS_WIDE)))
        classes |= BOUNDARY_CLASS_OTHER;
    return classes;
}

/* UNPRELOADED: the exec or spawn announced before (same signature) failed: no program ran. */
#define RECORD_FLAG_EXEC_FAILED 0x100u
/* FIXTURE: what it did. */
#define RECORD_FIXTURE_LISTENED 0x1u /* listen(2) succeeded: it serves a socket */
#define RECORD_FIXTURE_SESSION 0x2u  /* setsid(2) or daemon(3) succeeded: it left its session */

/* Why a program started by a process of the campaign runs without the preload (UNPRELOADED). */
enum record_unpreloaded_reason {
    UNPRELOADED_CLEARED = 1, /* its environment lacks LD_PRELOAD or the run's LIBFAIL_* variables */
    UNPRELOADED_SETUID = 2,  /* set-user/group-ID: the loader ignores LD_PRELOAD (AT_SECURE) */
};

/* Exit kinds in the EXIT record's `value2`. */
/* EXIT_BY_TEST_CASE: a fork-mode child stopped at the end of its test case (testcase.c); its
   status is 0 when the test case passed, 1 when it failed. */
enum record_exit_kind { EXIT_BY_EXIT = 1, EXIT_BY_UNDERSCORE_EXIT = 2, EXIT_BY_TEST_CASE = 3 };

struct record_frame {
    uint64_t module; /* module id: hash of the build-id (or of the path when none) */
    uint64_t offset; /* address minus the module's load bias */
};

struct record {
    uint32_t magic;
    uint16_t type;
    uint16_t frame_count;
    uint32_t pid;
    uint32_t tid;
    uint32_t flags;
    uint32_t function;   /* SITE/FAULT: enum record_function */
    uint64_t sequence;   /* per-process record number, from 0 */
    uint64_t signature;  /* SITE/FAULT/LIVE: site signature; MODULE: module id;
                            START: hash of the command line (/proc/self/cmdline) */
    uint64_t value;      /* SITE/FAULT: request size; EXIT: status; SIGNAL: signo; LIVE: blocks */
    uint64_t value2;     /* EXIT: enum record_exit_kind; LIVE: bytes; MODULE: build-id length */
    union {
        struct record_frame frames[RECORD_MAX_FRAMES];
        struct {
            uint8_t build_id[RECORD_BUILD_ID_MAX];
            char path[RECORD_PATH_MAX]; /* MODULE, START: NUL-terminated */
        } text;
        struct {
            struct record_frame caller; /* BOUNDARY: where the call returns to */
            char name[RECORD_PATH_MAX]; /* BOUNDARY: the function's symbol, NUL-terminated */
        } call;
    } body;
    uint64_t checksum; /* record_checksum() of every byte before this field */
};

_Static_assert(sizeof(struct record) == RECORD_SIZE, "records are fixed-size");
_Static_assert(offsetof(struct record, checksum) == RECORD_SIZE - 8, "the checksum covers the rest");

/* FNV-1a over whole 64-bit words; shared so writer and reader agree. */
uint64_t record_checksum(const struct record *r);

/* 0 when the record is well-formed; otherwise a static string naming what is wrong. */
const char *record_check(const struct record *r);

#endif
