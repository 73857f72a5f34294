/*
 * kernelcov.h — the kernel's error legs of failrun kernel --kcov: which kernel lines an armed
 * call ran only because of its injected failure. libfail-kernel.so leaves each armed call's
 * KCOV PCs in its run folder (kcov-PID.pcs); kernelcov_store_run keeps them per run, and
 * kernelcov_analyse compares, site by site, the runs whose fault fired with the run of the same
 * call that passed all its fault points (the end of the sweep), symbolising the PCs with libdw
 * against vmlinux. The lines reached only with the fault go to kernel_legs, credited to the run
 * (and so to the allocation kernel_allocs names for it).
 */
#ifndef INJECTOR_KERNELCOV_H
#define INJECTOR_KERNELCOV_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The PCs of run `run` from the kcov-*.pcs files in `dir`, sorted and distinct, into
   kernel_cov. False when there were none. */
bool kernelcov_store_run(sqlite3 *db, int64_t run, const char *dir);

/* The vmlinux to symbolise with: LIBFAIL_VMLINUX, else the campaign's (failrun kernel
   --vmlinux, stored with its settings). NULL when neither; malloc'ed. */
char *kernelcov_vmlinux(sqlite3 *db);

/* Fill kernel_legs for every fired run with PCs not analysed yet. Returns the number of runs
   analysed now; -1 when vmlinux cannot be read (a warning says why). */
int kernelcov_analyse(sqlite3 *db, const char *vmlinux);

/* True when the campaign has kernel PCs (failrun kernel --kcov ran). */
bool kernelcov_present(sqlite3 *db);
/* For a report: analyse what is new when the campaign has KCOV data and a vmlinux is known
   (remembering it), else warn. */
void kernelcov_prepare_report(sqlite3 *db);
/* The kernel error-leg lines by file, for failrun cov: [{path, legs, only_too_small, lines:
   [{line, runs, function, only_too_small}]}]; only_too_small: every run that reached the line
   failed an allocation too small to fail. */
json_t *kernelcov_files(sqlite3 *db);

/* Where a kernel source file's path, as vmlinux's DWARF records it (the build's own folder,
   often gone), enters the kernel tree: "fs/pipe.c" in ".../linux-6.1/fs/pipe.c", the first
   component that is one of the tree's top folders (fs, mm, arch, ...). NULL when none is. */
const char *kernel_tree_path(const char *path);
/* Each file of kernelcov_files read from source_dir (a kernel tree of the same version, e.g.
   an extracted linux-source) or, without it, from its recorded path: "source" the file read,
   and each line's "text". Files not found keep neither; a source_dir holding none of them is
   warned about. */
void kernelcov_attach_sources(json_t *files, const char *source_dir);
/* failrun cov's text of kernelcov_files: the count, then each file's legs. */
void kernelcov_print(json_t *files, FILE *out);
/* Each file of kernelcov_files as an lcov record: each leg line with the number of fault runs
   that reached it (the lines every run reached are not in the database: not listed). */
void kernelcov_write_lcov(json_t *files, FILE *out);

#endif
