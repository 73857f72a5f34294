/*
 * wordfreq.c — count the words of a text: the classic way, every allocation checked.
 *
 * The example of error legs that a NOFAIL policy makes dead code: each `if (!p)` below after a
 * small allocation exists only for a failure that "too small to fail" rules out. The same
 * library written with LF_NOFAIL is ../nofail/wordfreq.c, where those legs are gone.
 * Markers: LEG(deletable) on lines the NOFAIL version removed, LEG(kept) on error-leg lines it
 * still needs (the big read buffer may fail), LEG(unreached) on a leg no allocation failure
 * reaches, UNTAKEN on the one error reaction (the branch after a call that allocates) no run
 * takes. tests/integration/test_cov.sh checks `failrun cov` against them.
 */
#include "wordfreq.h"

#include <ctype.h>
#include <stdlib.h>
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
    struct wf_table *table = malloc(sizeof *table);
    if (!table)
        return NULL; /* LEG(deletable) */
    table->words = 0;
    table->buckets = calloc(WF_BUCKETS, sizeof *table->buckets);
    if (!table->buckets) {
        free(table); /* LEG(deletable) */
        return NULL; /* LEG(deletable) */
    }
    return table;
}

static size_t hash(const char *word, size_t length)
{
    size_t value = 5381;
    for (size_t i = 0; i < length; i++)
        value = value * 33 + (unsigned char)word[i];
    return value % WF_BUCKETS;
}

int wf_add(struct wf_table *table, const char *word, size_t length)
{
    struct wf_entry **slot = &table->buckets[hash(word, length)];
    for (struct wf_entry *entry = *slot; entry; entry = entry->next) {
        if (strlen(entry->word) == length && !memcmp(entry->word, word, length)) {
            entry->count++;
            return 0;
        }
    }
    struct wf_entry *entry = malloc(sizeof *entry);
    if (!entry)
        return -1; /* LEG(deletable) */
    entry->word = malloc(length + 1);
    if (!entry->word) {
        free(entry); /* LEG(deletable) */
        return -1;   /* LEG(deletable) */
    }
    memcpy(entry->word, word, length);
    entry->word[length] = '\0';
    entry->count = 1;
    entry->next = *slot;
    *slot = entry;
    table->words++;
    return 0;
}

/* Reads all of `in` through one 64 KiB buffer: a request too big for the NOFAIL policy. */
int wf_load(struct wf_table *table, FILE *in)
{
    char *buffer = malloc(WF_CHUNK);
    if (!buffer)
        return -1; /* LEG(kept) */
    size_t length = fread(buffer, 1, WF_CHUNK, in);
    if (ferror(in)) { /* UNTAKEN: fread's buffer may fail, but then fread reads unbuffered */
        free(buffer); /* LEG(unreached) */
        return -1;    /* LEG(unreached) */
    }
    size_t start = 0;
    for (size_t i = 0; i <= length; i++) {
        if (i < length && isalpha((unsigned char)buffer[i]))
            continue;
        if (i > start && wf_add(table, buffer + start, i - start) < 0) {
            free(buffer); /* LEG(deletable) */
            return -1;    /* LEG(deletable) */
        }
        start = i + 1;
    }
    free(buffer);
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
            free(entry->word);
            free(entry);
            entry = next;
        }
    }
    free(table->buckets);
    free(table);
}
