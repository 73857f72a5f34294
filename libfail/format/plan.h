/*
 * plan.h — the fault plan a run receives in LIBFAIL_PLAN (plan.c): its grammar is documented there.
 */
#ifndef LIBFAIL_FORMAT_PLAN_H
#define LIBFAIL_FORMAT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attributes.h"
#include "record.h"

#define LF_DEFAULT_DEPTH 8

enum plan_mode {
    PLAN_OFF = 0, PLAN_RECORD, PLAN_SITE, PLAN_NTH, PLAN_RANDOM, PLAN_KERNEL, PLAN_FORK, PLAN_START
};
#define PLAN_MAX_FAULTS 8
/* What kinds of call a plan fails (faults=alloc,io): one bit per kind of kinds.def that
   --faults chooses; failpoints go with alloc. */
#define PLAN_FAULT(kind) (1u << (kind))
#define PLAN_FAULT_ALLOC PLAN_FAULT(KIND_ALLOC)
#define PLAN_FAULT_IO PLAN_FAULT(KIND_IO)
#define PLAN_MAX_JOBS 64 /* PLAN_FORK: children running at once */
#define PLAN_TESTS_MAX 256 /* PLAN_FORK: bytes of the tests= list, NUL included */
struct plan_fault {
    uint64_t site;       /* signature */
    uint64_t occurrence; /* the K-th call at the site in a process fails (1-based) */
    bool has_top;        /* the site's first frame is known: calls elsewhere skip the unwind */
    struct record_frame top;
};
struct plan {
    enum plan_mode mode;
    struct plan_fault faults[PLAN_MAX_FAULTS]; /* PLAN_SITE: a chain; the last is the target */
    int fault_count;
    bool persistent;      /* PLAN_SITE: the target fails at every occurrence from K on */
    uint64_t nth;         /* PLAN_NTH: fail the N-th call of the first thread (fail-nth rules);
                             PLAN_KERNEL: the N written to the kernel's fail-nth at the site */
    uint64_t probability; /* PLAN_RANDOM: chance per call, as a fraction of 2^32 */
    uint64_t seed;        /* PLAN_RANDOM */
    unsigned depth;       /* frames in a signature */
    unsigned jobs;        /* PLAN_FORK: children at once (default 1) */
    uint64_t timeout_ms;  /* PLAN_FORK: a child still running after this is killed (0: never) */
    uint64_t cpu_ms;      /* CPU a process may use after a planned fault fired in it (0: any) */
    bool own_first;       /* a system executable records only until a non-system one started */
    unsigned fault_kinds; /* PLAN_FAULT_*: the kinds of call that are sites (default alloc) */
    bool kernel_wrappers; /* PLAN_KERNEL: sites are the libc wrappers, no syscall trapping */
    char tests[PLAN_TESTS_MAX]; /* PLAN_FORK: more test-case functions, NAME,NAME (testcase.c) */
};
/* Parses the plan grammar documented in plan.c. Returns NULL on success, else a static message
   naming the bad part; *out is then PLAN_OFF. */
const char *plan_parse(const char *text, struct plan *out) LF_HIDDEN;

/* The kernel's fail-nth rule (lib/fault-inject.c) for one call: a counter of 0 is disarmed; any
   other value counts down and the call that brings it to 0 fails. So writing N fails the N-th
   call, reading back 0 means it fired, and the counter stays armed if fewer calls follow. */
bool fail_nth_tick(uint64_t *counter) LF_HIDDEN;
/* True with the plan's probability; advances the generator state. */
bool random_tick(uint64_t *state, uint64_t probability) LF_HIDDEN;

#endif
