/*
 * parts.h — what the files of the report share: stacks.c symbolises stacks, report.c builds the
 * model (a JSON document) with kernel.c's failrun kernel part, text.c prints it.
 */
#ifndef FAILRUN_REPORT_PARTS_H
#define FAILRUN_REPORT_PARTS_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>

#include <stdbool.h>

struct frame_list;
struct module_map;
struct symboliser;

/* ---- stacks.c ---- */
/* The string member `key` of a report object, or "?". */
const char *string_of(json_t *object, const char *key);
/* `frames` symbolised: one entry per frame and inlined call, each with its module's kinds
   (plumbing, tool, system). */
json_t *symbolise_stack(struct symboliser *symboliser, const struct module_map *map,
                        const struct frame_list *frames);
/* The first frame of a symbolised stack outside the plumbing (libc, the loader, libfail). */
json_t *stack_location(json_t *stack);
/* Where it went wrong: the first frame that is not failrun's or a sanitizer's runtime. */
json_t *fault_frame(json_t *stack);
/* Does the fault lie in the program's use of a system library rather than in the library? */
bool fault_in_caller(json_t *stack);
/* The symbolised stack of a stored site; its function and largest request. */
json_t *site_stack(sqlite3 *db, struct symboliser *symboliser, const struct module_map *map,
                   const char *site, json_t **function, json_t **max_size);

/* ---- kernel.c: failrun kernel's part ---- */
/* The kernel error legs per system call (--kcov), with the too-small-to-fail split. */
json_t *kernel_table(sqlite3 *db);
/* The census per kernel subsystem (fs/, net/, mm/, ...): error-leg lines, of them only via
   too-small-to-fail failures, and via failures that can happen; null without KCOV data. */
json_t *kernel_census(sqlite3 *db);
/* How many system calls have sites, and how many of them were swept (had a fault run). */
json_t *kernel_calls(sqlite3 *db);
/* What the armed call of run `run` did, and the allocation it failed, into `into`. */
void kernel_detail(sqlite3 *db, int64_t run, json_t *into);
/* The library function a trapped system call was made in for the program ("fopen" for the
   openat inside it), or NULL. */
json_t *syscall_via(struct symboliser *symboliser, json_t *stack, const char *name);
/* Each system-call site's sweep: for each N, what the call returned and the run's outcome. */
json_t *kernel_sweeps(sqlite3 *db);

#endif
