/*
 * live.c — the table of live blocks: which caller allocated each block still live, and its size,
 * for leak accounting (LIVE records at exit) and lf_live_since (the cmocka OOM loop).
 *
 * Why it grows: a table sized for the largest program touches a fresh page for nearly every
 * allocation of every run (a hash scatters blocks over all of it), and fork mode then copies those
 * pages. This one starts at LIVE_INITIAL slots and is rebuilt larger (or smaller) as the live
 * count demands, so the memory it touches follows the blocks actually live: 16 bytes a slot, at
 * most 3/4 full, a quarter of that right after a rebuild.
 *
 * Runs inside the target, on every tracked allocation and free:
 * - never calls malloc: tables are anonymous mmap (MAP_NORESERVE; the serial array beside the
 *   slots is touched only once lf_live_mark was called);
 * - takes no lock fork can leave held. A single-threaded process (glibc's
 *   __libc_single_threaded, which turns false before a second thread starts) rebuilds in place:
 *   copies the live entries into a new table and unmaps the old ones, nobody else can be looking.
 *   A process with threads cannot move entries other threads may be claiming, so it adds a
 *   generation instead: a new table, at least twice the newest, takes every insert from then on,
 *   and a removal looks in each generation from the newest down. Only one thread builds a
 *   generation at a time (a flag taken with compare-and-swap, never waited on: a thread that
 *   finds it taken inserts into the newest table while it still has room); a fork child resets
 *   the flag, since the thread holding it does not exist there;
 * - is never entered from a signal handler of the thread inside it: callers hold runtime_guard.
 */

#include "internal.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
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

static struct {
    struct live_generation generations[LIVE_GENERATIONS];
    _Atomic int count;     /* generations in use; the newest is count - 1 */
    _Atomic bool building; /* a thread is building a generation */
    _Atomic bool overflow; /* a block found no slot: leak counts are partial */
    _Atomic bool cannot_grow; /* a larger table could not be mapped: never try again */
} live;

LF_INLINE bool live_single_threaded(void)
{
#if __has_include(<sys/single_threaded.h>)
    return __libc_single_threaded;
#else
    return false;
#endif
}

/* A block's home slot: a full mix (murmur3's finaliser) of its address. Not windows keyed by
   the stretch of heap (tried: blocks of one stretch sharing cache lines): the heaps of threads
   are laid out alike and windows of several stretches stack up into runs longer than a probe
   may go. */
LF_INLINE uint32_t live_home(uintptr_t block, uint32_t mask)
{
    uint64_t mixed = (uint64_t)block >> 4;
    mixed = (mixed ^ (mixed >> 33)) * 0xff51afd7ed558ccdull;
    mixed ^= mixed >> 33;
    return (uint32_t)mixed & mask;
}

static size_t LF_TEXT generation_bytes(uint32_t capacity)
{
    return (size_t)capacity * (sizeof(struct live_slot) + sizeof(uint64_t));
}

static bool LF_TEXT generation_map(struct live_generation *generation, unsigned bits, bool populate)
{
    uint32_t capacity = UINT32_C(1) << bits;
    void *memory = mmap(NULL, generation_bytes(capacity), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED)
        return false;
    generation->slots = memory;
    generation->serials = (uint64_t *)(generation->slots + capacity);
#ifdef MADV_POPULATE_WRITE
    /* A table is scattered over at once (a rebuild fills a quarter of its slots): fault its
       slots in with one system call, not a page fault each. The serials stay untouched. */
    if (populate)
        madvise(memory, (size_t)capacity * sizeof(struct live_slot), MADV_POPULATE_WRITE);
#endif
    generation->mask = capacity - 1;
    atomic_store_explicit(&generation->filled, 0, memory_order_relaxed);
    return true;
}

static void LF_TEXT generation_unmap(struct live_generation *generation)
{
    munmap(generation->slots, generation_bytes(generation->mask + 1));
    generation->slots = NULL;
}

/* The first generation; called once tracking starts (initialise, or lf_live_mark), before any
   insert can run. */
