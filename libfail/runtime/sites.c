/*
 * sites.c — the runtime's table of sites and callers, and the live blocks counted through it.
 *
 * One table, two kinds of entry (struct site_entry, runtime.h): a site, by its signature (how
 * often it was called, its largest request), and a caller, by its raw return address (the
 * blocks it has live). Entries are handed out in the order claimed and found through an index
 * of two parts, a near one every key tries first and a far one (SITE_NEAR_SLOTS); the
 * allocation path finds a caller's entry inline (runtime.c, caller_slot). Every tracked
 * allocation and release updates its caller's counts (runtime_track, runtime_untrack, with the
 * live-block table of live.c); the blocks still live are reported at exit, and lf_live_mark and
 * lf_live_since look at them from the program.
 *
 * No malloc, no lock: the tables live in anonymous mmap (MAP_NORESERVE, touched only as used),
 * entries are claimed with compare-and-swap and never removed, so fork can never inherit a held
 * lock; while the process has one thread the counts are plain loads and stores.
 */

#include "live.h"
#include "runtime.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

/* lf_live_mark was called: tracked blocks get serial numbers (see runtime_track). */
static _Atomic bool live_marked;

static void *LF_TEXT map_table(size_t bytes)
{
    void *table = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return table == MAP_FAILED ? NULL : table;
}

bool LF_TEXT runtime_map_tables(void)
{
    if (!runtime.sites)
        runtime.sites = map_table(SITE_CAPACITY * sizeof(struct site_entry));
    if (!runtime.index)
        runtime.index = map_table((SITE_NEAR_SLOTS + SITE_CAPACITY) * sizeof *runtime.index);
    if (!runtime.live_ready)
        runtime.live_ready = live_table_init();
    return runtime.sites && runtime.index && runtime.live_ready;
}

/* One part of the index (`mask` + 1 slots): the entry of `signature`, claimed when `insert` and
   absent. UINT32_MAX when it is absent (not inserting) or the table is full; *full when every
   probe held another key (the far part is next). An entry is filled in before the index
   publishes it. Two threads claiming one key at once each take an entry; the loser's stays with
   signature 0, which every reader skips. */
static uint32_t LF_TEXT probe_index(_Atomic uint64_t *part, uint32_t mask, uint32_t probes,
                                    uint64_t signature, bool insert, bool *fresh, bool *full)
{
    *full = false;
    /* The tag spares a probe the entry's cache line when the slot holds another key. */
    uint32_t tag = (uint32_t)(signature >> 32);
    uint32_t slot = (uint32_t)(signature ^ (signature >> 32)) & mask;
    for (uint32_t probe = 0; probe < probes; probe++, slot = (slot + 1) & mask) {
        uint64_t current = atomic_load_explicit(&part[slot], memory_order_acquire);
        if (current) {
            uint32_t held = (uint32_t)current - 1;
            if ((uint32_t)(current >> 32) == tag &&
                atomic_load_explicit(&runtime.sites[held].signature, memory_order_relaxed) ==
                    signature)
                return held;
            continue;
        }
        if (!insert)
            return UINT32_MAX;
        uint32_t entry = atomic_fetch_add(&runtime.used_count, 1);
        if (entry >= SITE_CAPACITY)
            return UINT32_MAX;
        atomic_store_explicit(&runtime.sites[entry].signature, signature, memory_order_relaxed);
        uint64_t expected = 0;
        if (atomic_compare_exchange_strong_explicit(&part[slot], &expected,
                                                    (uint64_t)tag << 32 | (entry + 1),
                                                    memory_order_release,
                                                    memory_order_acquire)) {
            *fresh = true;
            return entry;
        }
        atomic_store_explicit(&runtime.sites[entry].signature, 0, memory_order_relaxed);
        uint32_t held = (uint32_t)expected - 1;
        if ((uint32_t)(expected >> 32) == tag &&
            atomic_load_explicit(&runtime.sites[held].signature, memory_order_relaxed) == signature)
            return held;
    }
    *full = true;
    return UINT32_MAX;
}

/* Returns the entry of `signature`, claiming a new one (near part first, see SITE_NEAR_SLOTS);
   *fresh tells a first sighting. */
