/* closefds.c — closes every file descriptor, including libfail's record file, then allocates,
   and finally puts an fd of its own where the record file was. Its sites after the close must
   still be recorded, and failing them must still be seen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static int after_close(void)
{
    char *p = malloc(64); /* site: after every fd was closed */
    if (!p)
        return 3;
    strcpy(p, "x");
    free(p);
    return 0;
}

int main(void)
{
    char *before = malloc(16);
    if (!before)
        return 2;
    free(before);
    for (int fd = 0; fd < 4096; fd++)
        close(fd);
    /* Reuse low and high numbers for files of our own: libfail must not write into them. */
    for (int fd = 0; fd < 1100; fd += 1)
        if (open("/dev/null", O_RDONLY) < 0)
            break;
    int status = after_close();
    char *late = malloc(128); /* site: with the fd table full of the program's own files */
    if (!late)
        return 4;
    free(late);
    return status;
}
