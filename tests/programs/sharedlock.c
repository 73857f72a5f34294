/*
 * sharedlock.c — a program that two runs at once disturb (tests/integration/test_unreached.sh):
 * it takes a lock folder in its working folder, makes four allocations while holding it, and
 * gives up quietly (status 0, no allocation) when another run holds it. Alone it reaches every
 * site; two at once, one of them reaches none.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
    if (mkdir("shared.lock", 0700) != 0)
        return 0; /* busy: another run has it */
    char *a = malloc(16);
    char *b = malloc(32);
    char *c = malloc(64);
    char *d = malloc(128);
    struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
    free(a);
    free(b);
    free(c);
    free(d);
    rmdir("shared.lock");
    return 0;
}
