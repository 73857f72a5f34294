/*
 * source.h — source scope (`failrun run --source GLOB`): which sites a campaign fails, by the
 * DWARF source file of each site's first own frame. Tests and library linked into one
 * executable: `--source 'src/[*].c'` fails only the library's allocations, not the tests' own.
 */
#ifndef FAILRUN_SOURCE_H
#define FAILRUN_SOURCE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

/* Is `file` (a source path as the symboliser reports it) in the scope `globs` (':'-separated
   fnmatch patterns)? Each glob is tried against the whole path and each of its tails after a
   '/' (src/a.c and a.c of /home/me/src/a.c). A glob starting with '!' excludes what it
   matches ("!tests/[*]": everything but the tests); the file is in scope when no exclusion
   matches it and an inclusion does, or there are only exclusions.
   Empty or NULL globs match everything; an unknown file ("" or NULL) matches no glob. */
bool source_matches(const char *globs, const char *file);

/* "a.c,lib" (one --source argument, comma-separated) appended to `existing` as
   ':'-separated globs; newly allocated. */
char *source_globs_add(const char *existing, const char *argument);

/* Look up the source file of every site not looked up yet and mark those outside `globs`
   (sites.outside_source): they are recorded, never planned, not counted as sites. No-op when
   globs is empty. */
void sites_mark_source(sqlite3 *db, const char *globs);

struct symboliser;
struct module_map;
struct frame_list;

/* Crash stacks (frame 0 the faulting pc) judged against the scope `globs`; both false when globs
   is empty, and a frame whose file the debug info does not name (stripped code, gcov's runtime)
   is never judged outside. A frame inlined from a system header (glibc's fortify wrappers)
   counts as the function it was inlined into.
   crash_outside_source: the first own frame is outside the scope and no own frame below it is
   inside: the code under test had returned to its caller, whose own code crashed.
   crash_at_entry_from_outside: the first own frame is inside the scope, not inlined, and its
   caller outside: the function of the code under test that the caller called directly. */
bool crash_outside_source(struct symboliser *symboliser, const struct module_map *map,
                          const struct frame_list *frames, const char *globs);
/* The first own frame of `crash` is outside the scope and is the very activation that called the
   code under test in `injection` (a failed allocation's stack): the first frame of `injection`
   outside the scope, below in-scope frames, with the same callers below it as far as both
   stacks reach. A handler the code under test called back, which called into it in turn and
   crashed on what that call returned (an assert on its NULL). */
bool crash_in_calling_activation(struct symboliser *symboliser, const struct module_map *map,
                                 const struct frame_list *crash, const struct frame_list *injection,
                                 const char *globs);
bool crash_at_entry_from_outside(struct symboliser *symboliser, const struct module_map *map,
                                 const struct frame_list *frames, const char *globs);

/* ---- allocation wrappers (`--wrapper FUNC`) ----
   A site whose first own frame is in a function that only forwards to the allocator
   (jsonp_malloc, xmalloc) is named after that function's caller, and its leaks are told apart
   by the caller. The rule: a function named by --wrapper, or one whose name ends like an
   allocator's (wrapper_name_pattern) or like fopen's (curl_dbg_fopen: it returns the FILE
   fopen allocated) and that is the first own frame of sites reached from at least two distinct
   callers (a function with one caller is that caller's own code). */

/* Does the name end like an allocator's: ...alloc, ...strdup, ...strndup, ...memdup (any case,
   any prefix: xmalloc, jsonp_malloc, cJSON_calloc, kv_xstrdup)? */
bool wrapper_name_pattern(const char *function);
/* Is `function` one of the ':'-separated names in `wrappers`? */
bool wrapper_named(const char *function, const char *wrappers);
/* The campaign's wrappers by the rule above, over every stored site: ':'-separated function
   names, `named` (the --wrapper list, may be NULL) first; newly allocated. */
char *wrappers_find(sqlite3 *db, struct symboliser *symboliser, const char *named);

/* ---- an allocation wrapper's own bookkeeping ----
   A wrapper that allocates for its caller may allocate for itself too: curl's debug allocator
   curl_dbg_malloc calls malloc for its caller and curl_dbg_log, which allocates the line it
   writes to its log. Such a site is the wrapper's, not the program's: its failure can only cost
   the wrapper a log line, and the program's own error legs never see it (curl's torture test
   never fails it either). The rule, over every stored site: a function F that is the first own
   frame of a site, is no wrapper itself, and is called directly by a wrapper W (`wrappers`, as
   wrappers_find gives them) that is in turn the first own frame of a site of its own (W
   allocates itself); every site whose first own frame is F is then marked with F
   (sites.bookkeeping) and gets no fault run. A wrapper that only forwards to a helper that
   allocates (pool_alloc calling refill) has no allocation of its own, so its helper's sites
   stay the program's. Returns how many such functions there are. */
size_t sites_mark_bookkeeping(sqlite3 *db, struct symboliser *symboliser, const char *wrappers);

/* ---- a leak inside a system library ----
   A leak is the system library's (doc/guide/outcomes.md: a fault inside a system library is headlined
   there) when the leaked block's allocation, the failed call and the loss all lie inside it:
   below the program's one call into the library (the same frame of the program's own code on
   both stacks), the allocation stack and the injection stack share library frames down to an
   activation of a library function that the program did not call itself (same function, and
   the same return addresses below it), and each stack's frames above that activation are the
   library's. The program never saw the block: glibc's setlocale -> _nl_find_locale allocates the
   normalised codeset, a later allocation fails, and _nl_find_locale returns NULL without
   freeing it. A block allocated in the function the program called (getline's buffer,
   strdup's copy) may be the program's to free: never the library's by this rule.
   Returns the index in `leaked` of that shared activation's frame, or -1. */
int system_leak_frame(struct symboliser *symboliser, const struct module_map *map,
                      const struct frame_list *leaked, const struct frame_list *injection);

#endif
