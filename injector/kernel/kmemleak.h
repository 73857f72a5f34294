/*
 * kmemleak.h — the kernel's memory leaks, from /sys/kernel/debug/kmemleak (CONFIG_DEBUG_KMEMLEAK
 * with kmemleak=on), each credited to the run whose armed call's thread allocated it.
 */
#ifndef KMEMLEAK_H
#define KMEMLEAK_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* One unreferenced object of kmemleak's report. */
struct kmemleak_leak {
    uint32_t pid;      /* the allocating thread (kmemleak's "pid") */
    const char *text;  /* its whole block of the report, "unreferenced object ..." on */
    size_t length;
};

/* Calls `each` for every object of kmemleak's report `text`; returns how many there were. */
size_t kmemleak_parse(const char *text, void (*each)(const struct kmemleak_leak *leak, void *data),
                      void *data);

/* The fault run of a kernel campaign whose armed call was made by thread `pid`: its id and site
   (16 hex digits into `site`); 0 when no run, or several (the pid was reused), made one. */
int64_t kmemleak_run_of(sqlite3 *db, uint32_t pid, char site[17]);

#endif
