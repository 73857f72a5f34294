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
    char *copy = malloc(64);             /* the test's own allocation, unchecked */
    snprintf(copy, 64, "%zu vowels, %zu, %zu", vowels, length, width);
    puts(copy);
    free(copy);
    free(shout);
    free(wide);
    free(again);
    free(text);
    return 0;
}
