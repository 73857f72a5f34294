/* ignored.c — a program started with SIGTRAP ignored (a shell's `trap '' TRAP`) that raises it:
   an ignored signal is no crash, and the program goes on to allocate and exit 0. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    raise(SIGTRAP);
    char *block = malloc(77);
    if (!block) {
        fputs("ignored: out of memory\n", stderr);
        return 1;
    }
    free(block);
    puts("ignored: still running");
    return 0;
}
