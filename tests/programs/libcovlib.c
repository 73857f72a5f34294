/* libcovlib.c — a shared library built with --coverage (and nothing else: no export flag), for
   tests/integration/test_cov_crash.sh. covcrash.c uses its result unchecked, so every failure of
   its allocation crashes the program after the library's error leg ran: that leg is seen only
   if the library's coverage is written when the program dies of the signal. */
#include <stdlib.h>
#include <string.h>

char *covlib_copy(const char *text)
{
    size_t length = strlen(text) + 1;
    char *copy = malloc(length);
    if (!copy)
        return NULL; /* LEG(crash) */
    memcpy(copy, text, length);
    return copy;
}
