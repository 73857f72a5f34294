/*
 * runtime.h — what the runtime's files share, and no other file of the core: the per-process
 * state (`runtime`, defined in runtime.c), the table of sites (sites.c), the record file
 * (records.c), the ends of a process image (exits.c) and failrun kernel's system-call sites
 * (syscalls.c). The rest of the core and the interposers reach the runtime through internal.h.
 */
#ifndef LIBFAIL_RUNTIME_H
#define LIBFAIL_RUNTIME_H

#include "internal.h"

#include <limits.h>
#include <stdatomic.h>
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#endif

#define SITE_CAPACITY (1u << 18)
#define SITE_PROBES 1024 /* a nearly full table must not turn every call into a long scan */
/* The index has two parts: a near one of 4096 slots (32 KiB, eight pages) that every key tries
   first, and a far one of SITE_CAPACITY slots for a key whose near probes all hold other keys.
   Keys are never removed, so a near probe that finds its slot empty proves the key is in neither
   part. With one part, each new site touched a page of its own (1 MiB of index at random): a
   small program took some 200 more page faults, which in a virtual machine cost more than the
   records themselves, and every fork child (a start's, a test case's) took them again. */
#define SITE_NEAR_SLOTS (1u << 12)
#define SITE_NEAR_PROBES 32

/* One table, two kinds of entry, told apart by how their key was made:
   - a site: key = its signature; counts its calls, remembers its largest request;
   - a caller: key = a hash of the raw return address above the interposer (this process's
     address, so never written out); holds that address normalised to (module, offset), the
     "static site" live blocks are counted by, and the count. Cheap to find on every call. */
struct site_entry {
    _Atomic uint64_t signature; /* 0 = empty slot */
    _Atomic uint64_t occurrences;
    _Atomic int64_t live_blocks;
    _Atomic int64_t live_bytes;
    struct record_frame top;
    uintptr_t caller;            /* caller entries: the raw return address */
    _Atomic uint32_t size_class; /* bit length of the largest request reported so far */
    _Atomic bool top_ready;      /* caller entries: top is filled in */
} __attribute__((aligned(64))); /* one cache line: a caller's entry is read on every call */

/* The per-process state: settings, the record file, the tables. Written at initialisation and
   after fork (runtime.c), read by every file of the runtime. */
struct runtime_state {
    _Atomic int phase; /* 0 not started, 1 initialising, 2 ready */
    bool active;       /* LIBFAIL_DIR is set: write records */
    bool in_scope;     /* this executable's allocations are recorded and may fail */
    struct plan plan;
    pid_t pid;
    char dir[PATH_MAX];
    char record_path[PATH_MAX];
    char exe[PATH_MAX];
    char module_globs[1024];
    uint64_t command_line;
    _Atomic int record_fd;
    _Atomic dev_t record_dev;
    _Atomic ino_t record_ino;
    _Atomic uint64_t sequence;
    /* Entries in the order claimed, so the ones in use fill the first pages: a fork copies, and
       the exit report reads, only those (hashed into one 16 MiB table, each of a process's sites
       was on a page of its own: a fork-mode child's report read 1,200 pages, and every fork
       copied their page tables). `index` maps a key's hash slot to its entry number + 1. */
    struct site_entry *sites;
    _Atomic uint64_t *index; /* a key's tag (its signature's high half) << 32 | entry + 1 */
    _Atomic uint32_t used_count; /* entries handed out, wasted ones included (runtime_site_slot) */
    bool live_ready; /* the live-block table (live.c) is mapped */
    _Atomic bool sites_overflow; /* a site found no slot: its records and counts are missing */
    _Atomic bool live_reported;
    _Atomic bool fault_seen; /* a planned fault fired (here, or before this process started) */
    _Atomic bool tracking;   /* live blocks are counted: in scope of a campaign, or lf_live_mark */
    _Atomic uint64_t serial; /* allocations tracked so far */
    bool fast;               /* site mode with every site's first frame known */
    bool forked;             /* this image began as a fork child */
    bool until_own;          /* a system executable recording until own code starts (own_first) */
    _Atomic bool exit_reported;
    _Atomic uint32_t fixture_reported; /* RECORD_FIXTURE_* kinds written by this image */
};
extern struct runtime_state runtime LF_HIDDEN;

/* ---- runtime.c ---- */
/* Tell the interposers what to do from now on (see runtime_hooks in internal.h). */
void runtime_publish_hooks(void) LF_HIDDEN;
/* Does LIBFAIL_MODULE let the caller of the stack `pcs` (the first frame outside libc and the
   loader) be a site? */
