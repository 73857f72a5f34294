/* test_greet.c — a test of greet.c that trusts greet_new's result, as many tests do: when its
 * allocation fails, the crash is in this file (strcmp or puts of NULL) or in greet_length's
 * assert of its argument, the library having reported the failure. Its own allocation is
 * unchecked too. */
#include "greet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void show_length(const char *text)
{
    printf("%zu\n", strlen(text)); /* given the library's NULL: crashes, the library's bug */
}

/* Deeper than the 28 frames a stack record holds: below the cut there might be the library,
   so the crash of this code using greet_new's NULL stays a finding. The call goes through a
   volatile pointer so that no optimiser turns the recursion into a loop. */
static size_t deep_length(int depth, const char *who);
static size_t (*volatile deeper)(int, const char *) = deep_length;

static size_t deep_length(int depth, const char *who)
{
    if (depth > 0)
        return deeper(depth - 1, who) + 1;
    char *text = greet_new(who);
    size_t length = strlen(text); /* NULL after a failure, 40 frames deep */
    free(text);
    return length;
}

int main(void)
{
    char *text = greet_new("world");
    if (strcmp(text, "hello, world") != 0) /* NULL after a failure: the test's crash */
        return 1;
    size_t vowels = greet_count_vowels(text);
    char *again = greet_new("again");
    size_t length = greet_length(again); /* the library asserts: the test passed NULL */
    char *wide = greet_new("wide");
    size_t width = greet_width(wide);    /* asserted inside the library, not at its entry */
    char *shout = greet_new("shout");
    puts(shout);                         /* NULL: a crash inside puts, under --faults io inside
                                            failrun's own interposer of it */
    greet_visit("visit", show_length);
    size_t deep = deep_length(40, "deep");
    char *copy = malloc(64);             /* the test's own allocation, unchecked */
    snprintf(copy, 64, "%zu vowels, %zu, %zu, %zu", vowels, length, width, deep);
    puts(copy);
    free(copy);
    free(shout);
    free(wide);
    free(again);
    free(text);
    return 0;
}
