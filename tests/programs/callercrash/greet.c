/* greet.c — the "library" of callercrash (tests/integration/test_caller_crash.sh): a function
 * that reports its failed allocation as NULL, as documented; one that ignores it (a bug of the
 * library); one that asserts its argument (a precondition); one whose helper asserts deeper
 * inside (the library's own check, not the caller's); and one that hands its own NULL to the
 * caller's callback (the callback crashes, the bug is the library's). */
#include "greet.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *greet_new(const char *who)
{
    size_t size = strlen(who) + sizeof "hello, ";
    char *text = malloc(size);
    if (!text)
        return NULL; /* reported: the caller must check */
    snprintf(text, size, "hello, %s", who);
    return text;
}

size_t greet_count_vowels(const char *text)
{
    unsigned *counts = calloc(256, sizeof *counts); /* unchecked: a bug of the library */
    for (const char *p = text; *p; p++)
        counts[(unsigned char)*p]++;
    size_t vowels = counts['a'] + counts['e'] + counts['i'] + counts['o'] + counts['u'];
    free(counts);
    return vowels;
}

size_t greet_length(const char *text)
{
    assert(text != NULL); /* documented precondition */
    return strlen(text);
}

static size_t checked_length(const char *text)
{
    assert(text != NULL);
    return strlen(text);
}

size_t greet_width(const char *text)
{
    return checked_length(text) + 2;
}

void greet_visit(const char *who, void (*visit)(const char *))
{
    char *text = greet_new(who);
    visit(text); /* NULL passed on unchecked: a bug of the library */
    free(text);
}
