/*
 * sanitizer.h — reports of AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer that a
 * target built with -fsanitize=... wrote into its run folder (failrun points their log_path
 * there, with symbolize=0 so every frame reads "(module+0xoffset)"), parsed into stacks of the
 * same (module, offset) frames the preload records.
 */
#ifndef FAILRUN_SANITIZER_H
#define FAILRUN_SANITIZER_H

#include "ingest.h"

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
/* The options failrun adds to ASAN_OPTIONS / UBSAN_OPTIONS for a run in `dir`. */
char *sanitizer_options(const char *existing, const char *dir, bool undefined);

#endif
