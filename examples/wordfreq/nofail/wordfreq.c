/*
 * wordfreq.c — count the words of a text, written for a NOFAIL allocator: the small
 * allocations say LF_NOFAIL (libfail retries them, with its reclaim callbacks, until they
 * succeed), so they need no error leg; only the 64 KiB read buffer may fail and keeps its leg.
 * Compare ../classic/wordfreq.c: the lines marked LEG(deletable) there are the ones gone here.
 */
#include "wordfreq.h"

#include <libfail.h>

#include <ctype.h>
#include <string.h>

struct wf_entry {
    char *word;
    unsigned long count;
    struct wf_entry *next;
};

struct wf_table {
    struct wf_entry **buckets;
    size_t words;
};

struct wf_table *wf_new(void)
{
    struct wf_table *table = lf_malloc(sizeof *table, LF_NOFAIL);
    table->words = 0;
    table->buckets = lf_calloc(WF_BUCKETS, sizeof *table->buckets, LF_NOFAIL);
    return table;
}

static size_t hash(const char *word, size_t length)
{
    size_t value = 5381;
    for (size_t i = 0; i < length; i++)
        value = value * 33 + (unsigned char)word[i];
    return value % WF_BUCKETS;
}

void wf_add(struct wf_table *table, const char *word, size_t length)
{
    struct wf_entry **slot = &table->buckets[hash(word, length)];
    for (struct wf_entry *entry = *slot; entry; entry = entry->next) {
        if (strlen(entry->word) == length && !memcmp(entry->word, word, length)) {
            entry->count++;
            return;
        }
    }
    struct wf_entry *entry = lf_malloc(sizeof *entry, LF_NOFAIL);
    entry->word = lf_malloc(length + 1, LF_NOFAIL);
    memcpy(entry->word, word, length);
    entry->word[length] = '\0';
    entry->count = 1;
    entry->next = *slot;
    *slot = entry;
    table->words++;
}

/* Reads all of `in` through one 64 KiB buffer: a request too big for the NOFAIL policy. */
int wf_load(struct wf_table *table, FILE *in)
{
    char *buffer = lf_malloc(WF_CHUNK, LF_MAYFAIL);
    if (!buffer)
        return -1; /* LEG(kept) */
    size_t length = fread(buffer, 1, WF_CHUNK, in);
    if (ferror(in)) { /* UNTAKEN: fread's buffer may fail, but then fread reads unbuffered */
        lf_free(buffer); /* LEG(unreached) */
        return -1;       /* LEG(unreached) */
    }
    size_t start = 0;
    for (size_t i = 0; i <= length; i++) {
        if (i < length && isalpha((unsigned char)buffer[i]))
            continue;
        if (i > start)
            wf_add(table, buffer + start, i - start);
        start = i + 1;
    }
    lf_free(buffer);
    return 0;
}

unsigned long wf_count(const struct wf_table *table, const char *word)
{
    size_t length = strlen(word);
    for (struct wf_entry *entry = table->buckets[hash(word, length)]; entry; entry = entry->next)
        if (!strcmp(entry->word, word))
            return entry->count;
    return 0;
}

size_t wf_words(const struct wf_table *table)
{
    return table->words;
}

void wf_free(struct wf_table *table)
{
    for (size_t i = 0; i < WF_BUCKETS; i++) {
        struct wf_entry *entry = table->buckets[i];
        while (entry) {
            struct wf_entry *next = entry->next;
            lf_free(entry->word);
            lf_free(entry);
            entry = next;
        }
    }
    lf_free(table->buckets);
    lf_free(table);
}
