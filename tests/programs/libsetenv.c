/* libsetenv.c — a library whose constructor calls setenv. Preloaded after libfail-preload.so it
   is initialised first, so its setenv's malloc, made while glibc holds its environment lock, is
   the first allocation libfail sees (tests/integration/test_failnth.sh). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

__attribute__((constructor)) static void set_early(void)
{
    setenv("LIBFAIL_TEST_EARLY", "set", 1);
}
