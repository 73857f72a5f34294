/* libhello.c — another preload, as a test harness sets one (git's test library preloads
   libc_malloc_debug.so.0): its constructor says it was loaded, so a test sees that it still is
   once failrun's preload has been put first in the chain (tests/integration/test_preload_chain.sh). */
#include <unistd.h>

__attribute__((constructor)) static void say_hello(void)
{
    static const char text[] = "libhello: loaded\n";
    if (write(2, text, sizeof text - 1) < 0)
        return;
}
