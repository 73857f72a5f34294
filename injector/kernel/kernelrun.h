/*
 * kernelrun.h — what an armed run of failrun kernel did, into the database.
 */
#ifndef FAILRUN_KERNELRUN_H
#define FAILRUN_KERNELRUN_H

#include "store/ingest.h"

#include <sqlite3.h>
#include <stdint.h>

/* The armed call of run `run_id` (its records' kernel fault): N, whether it fired, whether the
   call failed and with which errno, into kernel_faults. */
void kernelrun_store_fault(sqlite3 *db, int64_t run_id, const struct run_records *records);
/* The allocation the injected failure hit, from the kmem trace libfail-kernel.so left in the run
   folder `dir` (kmem-PID.trace), with whether 6.1's page allocator could fail it, into
   kernel_allocs. */
void kernelrun_store_alloc(sqlite3 *db, int64_t run_id, const char *dir);

#endif
