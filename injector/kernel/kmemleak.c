/*
 * kmemleak.c — kmemleak's report, read (kmemleak.h).
 *
 * The report (Linux 6.1, mm/kmemleak.c) is one block per unreferenced object:
 *
 *   unreferenced object 0xffff888003a1b000 (size 64):
 *     comm "mq_open_tests", pid 123, jiffies 4294893456 (age 12.345s)
 *     hex dump (first 32 bytes):
 *       ...
 *     backtrace:
 *       [<ffffffff81234567>] kmalloc_trace+0x26/0x60
 *       ...
 *
 * The pid is the allocating task's, a thread id; failrun kernel stores the thread of each armed
 * call (kernel_faults.pid), so a leak allocated inside an armed call is that run's.
 */
#include "kernel/kmemleak.h"
#include "store/kernelrows.h"

#include <stdlib.h>
#include <string.h>

#define OBJECT_START "unreferenced object "

size_t kmemleak_parse(const char *text, void (*each)(const struct kmemleak_leak *leak, void *data),
                      void *data)
{
    size_t count = 0;
    const char *at = text ? strstr(text, OBJECT_START) : NULL;
    while (at) {
        const char *next = strstr(at + 1, "\n" OBJECT_START);
        size_t length = next ? (size_t)(next + 1 - at) : strlen(at);
        struct kmemleak_leak leak = {.text = at, .length = length};
        const char *pid = strstr(at, ", pid ");
        if (pid && (size_t)(pid - at) < length)
            leak.pid = (uint32_t)strtoul(pid + 6, NULL, 10);
        count++;
        each(&leak, data);
        at = next ? next + 1 : NULL;
    }
    return count;
}

int64_t kmemleak_run_of(sqlite3 *db, uint32_t pid, char site[17])
{
    return store_kernel_run_of_thread(db, pid, site);
}
