/*
 * sanitizer.h — reports of AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer that a
 * target built with -fsanitize=... wrote into its run folder (failrun points their log_path
 * there, with symbolize=0 so every frame reads "(module+0xoffset)"), parsed into stacks of the
 * same (module, offset) frames the preload records.
 */
#ifndef FAILRUN_SANITIZER_H
#define FAILRUN_SANITIZER_H

#include "store/ingest.h"
#include "base/util.h"

#include <stdbool.h>

#define SANITIZER_LOG "sanitizer" /* log_path prefix in the run folder: sanitizer.<pid> */

struct sanitizer_report {
    char kind[160];   /* "attempting double-free", "detected memory leaks", "runtime error: ..." */
    bool crash;       /* a SEGV or other fatal signal the sanitizer caught */
    int frame_count;
    char *paths[RECORD_MAX_FRAMES];
    uint64_t offsets[RECORD_MAX_FRAMES]; /* as return addresses (printed pc + 1) */
};

/* The first report of the run (files in pid order), false when there is none. */
bool sanitizer_read(const char *dir, struct sanitizer_report *out);
/* Parse one report's text (exposed for tests). */
bool sanitizer_parse(const char *text, struct sanitizer_report *out);
void sanitizer_report_free(struct sanitizer_report *report);
/* One entry of a LeakSanitizer report: "Direct leak of 100 byte(s) in 1 object(s) allocated
   from:" and its allocation stack. */
struct sanitizer_leak {
    bool direct;
    uint32_t pid; /* of the process that reported it (from the file name) */
    uint64_t bytes, objects;
    int frame_count;
    char *paths[RECORD_MAX_FRAMES];
    uint64_t offsets[RECORD_MAX_FRAMES]; /* as return addresses */
};
typedef VECTOR(struct sanitizer_leak) sanitizer_leak_list;

/* Every leak entry of every LeakSanitizer report in the files `dir`/`prefix`.<pid>, appended to
   `out`. Returns the number of report files that ended their scan (a report of leaks, or none:
   LeakSanitizer writes no file when it found nothing, so 0 files means "no leaks or no scan"). */
size_t sanitizer_read_leaks(const char *dir, const char *prefix, sanitizer_leak_list *out,
                            bool *scan_failed);
/* Parse one report's text (exposed for tests). Returns false when it is no leak report. */
bool sanitizer_parse_leaks(const char *text, sanitizer_leak_list *out, bool *scan_failed);
void sanitizer_leaks_free(sanitizer_leak_list *list);

/* The module a sanitizer named `name`: itself when it is a full path; else the first of `known`
   (full paths) that ends in it, one ending in "/name" first; `name` when none does. A runtime
   given strip_path_prefix (git's test-lib.sh sets its build folder) names a module by what is left
   of its path, and a frame of a module no symboliser can open is "??". */
const char *sanitizer_module_path(const char *name, char *const *known, size_t count);

/* The options failrun adds to ASAN_OPTIONS / UBSAN_OPTIONS for a run in `dir`. */
char *sanitizer_options(const char *existing, const char *dir, bool undefined);
/* The reverse, for a value a process of a run had: *ours tells whether it ends with what
   sanitizer_options added; the part before it (the user's), or NULL when there is none. */
char *sanitizer_user_options(const char *value, bool undefined, bool *ours);

#endif