bool LF_TEXT live_table_init(void)
{
    bool expected = false;
    if (atomic_load(&live.count))
        return true;
    if (!atomic_compare_exchange_strong(&live.building, &expected, true))
        return false;
    bool ready = atomic_load(&live.count) || generation_map(&live.generations[0], LIVE_INITIAL_BITS, false);
    if (ready && !atomic_load(&live.count))
        atomic_store_explicit(&live.count, 1, memory_order_release);
    atomic_store(&live.building, false);
    return ready;
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

static uint64_t LF_TEXT count_live(int count)
{
    uint64_t total = 0;
    for (int g = 0; g < count; g++) {
        const struct live_generation *generation = &live.generations[g];
        for (uint32_t slot = 0; slot <= generation->mask; slot++) {
            uintptr_t key = atomic_load_explicit(&generation->slots[slot].key, memory_order_relaxed);
            total += key != LIVE_EMPTY && key != LIVE_TOMBSTONE;
        }
    }
    return total;
}

/* The size of table that holds `blocks` at most 3/8 full: room to double before the next
   rebuild (at 3/4). */
static unsigned LF_TEXT bits_for(uint64_t blocks)
{
    unsigned bits = LIVE_INITIAL_BITS;
    while (bits < LIVE_MAX_BITS && blocks * 8 > (UINT64_C(3) << bits))
        bits++;
    return bits;
}

/* Single-threaded: one new table with every live entry of every generation, the old ones gone. */
static bool LF_TEXT rebuild_single(int count, bool with_serials)
{
    struct live_generation fresh;
    if (!generation_map(&fresh, bits_for(count_live(count)), true))
        return false;
    for (int g = 0; g < count; g++) {
        struct live_generation *old = &live.generations[g];
        for (uint32_t slot = 0; slot <= old->mask; slot++) {
            uintptr_t key = atomic_load_explicit(&old->slots[slot].key, memory_order_relaxed);
            if (key == LIVE_EMPTY || key == LIVE_TOMBSTONE || key == LIVE_CLAIMED)
                continue;
            if (!generation_insert(&fresh, key, old->slots[slot].site_and_size, with_serials,
                                   with_serials ? old->serials[slot] : 0, true)) {
                generation_unmap(&fresh); /* cannot happen below 3/8 full; keep what works */
                return false;
            }
        }
    }
    for (int g = 0; g < count; g++)
        generation_unmap(&live.generations[g]);
    live.generations[0] = fresh;
    atomic_store_explicit(&live.count, 1, memory_order_release);
    return true;
}

/* Threads: a new newest generation, at least twice the current newest. */
static bool LF_TEXT add_generation(int count)
{
    if (count >= LIVE_GENERATIONS)
        return false;
    unsigned newest_bits = (unsigned)__builtin_ctz(live.generations[count - 1].mask + 1);
    unsigned bits = bits_for(count_live(count));
    if (bits <= newest_bits)
        bits = newest_bits + 1;
    if (bits > LIVE_MAX_BITS || !generation_map(&live.generations[count], bits, true))
        return false;
    atomic_store_explicit(&live.count, count + 1, memory_order_release);
    return true;
}

enum grow_result { GROWN, BUSY, CANNOT_GROW };

/* The newest table is full or too crowded: rebuild, one thread at a time. Once a table could
   not be mapped, every later insert that finds no slot would try again and fail again, each
   time at the cost of a scan: the table stays as it is and the overflow flag tells. */
static enum grow_result LF_TEXT live_grow(int seen_count, bool with_serials)
{
    bool expected = false;
    if (atomic_load_explicit(&live.cannot_grow, memory_order_relaxed))
        return CANNOT_GROW;
    if (!atomic_compare_exchange_strong(&live.building, &expected, true))
        return BUSY;
    enum grow_result result = GROWN;
    int count = atomic_load_explicit(&live.count, memory_order_acquire);
    if (count == seen_count &&
        !(live_single_threaded() ? rebuild_single(count, with_serials) : add_generation(count))) {
        atomic_store(&live.cannot_grow, true);
        result = CANNOT_GROW;
    }
    atomic_store(&live.building, false);
    return result;
}

/* Another thread is building the next table and this one found no slot: let it finish. Not
   a lock: the builder holds nothing a fork could keep (a fork child clears the flag), and the
   wait is bounded, after which the block goes untracked and the overflow flag tells. */
static void LF_TEXT wait_for_builder(int seen_count)
{
    for (long spin = 0; spin < 1000000; spin++) {
        if (!atomic_load_explicit(&live.building, memory_order_acquire) ||
            atomic_load_explicit(&live.count, memory_order_acquire) != seen_count)
            return;
        sched_yield();
    }
}

bool LF_TEXT live_table_insert(uintptr_t block, uint32_t site, uint64_t size, bool with_serial,
                               uint64_t serial)
{
    uintptr_t key = block ^ LIVE_KEY_MASK;
    uint64_t site_and_size =
        ((uint64_t)site << LIVE_SIZE_BITS) | (size < LIVE_SIZE_MAX ? size : LIVE_SIZE_MAX);
    for (int attempt = 0; attempt < 64; attempt++) {
        int count = atomic_load_explicit(&live.count, memory_order_acquire);
        if (count == 0)
            break;
        struct live_generation *newest = &live.generations[count - 1];
        bool single = live_single_threaded();
        /* Single-threaded, a rebuild clears removed slots out, so it comes when 3/4 of the
           slots were ever taken. With threads a new generation cannot, and a program that
           allocates and frees for hours would double it again and again: removed slots are
           reused by inserts, so only live entries crowding the table (a long probe) count. */
        if (single && generation_full(newest) && live_grow(count, with_serial) == GROWN)
            continue;
        int probes = generation_insert(newest, key, site_and_size, with_serial, serial, single);
        if (probes) {
            if (!single && probes > LIVE_CROWDED)
                live_grow(count, with_serial);
            return true;
        }
        /* No slot within reach: grow now, or let the thread that is growing finish. */
        enum grow_result grown = live_grow(count, with_serial);
        if (grown == CANNOT_GROW)
            break;
        if (grown == BUSY)
            wait_for_builder(count);
    }
    atomic_store(&live.overflow, true);
    return false;
}

bool LF_TEXT live_table_remove(uintptr_t block, uint32_t *site, uint64_t *size)
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

size_t LF_TEXT live_table_since(uint64_t mark, uintptr_t *blocks, size_t *sizes, uint32_t *sites,
                                size_t max)
{
    size_t found = 0;
    int count = atomic_load_explicit(&live.count, memory_order_acquire);
    for (int g = 0; g < count; g++) {
        const struct live_generation *generation = &live.generations[g];
        for (uint32_t slot = 0; slot <= generation->mask; slot++) {
            uintptr_t key = atomic_load_explicit(&generation->slots[slot].key, memory_order_acquire);
            if (key == LIVE_EMPTY || key == LIVE_TOMBSTONE || key == LIVE_CLAIMED ||
                generation->serials[slot] <= mark)
                continue;
            if (found < max) {
                uint64_t site_and_size = generation->slots[slot].site_and_size;
                blocks[found] = key ^ LIVE_KEY_MASK;
                sizes[found] = site_and_size & LIVE_SIZE_MAX;
                sites[found] = (uint32_t)(site_and_size >> LIVE_SIZE_BITS);
            }
            found++;
        }
    }
    return found;
}

bool LF_TEXT live_table_overflowed(void)
{
    return atomic_load(&live.overflow);
}

void LF_TEXT live_table_stats(uint64_t *slots, uint64_t *generations)
{
    int count = atomic_load(&live.count);
    *generations = (uint64_t)count;
    *slots = 0;
    for (int g = 0; g < count; g++)
        *slots += live.generations[g].mask + 1;
}

void LF_TEXT live_table_after_fork_child(void)
{
    /* The thread that was building is not in this process; its half-made table is harmless. */
    atomic_store(&live.building, false);
}
