/* libctor.c — a library whose constructor allocates: it runs before libfail-preload.so's own
   constructor, so the preload must initialise itself from inside that first malloc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *libctor_greeting;

__attribute__((constructor)) static void libctor_init(void)
{
    libctor_greeting = malloc(32);
    if (!libctor_greeting) {
        fputs("libctor: out of memory\n", stderr);
        return;
    }
    strcpy(libctor_greeting, "hello from a constructor");
}
