/* libmaker.c — a library that allocates through the allocator its caller gives it, as zlib's
   inflateInit2 calls the zalloc it was given: maker_make returns -1 when that allocator returns
   NULL, and the caller decides what to do (tests/programs/debugalloc.c). */
#include <stddef.h>
#include <string.h>

__attribute__((visibility("default"))) int maker_make(void *(*allocate)(size_t, int), char **out)
{
    char *made = allocate(64, 0);
    if (!made)
        return -1;
    strcpy(made, "made");
    *out = made;
    return 0;
}