uint32_t LF_TEXT runtime_site_slot(uint64_t signature, bool *fresh)
{
    *fresh = false;
    bool full;
    uint32_t entry = probe_index(runtime.index, SITE_NEAR_SLOTS - 1, SITE_NEAR_PROBES, signature,
                                 true, fresh, &full);
    if (!full)
        return entry;
    return probe_index(runtime.index + SITE_NEAR_SLOTS, SITE_CAPACITY - 1, SITE_PROBES, signature,
                       true, fresh, &full);
}

/* True when `size` is the largest request at the slot by a factor of two or more: worth a record,
   so failrun knows each site's largest request to within a factor of two (exact across the NOFAIL
   threshold, a power of two). */
bool LF_TEXT runtime_raise_size_class(uint32_t slot, size_t size)
{
    uint32_t size_class = size ? (uint32_t)(64 - __builtin_clzll((unsigned long long)size)) : 0;
    uint32_t current = atomic_load(&runtime.sites[slot].size_class);
    while (size_class > current)
        if (atomic_compare_exchange_weak(&runtime.sites[slot].size_class, &current, size_class))
            return true;
    return false;
}

void LF_TEXT runtime_report_live_blocks(void)
{
    bool expected = false;
    if (!runtime.sites || !atomic_compare_exchange_strong(&runtime.live_reported, &expected, true))
        return;
    /* RECORD_LIVE_SET_MAX sites a record, eight records a write: a process that ends with many
       sites live (every child of a fork campaign) made a 512-byte record, a write, a gettid and
       an fstat per site. */
    enum { LIVE_BATCH = 8 };
    struct record batch[LIVE_BATCH];
    size_t pending = 0;      /* full records in batch */
    struct record *r = NULL; /* batch[pending] while it is being filled */
    uint32_t used = atomic_load(&runtime.used_count);
    for (uint32_t i = 0; i < used && i < SITE_CAPACITY; i++) {
        /* A signature of 0: an entry a racing claim wasted, or one a thread has only just
           taken (it is still allocating, so its caller's count is not final anyway). */
        const struct site_entry *entry = &runtime.sites[i];
        if (!atomic_load_explicit(&entry->signature, memory_order_relaxed))
            continue;
        int64_t blocks = atomic_load(&entry->live_blocks);
        if (blocks <= 0 || !atomic_load(&entry->top_ready))
            continue;
        if (!r) {
            r = &batch[pending];
            memset(r, 0, sizeof *r);
            r->type = RECORD_LIVE_SET;
        }
        struct record_frame *triple = &r->body.frames[r->frame_count];
        triple[0] = entry->top;
        triple[1] = (struct record_frame){stack_signature(&entry->top, 1), (uint64_t)blocks};
        triple[2] = (struct record_frame){(uint64_t)atomic_load(&entry->live_bytes), 0};
        r->frame_count = (uint16_t)(r->frame_count + 3);
        if (r->frame_count == 3 * RECORD_LIVE_SET_MAX) {
            r = NULL;
            if (++pending == LIVE_BATCH) {
                runtime_emit_records(batch, pending);
                pending = 0;
            }
        }
    }
    if (r)
        pending++;
    if (pending)
        runtime_emit_records(batch, pending);
}

/* Has this image reached `signature` (a lookup: nothing is inserted)? An entry that was only
   made known (runtime_site_known) has counted no call. */
bool LF_TEXT runtime_site_reached(uint64_t signature)
{
    if (!runtime.index)
        return false;
    bool fresh, full;
    uint32_t entry = probe_index(runtime.index, SITE_NEAR_SLOTS - 1, SITE_NEAR_PROBES, signature,
                                 false, &fresh, &full);
    if (entry == UINT32_MAX && full)
        entry = probe_index(runtime.index + SITE_NEAR_SLOTS, SITE_CAPACITY - 1, SITE_PROBES,
                            signature, false, &fresh, &full);
    return entry != UINT32_MAX && atomic_load(&runtime.sites[entry].occurrences) > 0;
}

void LF_TEXT runtime_site_known(uint64_t signature, uint64_t size)
{
    if (!runtime.sites || !runtime.index || !signature)
        return;
    bool fresh;
    uint32_t entry = runtime_site_slot(signature, &fresh);
    if (entry != UINT32_MAX)
        runtime_raise_size_class(entry, size);
}

