/*
 * ktitle.h — the title of a kernel bug report, as a kernel developer files it: the report's kind
 * and the first function that is not the reporting machinery ("KASAN: use-after-free Read in
 * pipe_write", "WARNING in lkdtm_WARNING", "possible deadlock in pipe_lock", "memory leak in
 * alloc_pipe_info"), the form syzbot titles its reports in. Kernel findings are deduplicated by
 * it. Pure functions: no database.
 */
#ifndef KTITLE_H
#define KTITLE_H

#include <stdbool.h>
#include <stddef.h>

/* The title of the first report of the kernel's own in `log` (kernel log lines, or the text of
   /sys/kernel/debug/kmemleak), malloc'ed; NULL when the log holds none. */
char *kernel_report_title(const char *log);

/* The first function of `log`'s first call trace (kernel stack lines " name+0xOFF/0xSIZE" or
   kmemleak's "[<address>] name+0x...") that is not the kernel's reporting, locking, allocation or
   debugging machinery, copied into `out` (size `size`); false when there is none. */
bool kernel_report_culprit(const char *log, char *out, size_t size);

#endif
