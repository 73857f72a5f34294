/* represent.c — one bug reached from six allocation sites: each buffer goes unchecked to
   fill(), which writes through it (test_disk.sh: of the finding's six runs, failrun keeps the
   folder of the one that represents it alone). */
#include <stdlib.h>
#include <string.h>

static void __attribute__((noinline)) fill(char *buffer, size_t size)
{
    memset(buffer, 'x', size);
}

int main(void)
{
    size_t sizes[] = {16, 24, 40, 56, 72, 88};
    char *buffers[6];
    for (int i = 0; i < 6; i++) {
        switch (i) { /* six call sites */
        case 0: buffers[i] = malloc(sizes[i]); break;
        case 1: buffers[i] = malloc(sizes[i]); break;
        case 2: buffers[i] = malloc(sizes[i]); break;
        case 3: buffers[i] = malloc(sizes[i]); break;
        case 4: buffers[i] = malloc(sizes[i]); break;
        default: buffers[i] = malloc(sizes[i]); break;
        }
        fill(buffers[i], sizes[i]);
    }
    for (int i = 0; i < 6; i++)
        free(buffers[i]);
    return 0;
}
