/* covcrash.c — a --coverage program over a --coverage shared library (libcovlib.c), linked with
   no export flag: its runs that fail an allocation crash (the result is used unchecked), and
   failrun cov must still read the library's coverage of those runs. */
#include <stdio.h>
#include <stdlib.h>

char *covlib_copy(const char *text);

int main(void)
{
    char *first = covlib_copy("first");
    char *second = covlib_copy("second");
    printf("%c%c\n", first[0], second[0]); /* crashes when either copy failed */
    free(first);
    free(second);
    return 0;
}
