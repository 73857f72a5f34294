/* layout.c — a program whose allocation sites follow where its memory lies, as an interpreter's
   allocator or a table keyed by addresses does: eight bits of its stack, heap and code addresses
   each choose which of two functions allocates. Under address-space randomisation each run takes
   other functions; in one layout, every run takes the same (test_layout.sh). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void *__attribute__((noinline)) left(size_t size)
{
    return malloc(size);
}

static void *__attribute__((noinline)) right(size_t size)
{
    return malloc(size + 1);
}

int main(void)
{
    int local;
    void *first = malloc(1);
    if (!first) {
        fputs("layout: out of memory\n", stderr);
        return 1;
    }
    uintptr_t mix = (uintptr_t)&local ^ (uintptr_t)first ^ (uintptr_t)&main;
    mix ^= mix >> 20;
    void *blocks[8];
    /* Eight calls, each its own line (so its own pair of sites): bit i picks left or right. */
#define PICK(i) blocks[i] = (mix >> (12 + i)) & 1 ? left(16) : right(16)
    PICK(0);
    PICK(1);
    PICK(2);
    PICK(3);
    PICK(4);
    PICK(5);
    PICK(6);
    PICK(7);
    for (int i = 0; i < 8; i++)
        if (!blocks[i]) {
            fputs("layout: out of memory\n", stderr);
            return 1;
        }
    for (int i = 0; i < 8; i++)
        free(blocks[i]);
    free(first);
    char picks[9];
    for (int i = 0; i < 8; i++)
        picks[i] = (mix >> (12 + i)) & 1 ? 'L' : 'R';
    picks[8] = '\0';
    printf("layout: ok %s\n", picks);
    return 0;
}
