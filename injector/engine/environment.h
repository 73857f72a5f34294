/*
 * environment.h — what a run is told: the preload it gets, its plan (LIBFAIL_PLAN), its whole
 * environment, and the default scope decided from the baseline.
 */
#ifndef FAILRUN_ENVIRONMENT_H
#define FAILRUN_ENVIRONMENT_H

#include "store/campaign.h"

#include <jansson.h>
#include <stdint.h>

/* Where the campaign's preload is: libfail-preload.so, for --faults io libfail-preload-io.so, for
   kernel campaigns libfail-kernel.so; $LIBFAIL_PRELOAD ($LIBFAIL_IO_PRELOAD,
   $LIBFAIL_KERNEL_PRELOAD), next to failrun, or in ../lib/libfail/. */
char *preload_path(const struct campaign_settings *settings);
/* The NULL-terminated "NAME=value" list for one run; free with environment_free. */
/* The lengths run_environment gives a run's folder (LIBFAIL_DIR, the sanitizers' log folder;
   its coverage folder has 5 more), its plan (LIBFAIL_PLAN) and its scope (LIBFAIL_EXE), whatever
   the run: longer ones are left as they are. */
#define RUN_DIR_WIDTH 192
#define RUN_PLAN_WIDTH 512
#define RUN_SCOPE_WIDTH 256
/* `text` padded to `width` with `pad` (never cut). */
char *padded(const char *text, size_t width, char pad);
char **run_environment(const struct campaign_settings *settings, const char *run_dir,
                       const char *plan);
/* The complete environment of a run that starts one program of the baseline alone: the
   environment it had there (`recorded`, NULL-terminated) without what failrun added for the
   baseline (its preload in LD_PRELOAD, LIBFAIL_*, GCOV_PREFIX*, its sanitizer options), plus
   run_environment's values for this run. Free with environment_free. */
char **program_environment(const struct campaign_settings *settings, char *const *recorded,
                           const char *run_dir, const char *plan);
/* The LIBFAIL_PLAN of a fault run: `chain` ("S1:K1,S2:K2,...") in site mode, else the
   campaign's nth (with `nth`) or random (with `seed`) mode. */
char *plan_text(const struct campaign_settings *settings, const char *chain, uint64_t nth,
                uint64_t seed);
/* The baseline's: record every site, fail nothing. */
char *plan_record(const struct campaign_settings *settings);
/* A run's plan as given to it: a stored plan that fails something with the campaign's
   ";cpu=MS" (plan.c). */
char *plan_with_cpu_limit(const struct campaign_settings *settings, const char *plan);
/* The same for a run of `program` alone (NULL: the command): the lower of its own limit, from
   its time alone, and the campaign's. */
struct program;
char *plan_with_program_cpu_limit(const struct campaign_settings *settings, const char *plan,
                                  const struct program *program);
/* ";faults=..." for a plan of the campaign's kinds of call ("" for allocations only). */
const char *fault_kinds_suffix(const struct campaign_settings *settings);

/* The default scope, decided from the baseline's processes: when the command starts programs of
   the user's own (outside the system's folders), those are under test and the command is only a
   launcher (make, sh, a test harness); otherwise the command itself is under test. The suite's
   fixtures are left out ("!EXE" entries), each added to `fixtures` (exe -> why). --exe wins. */
char *decide_scope(const struct campaign_settings *settings, const struct run_records *baseline,
                   json_t *fixtures);
/* Why a process of the baseline is a fixture (a test server, a daemon), or NULL: it outlived
   the process that started it, or it served a socket or left its session and did not end by
   itself (its harness or failrun stopped it). A program that listens and ends by itself (a
   test of a network library) is under test. */
const char *fixture_reason(const struct ingest_process *process);
bool scope_includes(const char *scope, const char *exe);

#endif