void LF_TEXT runtime_track(const struct call *call, void *block, size_t size)
{
    if (!block || call->static_index == UINT32_MAX)
        return;
    struct site_entry *entry = &runtime.sites[call->static_index];
    /* Serials matter only to lf_live_since: none before lf_live_mark. */
    bool marked = atomic_load_explicit(&live_marked, memory_order_relaxed);
    if (LF_LIKELY(single_threaded())) {
        /* The common case, in plain loads and stores (see live_insert_single). */
        uint64_t serial = 0;
        if (marked) {
            serial = atomic_load_explicit(&runtime.serial, memory_order_relaxed) + 1;
            atomic_store_explicit(&runtime.serial, serial, memory_order_relaxed);
        }
        uint64_t site_and_size = ((uint64_t)call->static_index << LIVE_SIZE_BITS) |
                                 (size < LIVE_SIZE_MAX ? size : LIVE_SIZE_MAX);
        if (live_insert_single((uintptr_t)block, site_and_size, marked, serial) ||
            live_table_insert((uintptr_t)block, call->static_index, size, marked, serial)) {
            int64_t blocks = atomic_load_explicit(&entry->live_blocks, memory_order_relaxed);
            int64_t bytes = atomic_load_explicit(&entry->live_bytes, memory_order_relaxed);
            atomic_store_explicit(&entry->live_blocks, blocks + 1, memory_order_relaxed);
            atomic_store_explicit(&entry->live_bytes, bytes + (int64_t)size, memory_order_relaxed);
        }
        return;
    }
    uint64_t serial = marked ? atomic_fetch_add(&runtime.serial, 1) + 1 : 0;
    if (live_insert((uintptr_t)block, call->static_index, size, marked, serial)) {
        atomic_fetch_add(&entry->live_blocks, 1);
        atomic_fetch_add(&entry->live_bytes, (int64_t)size);
    }
}

void LF_TEXT runtime_untrack(void *block)
{
    if (!block || !atomic_load_explicit(&runtime.tracking, memory_order_relaxed))
        return;
    if (LF_LIKELY(single_threaded())) {
        uint64_t site_and_size;
        uint32_t site;
        uint64_t size;
        if (live_remove_single((uintptr_t)block, &site_and_size)) {
            site = (uint32_t)(site_and_size >> LIVE_SIZE_BITS);
            size = site_and_size & LIVE_SIZE_MAX;
        } else if (!live_remove((uintptr_t)block, &site, &size)) {
            return;
        }
        struct site_entry *entry = &runtime.sites[site];
        int64_t blocks = atomic_load_explicit(&entry->live_blocks, memory_order_relaxed);
        int64_t bytes = atomic_load_explicit(&entry->live_bytes, memory_order_relaxed);
        atomic_store_explicit(&entry->live_blocks, blocks - 1, memory_order_relaxed);
        atomic_store_explicit(&entry->live_bytes, bytes - (int64_t)size, memory_order_relaxed);
        return;
    }
    uint32_t site;
    uint64_t size;
    if (live_remove((uintptr_t)block, &site, &size)) {
        atomic_fetch_sub(&runtime.sites[site].live_blocks, 1);
        atomic_fetch_sub(&runtime.sites[site].live_bytes, (int64_t)size);
    }
}

/* Start counting live blocks from now on (tables are mapped on first use) and return a mark:
   blocks allocated after it have a larger serial. */
uint64_t LF_TEXT runtime_live_mark(void)
{
    int saved_guard = runtime_guard;
    runtime_guard = 1; /* initialising may allocate (pthread_atfork, on_exit), mapping the tables
                          makes system calls (not the program's, for libfail-kernel) */
    runtime_init();
    atomic_store(&live_marked, true);
    if (!atomic_load(&runtime.tracking)) {
        if (!runtime_map_tables()) {
            runtime_guard = saved_guard;
            return 0;
        }
        atomic_store(&runtime.tracking, true);
        runtime_publish_hooks();
    }
    runtime_guard = saved_guard;
    return atomic_load(&runtime.serial);
}

size_t LF_TEXT runtime_live_since(uint64_t mark, uintptr_t *blocks, size_t *sizes,
                                  uintptr_t *callers, size_t max)
{
    enum { BATCH = 64 };
    uint32_t sites[BATCH];
    if (!runtime.live_ready || !runtime.sites)
        return 0;
    size_t found = live_table_since(mark, blocks, sizes, sites, max < BATCH ? max : BATCH);
    for (size_t i = 0; i < found && i < max && i < BATCH; i++)
        callers[i] = runtime.sites[sites[i]].caller;
    return found;
}
