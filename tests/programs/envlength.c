/* envlength.c — prints how many bytes its environment holds, after sixteen allocations at
   sixteen sites whose failures it ignores. Under failrun every run must print the same number:
   a program that copies its environment (an interpreter's env array) would otherwise allocate
   other sizes from run to run, and reach other sites (test_environment.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

#define TAKE(i) blocks[i] = malloc(16 + (i))

int main(void)
{
    void *blocks[16];
    TAKE(0); TAKE(1); TAKE(2); TAKE(3); TAKE(4); TAKE(5); TAKE(6); TAKE(7);
    TAKE(8); TAKE(9); TAKE(10); TAKE(11); TAKE(12); TAKE(13); TAKE(14); TAKE(15);
    size_t bytes = 0;
    for (char **entry = environ; *entry; entry++)
        bytes += strlen(*entry) + 1;
    printf("environment: %zu bytes\n", bytes);
    for (int i = 0; i < 16; i++)
        free(blocks[i]);
    return 0;
}
