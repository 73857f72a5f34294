/*
 * live.h — the live-block table's layout and its hot paths, inlined into the interposers'
 * callers in sites.c (a call into live.c per malloc and per free cost a tracked pair a
 * quarter of its time). The rules and the reasons are in live.c.
 */
#ifndef LIBFAIL_LIVE_H
#define LIBFAIL_LIVE_H

#include "internal.h"

#include <stdatomic.h>
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#endif

#define LIVE_INITIAL_BITS 12 /* 4096 slots, 64 KiB: a small program never grows it */
#define LIVE_MAX_BITS 31
#define LIVE_GENERATIONS 24
#define LIVE_PROBES 128 /* an insert that finds no slot this far grows the table */
#define LIVE_CROWDED 64 /* with threads: an insert that looked this far grows it */
#define LIVE_EMPTY ((uintptr_t)0)
#define LIVE_TOMBSTONE ((uintptr_t)1)
#define LIVE_CLAIMED ((uintptr_t)2) /* a thread is filling the slot in */
/* The slot's other word: the caller's index in the site table (24 bits) above the size (40 bits,
   1 TiB, saturated: insert and removal see the same value, so the counts stay exact). */
#define LIVE_SIZE_BITS 40
#define LIVE_SIZE_MAX ((UINT64_C(1) << LIVE_SIZE_BITS) - 1)

struct live_slot {
    _Atomic uintptr_t key; /* the block XOR LIVE_KEY_MASK, or EMPTY, TOMBSTONE, CLAIMED */
    uint64_t site_and_size;
};

struct live_generation {
    struct live_slot *slots;
    uint64_t *serials; /* beside the slots in one mapping; written only after lf_live_mark */
    uint32_t mask;     /* capacity - 1 */
    _Atomic uint32_t filled; /* slots ever taken from EMPTY: live, claimed or tombstones */
};

struct live_state {
    struct live_generation generations[LIVE_GENERATIONS];
    _Atomic int count;     /* generations in use; the newest is count - 1 */
    _Atomic bool building; /* a thread is building a generation */
    _Atomic bool overflow; /* a block found no slot: leak counts are partial */
    _Atomic bool cannot_grow; /* a larger table could not be mapped: never try again */
};
extern struct live_state live LF_HIDDEN;

LF_INLINE bool live_single_threaded(void)
{
#if __has_include(<sys/single_threaded.h>)
    return __libc_single_threaded;
#else
    return false;
#endif
}

/* A block's home slot: Fibonacci hashing of its address (in 16-byte units), the bits above
   the low 32 of the product. Not windows keyed by the stretch of heap a block is in (tried, so
   that blocks of one stretch would share cache lines): the heaps of threads are laid out alike,
   and windows of several stretches stacked up into runs longer than a probe may go. */
LF_INLINE uint32_t live_home(uintptr_t block, uint32_t mask)
{
    return (uint32_t)(((uint64_t)block >> 4) * 0x9e3779b97f4a7c15ull >> 32) & mask;
}

/* Claim a slot of `generation` for the block: returns how many slots it looked at (1 when
   its home slot was free), 0 when it found none within LIVE_PROBES. */
LF_INLINE int generation_insert(struct live_generation *generation, uintptr_t key,
                                 uint64_t site_and_size, bool with_serial, uint64_t serial,
                                 bool single)
{
    uint32_t mask = generation->mask;
    uint32_t slot = live_home(key ^ LIVE_KEY_MASK, mask);
    for (int probe = 0; probe < LIVE_PROBES; probe++, slot = (slot + 1) & mask) {
        struct live_slot *entry = &generation->slots[slot];
        uintptr_t current = atomic_load_explicit(&entry->key, memory_order_relaxed);
        if (current != LIVE_EMPTY && current != LIVE_TOMBSTONE)
            continue;
        /* Claim the slot first, fill it in, then publish the block: two threads racing for one
           slot must not mix their fields. */
        if (single)
            atomic_store_explicit(&entry->key, LIVE_CLAIMED, memory_order_relaxed);
        else if (!atomic_compare_exchange_strong(&entry->key, &current, LIVE_CLAIMED))
            continue;
        entry->site_and_size = site_and_size;
        if (with_serial)
            generation->serials[slot] = serial;
        atomic_store_explicit(&entry->key, key, memory_order_release);
        if (current == LIVE_EMPTY) {
            if (single)
                atomic_store_explicit(&generation->filled,
                                      atomic_load_explicit(&generation->filled,
                                                           memory_order_relaxed) + 1,
                                      memory_order_relaxed);
            else
                atomic_fetch_add_explicit(&generation->filled, 1, memory_order_relaxed);
        }
        return probe + 1;
    }
    return 0;
}

LF_INLINE bool generation_full(const struct live_generation *generation)
{
    uint32_t capacity = generation->mask + 1;
    return atomic_load_explicit(&generation->filled, memory_order_relaxed) >
           capacity / 4 * 3;
}

/* With threads, an insert had to look far: grow the table for the next ones. */
void live_table_crowded(int seen_count, bool with_serials) LF_HIDDEN;

/* The slow path: grows the table when needed; false (overflow flag set) when the block could
   not be tracked. */
