/*
 * wrapped.c — allocations made through wrappers that only forward to malloc, each wrapper
 * called from two functions that leak their first block when the second allocation fails.
 * my_xmalloc is recognised by its name (and its two callers); grab only when named with
 * --wrapper grab. Each leak is a bug of the caller, not of the wrapper: two findings each.
 * greet says nothing when my_xmalloc fails and the program still ends well: a silent finding,
 * located at greet's call, not inside the wrapper that only passed the failure on.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void *my_xmalloc(size_t size)
{
    return malloc(size);
}

__attribute__((noinline)) static void *grab(size_t size)
{
    return malloc(size);
}

__attribute__((noinline)) static int make_pair(void)
{
    char *first = my_xmalloc(16);
    if (!first)
        return -1;
    char *second = my_xmalloc(32);
    if (!second)
        return -1; /* BUG: leaks first */
    free(first);
    free(second);
    return 0;
}

__attribute__((noinline)) static int make_list(void)
{
    char *head = my_xmalloc(24);
    if (!head)
        return -1;
    char *tail = my_xmalloc(40);
    if (!tail)
        return -1; /* BUG: leaks head */
    free(head);
    free(tail);
    return 0;
}

__attribute__((noinline)) static int fill_one(void)
{
    char *a = grab(48);
    if (!a)
        return -1;
    char *b = grab(56);
    if (!b)
        return -1; /* BUG: leaks a */
    free(a);
    free(b);
    return 0;
}

__attribute__((noinline)) static int fill_two(void)
{
    char *a = grab(64);
    if (!a)
        return -1;
    char *b = grab(72);
    if (!b)
        return -1; /* BUG: leaks a */
    free(a);
    free(b);
    return 0;
}

__attribute__((noinline)) static void greet(void)
{
    char *name = my_xmalloc(8);
    if (!name)
        return; /* BUG: the greeting is lost and nobody is told */
    snprintf(name, 8, "%s", "world");
    printf("hello %s\n", name);
    free(name);
}

int main(void)
{
    greet();
    /* Failures are absorbed (same status, same output): only the leaks are bugs. */
    make_pair();
    make_list();
    fill_one();
    fill_two();
    puts("ok");
    return 0;
}
