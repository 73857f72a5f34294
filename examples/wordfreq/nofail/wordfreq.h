/* wordfreq.h — word counts of a text (NOFAIL version: only wf_load may fail). */
#ifndef WORDFREQ_H
#define WORDFREQ_H

#include <stddef.h>
#include <stdio.h>

#define WF_BUCKETS 64
#define WF_CHUNK 65536 /* read buffer: above the NOFAIL threshold (32768), so it may fail */

struct wf_table;

struct wf_table *wf_new(void);
void wf_add(struct wf_table *table, const char *word, size_t length);
int wf_load(struct wf_table *table, FILE *in); /* -1: out of memory, I/O */
unsigned long wf_count(const struct wf_table *table, const char *word);
size_t wf_words(const struct wf_table *table);
void wf_free(struct wf_table *table);

#endif
