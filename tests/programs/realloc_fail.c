/* realloc_fail.c — a realloc that fails for real (an impossible size) leaves its block live and
   owned by the program; libfail must keep counting it. A later failure makes the program forget
   that block and exit 0: a leak only visible if the block stayed tracked. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    char *buffer = malloc(40);
    if (!buffer)
        return 1;
    char *bigger = realloc(buffer, SIZE_MAX / 2); /* fails for real: buffer is still ours */
    if (bigger) {
        free(bigger);
        return 2;
    }
    char *other = malloc(16); /* when this fails, the error leg forgets buffer */
    if (!other) {
        buffer = NULL; /* its only pointer: LeakSanitizer's scan must find the block lost */
        puts("realloc_fail: done");
        return 0;
    }
    free(other);
    free(buffer);
    puts("realloc_fail: done");
    return 0;
}
