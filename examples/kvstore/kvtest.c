/*
 * kvtest.c — a deterministic exercise of the kv store, used as a libfail target.
 *
 * Why it is written this way: libfail compares every fault-injected run against one normal
 * run, so this program must behave identically every time (no addresses, times or hash
 * order in its output) and must free everything it allocated, so that any block still live
 * at exit is a real leak. Every failure is reported on stderr as "kvtest: <what>: <reason>"
 * followed by exit status 1.
 *
 * Run: ./kvtest   (no arguments, no input)
 */
#define _POSIX_C_SOURCE 200809L

#include "kv.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keys[] = {
    "alpha", "bravo",  "charlie",  "delta", "echo",   "foxtrot", "golf",
    "hotel", "india",  "juliett",  "kilo",  "lima",   "mike",    "november",
    "oscar", "papa",   "quebec",   "romeo", "sierra", "tango",
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* The value key i should have after the build and update phases. */
static void expected_value(size_t i, char *buf, size_t size)
{
    if (i % 4 == 0)
        snprintf(buf, size, "updated-%02zu", i);
    else
        snprintf(buf, size, "%s-%zu", keys[i], i * 37 % 101);
}

static uint64_t checksum(const char *text)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        h ^= *p;
        h *= 0x100000001b3u;
    }
    return h;
}

/* The text of line `which` (0 = first, SIZE_MAX = last) of text, without its newline. */
static void copy_line(const char *text, size_t which, char *buf, size_t size)
{
    const char *start = text;
    if (which == SIZE_MAX) {
        const char *end = text + strlen(text);
        if (end > text && end[-1] == '\n')
            end--;
        start = end;
        while (start > text && start[-1] != '\n')
            start--;
    } else {
        for (size_t i = 0; i < which && strchr(start, '\n') != NULL; i++)
            start = strchr(start, '\n') + 1;
    }
    size_t n = strcspn(start, "\n");
    if (n >= size)
        n = size - 1;
    memcpy(buf, start, n);
    buf[n] = '\0';
}

static void report(const char *what, int err)
{
    fprintf(stderr, "kvtest: %s: %s\n", what,
            err == ENOMEM ? "out of memory" : err == EINVAL ? "malformed text" : "failed");
}

int main(void)
{
    int status = 1;
    kv_t *store = NULL;
    kv_t *reloaded = NULL;
    char *text = NULL;
    char *retext = NULL;
    char what[64];
    char value[64];

    store = kv_new();
    if (store == NULL) {
        report("kv_new", ENOMEM);
        goto cleanup;
    }

    /* Build: one value per key. */
    for (size_t i = 0; i < NKEYS; i++) {
        snprintf(value, sizeof value, "%s-%zu", keys[i], i * 37 % 101);
        if (kv_put(store, keys[i], value) != 0) {
            snprintf(what, sizeof what, "put %s", keys[i]);
            report(what, ENOMEM);
            goto cleanup;
        }
    }

    /* Update every fourth key in place. */
    size_t updated = 0;
    for (size_t i = 0; i < NKEYS; i += 4) {
        expected_value(i, value, sizeof value);
        if (kv_put(store, keys[i], value) != 0) {
            snprintf(what, sizeof what, "update %s", keys[i]);
            report(what, ENOMEM);
            goto cleanup;
        }
        updated++;
    }

    /* Read everything back. */
    size_t good = 0;
    for (size_t i = 0; i < NKEYS; i++) {
        const char *got = kv_get(store, keys[i]);
        expected_value(i, value, sizeof value);
        if (got != NULL && strcmp(got, value) == 0)
            good++;
    }
    if (good != NKEYS) {
        fprintf(stderr, "kvtest: get: %zu of %zu values wrong\n", NKEYS - good, NKEYS);
        goto cleanup;
    }

    /* Delete every third key, and one that was never there. */
    size_t removed = 0;
    size_t missing = 0;
    for (size_t i = 2; i < NKEYS; i += 3)
        removed += (size_t)kv_delete(store, keys[i]);
    missing += kv_delete(store, "zulu") == 0;

    /* Serialise, load into a fresh store, serialise again: the texts must match. */
    size_t len = 0;
    text = kv_serialise(store, &len);
    if (text == NULL) {
        report("serialise", ENOMEM);
        goto cleanup;
    }
    reloaded = kv_new();
    if (reloaded == NULL) {
        report("kv_new (reload)", ENOMEM);
        goto cleanup;
    }
    if (kv_load(reloaded, text) != 0) {
        report("load", errno);
        goto cleanup;
    }
    retext = kv_serialise(reloaded, NULL);
    if (retext == NULL) {
        report("serialise (reload)", ENOMEM);
        goto cleanup;
    }
    if (strcmp(text, retext) != 0) {
        fprintf(stderr, "kvtest: roundtrip: texts differ\n");
        goto cleanup;
    }

    char first[64];
    char last[64];
    copy_line(text, 0, first, sizeof first);
    copy_line(text, SIZE_MAX, last, sizeof last);
    printf("put: %zu keys, %zu updated\n", NKEYS, updated);
    printf("get: %zu/%zu ok\n", good, NKEYS);
    printf("delete: %zu removed, %zu missing\n", removed, missing);
    printf("count: %zu\n", kv_count(store));
    printf("serialised: %zu bytes, checksum %016llx\n", len,
           (unsigned long long)checksum(text));
    printf("first: %s\n", first);
    printf("last: %s\n", last);
    printf("roundtrip: %zu keys, identical\n", kv_count(reloaded));
    status = 0;

cleanup:
    free(retext);
    free(text);
    kv_free(reloaded);
    kv_free(store);
    return status;
}