bool runtime_module_filter_allows(const uintptr_t *pcs, int count) LF_HIDDEN;
/* Claim fault `index` of the run's chain for this process: true once per run. */
bool runtime_claim_fault(int index) LF_HIDDEN;

/* ---- records.c: the record file ---- */
/* Create this image's record file in runtime.dir (PID-IMAGE.rec). */
void runtime_open_record_file(void) LF_HIDDEN;
/* Seal `count` records made by this thread and write them with one write(2). */
void runtime_emit_records(struct record *records, size_t count) LF_HIDDEN;
/* One record. */
void runtime_emit(struct record *r) LF_HIDDEN;
/* A record whose body is a path (and a build-id). */
void runtime_emit_text(enum record_type type, uint32_t flags, uint64_t id, uint64_t value,
                       const char *path, const uint8_t *build_id,
                       uint32_t build_id_length) LF_HIDDEN;
/* A record whose body is a stack. */
void runtime_emit_frames(enum record_type type, uint32_t flags, uint32_t function,
                         uint64_t signature, uint64_t value, uint64_t value2,
                         const struct record_frame *frames, int count) LF_HIDDEN;
/* The MODULE record of a module of the table (its listener: module_table_set_listener). */
void runtime_announce_module(const struct module_info *module) LF_HIDDEN;
/* The START record of this image; `forked`: it began as a fork child. */
void runtime_announce_process(bool forked) LF_HIDDEN;

/* ---- sites.c: the table of sites and callers ---- */
/* The table updates of the runtime's files are atomic read-modify-writes (a locked instruction
   each, most of the cost of a tracked call) only while the process has more than one thread:
   glibc's malloc makes the same choice (SINGLE_THREAD_P), and the flag turns false before a
   second thread starts. */
LF_INLINE bool single_threaded(void)
{
#if __has_include(<sys/single_threaded.h>)
    return __libc_single_threaded;
#else
    return false;
#endif
}

LF_INLINE void counter_add(_Atomic int64_t *counter, int64_t value)
{
    if (single_threaded())
        atomic_store_explicit(counter,
                              atomic_load_explicit(counter, memory_order_relaxed) + value,
                              memory_order_relaxed);
    else
        atomic_fetch_add(counter, value);
}

LF_INLINE uint64_t counter_next(_Atomic uint64_t *counter)
{
    if (single_threaded()) {
        uint64_t value = atomic_load_explicit(counter, memory_order_relaxed) + 1;
        atomic_store_explicit(counter, value, memory_order_relaxed);
        return value;
    }
    return atomic_fetch_add(counter, 1) + 1;
}

/* Claim `slot` (holding `current`) for `fresh`; false when another thread took it first. */
LF_INLINE bool slot_claim(_Atomic uintptr_t *slot, uintptr_t current, uintptr_t fresh)
{
    if (single_threaded()) {
        atomic_store_explicit(slot, fresh, memory_order_relaxed);
        return true;
    }
    return atomic_compare_exchange_strong(slot, &current, fresh);
}

/* Map the site table, its index and the live-block table; false when memory ran out. */
bool runtime_map_tables(void) LF_HIDDEN;
/* The entry of `signature`, claimed when new (*fresh); UINT32_MAX when the table is full. */
uint32_t runtime_site_slot(uint64_t signature, bool *fresh) LF_HIDDEN;
/* True when `size` is the slot's largest request by a factor of two or more. */
bool runtime_raise_size_class(uint32_t slot, size_t size) LF_HIDDEN;
/* The LIVE_SET records of the blocks still live, once per image. */
void runtime_report_live_blocks(void) LF_HIDDEN;
/* Has this image reached `signature`? (A site only known, below, was not reached.) */
bool runtime_site_reached(uint64_t signature) LF_HIDDEN;
/* A site the baseline reached in this program, with its largest request (a start's known sites,
   forkstart.c): it takes its entry now, so that reaching it is no first sighting and no SITE
   record, unless its request is larger. */
void runtime_site_known(uint64_t signature, uint64_t size) LF_HIDDEN;

/* ---- exits.c: the ends of a process image: exits, fatal signals, hangs ---- */
/* gcov's exported dump function, or NULL (looked up at initialisation). */
extern void (*runtime_gcov_dump)(void) LF_HIDDEN;
/* The handlers of the fatal signals, on an alternate stack. */
void runtime_install_signal_handlers(void) LF_HIDDEN;
/* The SIGXCPU handler, unless the program has one of its own or ignores it: false then. */
bool runtime_install_cpu_limit_handler(void) LF_HIDDEN;
/* Where a planned fault fires: the plan's CPU limit, once per process. */
void runtime_arm_cpu_limit(void) LF_HIDDEN;

#endif
