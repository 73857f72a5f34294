/*
 * kernelrows.h — the rows failrun kernel keeps per run: what each armed call did
 * (kernel_faults), the kernel allocation it failed (kernel_allocs), its KCOV PCs (kernel_cov)
 * and the error-leg lines found in them (kernel_legs, kernel_cov_done), and the report's counts
 * over them. The analysis itself is kernel/'s; here are only the rows.
 */
#ifndef FAILRUN_KERNELROWS_H
#define FAILRUN_KERNELROWS_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- what an armed call did ---- */

/* The fail-nth read back after run `run`'s armed call, in thread `pid`. */
void store_kernel_fault_add(sqlite3 *db, int64_t run, uint64_t nth, bool fired, bool call_failed,
                            int error, int64_t pid);

struct store_kernel_fault {
    int64_t nth;
    bool fired, call_failed;
    int error;
};
/* False when run `run` armed no call. */
bool store_kernel_fault_of_run(sqlite3 *db, int64_t run, struct store_kernel_fault *out);

/* The run whose armed call ran in thread `pid` (its site into `site`), 0 unless exactly one
   fault run did. */
int64_t store_kernel_run_of_thread(sqlite3 *db, uint32_t pid, char site[17]);

/* The kernel allocation an armed call failed (kmem.h's parse of its trace). */
struct store_kernel_alloc {
    const char *kind, *call_site, *frames;
    uint64_t bytes_req, bytes_alloc;
    int64_t gfp;
    bool via_page, too_small;
    const char *can_fail; /* why it can fail; NULL: it cannot (too_small) */
};
void store_kernel_alloc_add(sqlite3 *db, int64_t run, const struct store_kernel_alloc *alloc);
/* Calls `each` with the allocation of run `run` when the trace named one; the strings live
   until `each` returns. */
void store_kernel_alloc_of_run(sqlite3 *db, int64_t run,
                               void (*each)(const struct store_kernel_alloc *alloc, void *data),
                               void *data);

/* ---- KCOV ---- */

/* Run `run`'s PCs (sorted, distinct). */
void store_kernel_cov_add(sqlite3 *db, int64_t run, const uint64_t *pcs, size_t count);
/* Does any run have PCs? */
bool store_kernel_cov_present(sqlite3 *db);
/* The fired runs with PCs whose legs are not counted yet. */
int store_kernel_cov_pending(sqlite3 *db);

/* One run with PCs, sites in order and each site's runs by id: `pcs` holds `count` 64-bit PCs,
   unaligned (copy them out), valid until `each` returns. */
struct store_kernel_cov_run {
    int64_t run;
    const char *site;
    bool fired, done;
    const void *pcs;
    size_t count;
};
void store_kernel_cov_runs_each(sqlite3 *db,
                                void (*each)(const struct store_kernel_cov_run *run, void *data),
                                void *data);

/* The legs of the runs are written in one transaction (BEGIN ... COMMIT, deferred). */
void store_kernel_legs_begin(sqlite3 *db);
void store_kernel_legs_commit(sqlite3 *db);
/* A line run `run` reached only with its fault (`function`: NULL when unknown). */
void store_kernel_leg_add(sqlite3 *db, const char *file, int64_t line, int64_t run,
                          const char *function);
/* Run `run`'s legs are counted: `leg_pcs` of them, -1 when there was nothing to compare with. */
void store_kernel_cov_done(sqlite3 *db, int64_t run, int64_t leg_pcs);

/* The campaign's vmlinux (failrun kernel --vmlinux), NULL when none; malloc'ed. */
char *store_campaign_vmlinux(sqlite3 *db);
void store_campaign_set_vmlinux(sqlite3 *db, const char *path);
/* The build-id (hex) of the kernel the campaign ran on, NULL when unknown; malloc'ed. */
char *store_campaign_kernel_build_id(sqlite3 *db);

/* The error-leg lines by file: [{path, legs, only_too_small, lines: [{line, runs, function,
   only_too_small}]}] (kernelcov.h, kernelcov_files). */
json_t *store_kernel_leg_files(sqlite3 *db);

/* ---- the report's counts ---- */

/* Has any run's legs been counted? */
bool store_kernel_legs_analysed(sqlite3 *db);
/* Per system call: its error-leg lines, and of them those only failures too small to fail
   reached. */
void store_kernel_leg_counts_each(sqlite3 *db,
                                  void (*each)(const char *function, int64_t lines,
                                               int64_t only_too_small, void *data),
                                  void *data);
/* Per system call, by name: its sites, fault points failed, allocations named, too small to
   fail, and the findings of its sites (the program's, the kernel's). */
struct store_kernel_call {
    const char *function;
    int64_t sites, fault_points, allocations_named, too_small, userspace_findings,
        kernel_findings;
};
void store_kernel_calls_each(sqlite3 *db,
                             void (*each)(const struct store_kernel_call *call, void *data),
                             void *data);
/* Per error-leg line (by file and line): its file, whether only failures too small to fail
   reached it, whether one that can fail did. */
void store_kernel_leg_lines_each(sqlite3 *db,
                                 void (*each)(const char *file, bool only_too_small,
                                              bool can_fail, void *data),
                                 void *data);
/* The system calls with sites, and those swept. False when unknown. */
bool store_kernel_call_counts(sqlite3 *db, int64_t *with_sites, int64_t *swept);
/* The sites with armed runs, in the order of their first run. */
void store_kernel_swept_sites_each(sqlite3 *db, void (*each)(const char *site, void *data),
                                   void *data);
/* The armed runs of `site` by N: each run and its outcome (NULL when none). */
void store_kernel_sweep_runs_each(sqlite3 *db, const char *site,
                                  void (*each)(int64_t run, const char *outcome, void *data),
                                  void *data);

#endif
