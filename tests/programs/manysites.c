/* manysites.c — 6,000 allocation sites with distinct stacks, each reached twice: more than the
   near part of the preload's site index holds (4,096 slots), so at least 1,904 of them live in
   its far part. An allocation that fails says which path and pass it was, and the program exits
   1: a fault planned for a site's second occurrence must find the site again in pass 2. */
#include <stdio.h>
#include <stdlib.h>

#define PATHS 6000
#define SIZE 4093 /* no other allocation of the program asks for this much */

static unsigned current_path, current_pass;

__attribute__((noinline)) static void leaf(void)
{
    void *p = malloc(SIZE);
    if (!p) {
        fprintf(stderr, "manysites: path %u failed in pass %u\n", current_path, current_pass);
        exit(1);
    }
    free(p);
}

/* Six levels, each calling the next from one of four call sites, and two call sites of leaf:
   2 x 4^6 = 8,192 distinct return-address chains within the signature's eight frames. */
__attribute__((noinline)) static void walk(unsigned path, int level)
{
    if (level == 0) {
        if (path & 1)
            leaf();
        else
            leaf();
        return;
    }
    switch (path & 3) {
    case 0:
        walk(path >> 2, level - 1);
        break;
    case 1:
        walk(path >> 2, level - 1);
        break;
    case 2:
        walk(path >> 2, level - 1);
        break;
    default:
        walk(path >> 2, level - 1);
        break;
    }
}

int main(void)
{
    for (current_pass = 1; current_pass <= 2; current_pass++)
        for (current_path = 0; current_path < PATHS; current_path++)
            walk((current_path >> 1) | ((current_path & 1) << 12), 6);
    puts("manysites: ok");
    return 0;
}
