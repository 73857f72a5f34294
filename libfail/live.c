/*
 * live.c — the table of live blocks: which caller allocated each block still live, and its size,
 * for leak accounting (LIVE records at exit) and lf_live_since (the cmocka OOM loop). The layout
 * and the hot paths are in live.h; this file maps, grows and scans.
 *
 * Why it grows: a table sized for the largest program touches a fresh page for nearly every
 * allocation of every run (a hash scatters blocks over all of it), and fork mode then copies those
 * pages. This one starts at 4096 slots and is rebuilt larger (or smaller) as the live count
 * demands, so the memory it touches follows the blocks actually live: 16 bytes a slot, rebuilt
 * when 3/4 of the slots were ever taken, to a size the live blocks fill at most 3/8 of.
 *
 * Runs inside the target, on every tracked allocation and free:
 * - never calls malloc: tables are anonymous mmap (MAP_NORESERVE; the serial array beside the
 *   slots is touched only once lf_live_mark was called);
 * - takes no lock fork can leave held. A single-threaded process (glibc's
 *   __libc_single_threaded, which turns false before a second thread starts) rebuilds in place:
 *   copies the live entries into a new table and unmaps the old ones, nobody else can be looking.
 *   A process with threads cannot move entries other threads may be claiming, so it adds a
 *   generation instead: a new table, at least twice the newest, takes every insert from then on,
 *   and a removal looks in each generation from the newest down. Threads grow the table only
 *   when live entries crowd it (an insert looked LIVE_CROWDED slots far): removed slots are
 *   reused, and cannot be cleaned out without moving entries. Only one thread builds a
 *   generation at a time (a flag taken with compare-and-swap); the others insert into the newest
 *   table while it has room, and one that finds none waits for the builder, bounded. A fork
 *   child resets the flag, since the thread holding it does not exist there;
 * - is never entered from a signal handler of the thread inside it: callers hold runtime_guard.
 */

#include "live.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

struct live_state live;

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

void LF_TEXT live_table_crowded(int seen_count, bool with_serials)
{
    live_grow(seen_count, with_serials);
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
    return live_remove(block, site, size);
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
