/*
 * leakcheck.h — confirming leaks with LeakSanitizer's scan (see leakcheck.c).
 */
#ifndef FAILRUN_LEAKCHECK_H
#define FAILRUN_LEAKCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct campaign_context;
struct job;
struct sanitizer_leak;

/* After the baseline is stored: its live counts into memory (no database access later). */
void leak_load_baseline(struct campaign_context *context);
/* Outside the database lock, after the run: if its live counts exceed the baseline's and it
   ended as the baseline did, replay it under LeakSanitizer (job->leaks, job->leak_scanned). */
void leak_confirm(struct campaign_context *context, struct job *job);
/* One allocation site that leaked: an entry of the scan (for its stack), and what it leaked
   beyond the baseline's scan. */
struct confirmed_leak {
    const struct sanitizer_leak *leak;
    uint64_t bytes, objects;
    bool direct;
};

/* The confirmed leaks of a scanned run: up to `max` allocation sites that leaked more bytes
   than in the baseline's scan (direct leaks; indirect ones only when there is no direct one),
   and the bytes leaked in all. */
size_t leak_confirmed(const struct campaign_context *context, const struct job *job,
                      struct confirmed_leak *out, size_t max, uint64_t *total_bytes);

#endif