bool live_table_insert(uintptr_t block, uint32_t site, uint64_t size, bool with_serial,
                       uint64_t serial) LF_HIDDEN;

/* The common case inline: the newest table has room within a short probe. */
LF_INLINE bool live_insert(uintptr_t block, uint32_t site, uint64_t size, bool with_serial,
                           uint64_t serial)
{
    int count = atomic_load_explicit(&live.count, memory_order_acquire);
    if (LF_LIKELY(count > 0)) {
        struct live_generation *newest = &live.generations[count - 1];
        bool single = live_single_threaded();
        if (LF_LIKELY(!single || !generation_full(newest))) {
            uintptr_t key = block ^ LIVE_KEY_MASK;
            uint64_t site_and_size = ((uint64_t)site << LIVE_SIZE_BITS) |
                                     (size < LIVE_SIZE_MAX ? size : LIVE_SIZE_MAX);
            int probes = generation_insert(newest, key, site_and_size, with_serial, serial,
                                           single);
            if (LF_LIKELY(probes && (single || probes <= LIVE_CROWDED)))
                return true;
            if (probes) {
                live_table_crowded(count, with_serial);
                return true;
            }
        }
    }
    return live_table_insert(block, site, size, with_serial, serial);
}

LF_INLINE bool live_remove(uintptr_t block, uint32_t *site, uint64_t *size)
{
    uintptr_t key = block ^ LIVE_KEY_MASK;
    bool single = live_single_threaded();
    int count = atomic_load_explicit(&live.count, memory_order_acquire);
    for (int g = count - 1; g >= 0; g--) {
        struct live_generation *generation = &live.generations[g];
        uint32_t mask = generation->mask;
        uint32_t slot = live_home(block, mask);
        for (int probe = 0; probe <= LIVE_PROBES; probe++, slot = (slot + 1) & mask) {
            struct live_slot *entry = &generation->slots[slot];
            uintptr_t current = atomic_load_explicit(&entry->key, memory_order_acquire);
            if (current == LIVE_EMPTY)
                break;
            if (current != key)
                continue;
            uint64_t site_and_size = entry->site_and_size;
            if (single)
                atomic_store_explicit(&entry->key, LIVE_TOMBSTONE, memory_order_relaxed);
            else if (!atomic_compare_exchange_strong(&entry->key, &current, LIVE_TOMBSTONE))
                return false;
            *site = (uint32_t)(site_and_size >> LIVE_SIZE_BITS);
            *size = site_and_size & LIVE_SIZE_MAX;
            return true;
        }
    }
    return false;
}

/* Single-threaded (the caller checked __libc_single_threaded): nobody else can look, so plain
   loads and stores, the newest table only, no claim. False when the table needs the slow path
   (full, or no slot nearby): live_table_insert then does everything. */
LF_INLINE bool live_insert_single(uintptr_t block, uint64_t site_and_size, bool with_serial,
                                  uint64_t serial)
{
    int count = atomic_load_explicit(&live.count, memory_order_relaxed);
    if (LF_UNLIKELY(count != 1))
        return false; /* not mapped yet, or generations left over from threads */
    struct live_generation *generation = &live.generations[0];
    uint32_t mask = generation->mask;
    uint32_t filled = atomic_load_explicit(&generation->filled, memory_order_relaxed);
    if (LF_UNLIKELY(filled > (mask + 1) / 4 * 3))
        return false;
    struct live_slot *slots = generation->slots;
    uint32_t slot = live_home(block, mask);
    for (int probe = 0; probe < LIVE_PROBES; probe++, slot = (slot + 1) & mask) {
        uintptr_t current = atomic_load_explicit(&slots[slot].key, memory_order_relaxed);
        if (current > LIVE_TOMBSTONE)
            continue;
        slots[slot].site_and_size = site_and_size;
        if (with_serial)
            generation->serials[slot] = serial;
        atomic_store_explicit(&slots[slot].key, block ^ LIVE_KEY_MASK, memory_order_relaxed);
        if (current == LIVE_EMPTY)
            atomic_store_explicit(&generation->filled, filled + 1, memory_order_relaxed);
        return true;
    }
    return false;
}

LF_INLINE bool live_remove_single(uintptr_t block, uint64_t *site_and_size)
{
    if (LF_UNLIKELY(atomic_load_explicit(&live.count, memory_order_relaxed) != 1))
        return false;
    struct live_generation *generation = &live.generations[0];
    uint32_t mask = generation->mask;
    struct live_slot *slots = generation->slots;
    uintptr_t key = block ^ LIVE_KEY_MASK;
    uint32_t slot = live_home(block, mask);
    for (int probe = 0; probe <= LIVE_PROBES; probe++, slot = (slot + 1) & mask) {
        uintptr_t current = atomic_load_explicit(&slots[slot].key, memory_order_relaxed);
        if (current == key) {
            *site_and_size = slots[slot].site_and_size;
            atomic_store_explicit(&slots[slot].key, LIVE_TOMBSTONE, memory_order_relaxed);
            return true;
        }
        if (current == LIVE_EMPTY)
            return false;
    }
    return false;
}

#endif
