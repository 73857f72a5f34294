/* early.c — prints what its library's constructor allocated before main (see libctor.c). */
#include <stdio.h>
#include <stdlib.h>

extern char *libctor_greeting;

int main(void)
{
    if (!libctor_greeting) {
        fputs("early: the constructor had no memory\n", stderr);
        return 1;
    }
    puts(libctor_greeting);
    free(libctor_greeting);
    return 0;
}
