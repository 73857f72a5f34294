/*
 * policy.h — which sites a NOFAIL policy ("too small to fail") exempts from failure
 * (doc/guide/faults.md). One rule, shared by the scheduler (what `--policy nofail` never
 * fails) and the coverage analysis (which error legs that policy makes dead code), so the two
 * can never disagree.
 */
#ifndef FAILRUN_POLICY_H
#define FAILRUN_POLICY_H

#include "format/record.h"
#include "store/campaign.h"
#include "store/plan.h"

#include <sqlite3.h>

#include <stdbool.h>
#include <stdint.h>

#define NOFAIL_BELOW_DEFAULT 32768 /* 8 pages: the kernel's PAGE_ALLOC_COSTLY_ORDER */

/* A site is NOFAIL-eligible when it was requested with LF_NOFAIL, or when it is an allocation
   (KIND_ALLOC: not a failpoint, a system call or an I/O call) whose every request was at most
   `threshold` bytes. An I/O site never is: "too small to fail" is about memory, and a full disk
   or a failing device does not care how small the write was. `max_size` is the largest
   request recorded: the preload re-reports a site each time its largest request moves into a
   higher power-of-two class, so a recorded maximum below a power-of-two threshold is exact
   about the threshold. */
bool site_nofail_eligible(bool nofail, enum function_kind kind, uint64_t max_size,
                          uint64_t threshold);

/* The sites this campaign may plan failures at, as the store applies it (store/plan.h): never
   the NOFAIL ones (they cannot fail); under --policy nofail, not the eligible ones either. */
struct store_failable failable_sites(const struct campaign_settings *settings);

/* Is this stack (its first frame outside libc and failrun) an allocation of gcov's own runtime
   (libgcov, linked into a target built with --coverage, allocates while it writes the .gcda
   files at exit)? Failing it tests the instrumentation, not the program, and loses the run's
   coverage: such allocations are not the program's sites at all, never stored (database_store_records),
   planned, counted or reported. The modules of the stack must be in the database. Callers hold
   the campaign's lock (one symboliser, cached here). */
bool frames_are_instrumentation(sqlite3 *db, const struct frame_list *frames);

#endif
