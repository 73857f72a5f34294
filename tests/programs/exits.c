/* exits.c — ways to end a process that bypass a plain exit(): _exit, error(3) (exit inside
   libc), and strdup (which allocates inside libc through the interposed malloc). */
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    char *copy = strdup("a string copied by strdup"); /* STRDUP-SITE */
    if (!copy) {
        if (!strcmp(mode, "_exit"))
            _exit(4);
        error(5, 0, "strdup: out of memory");
    }
    char *prefix = strndup(copy, 8); /* STRNDUP-SITE */
    if (!prefix) {
        free(copy);
        _exit(7);
    }
    free(prefix);
    char *block = malloc(100);
    if (!block) {
        free(copy);
        fputs("exits: out of memory\n", stderr);
        fflush(stderr);
        _exit(6);
    }
    printf("%s\n", copy);
    free(copy);
    free(block);
    if (!strcmp(mode, "_exit")) {
        fflush(stdout);
        _exit(0);
    }
    return 0;
}
