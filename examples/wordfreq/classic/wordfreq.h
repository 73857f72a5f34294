/* wordfreq.h — word counts of a text (classic version: every function may fail). */
#ifndef WORDFREQ_H
#define WORDFREQ_H

#include <stddef.h>
#include <stdio.h>

#define WF_BUCKETS 64
#define WF_CHUNK 65536 /* read buffer: above the NOFAIL threshold (32768) */

struct wf_table;

struct wf_table *wf_new(void);                                    /* NULL: out of memory */
int wf_add(struct wf_table *table, const char *word, size_t length); /* -1: out of memory */
int wf_load(struct wf_table *table, FILE *in);                    /* -1: out of memory, I/O */
unsigned long wf_count(const struct wf_table *table, const char *word);
size_t wf_words(const struct wf_table *table);
void wf_free(struct wf_table *table);

#endif
