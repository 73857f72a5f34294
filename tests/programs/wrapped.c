/*
 * wrapped.c — allocations made through wrappers that only forward to malloc, each wrapper
 * called from two functions that leak their first block when the second allocation fails.
 * my_xmalloc is recognised by its name (and its two callers); grab only when named with
 * --wrapper grab. Each leak is a bug of the caller, not of the wrapper: two findings each.
 * greet says nothing when my_xmalloc fails and the program still ends well: a silent finding,
 * located at greet's call, not inside the wrapper that only passed the failure on.
 * my_xstrdup calls my_xmalloc (a wrapper of a wrapper, as curl's curl_dbg_strdup calls
 * curl_dbg_malloc): its callers copy_names and copy_tags each leak too, two more findings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void *my_xmalloc(size_t size)
{
    return malloc(size);
}

__attribute__((noinline)) static void *grab(size_t size)
{
    return malloc(size);
}

__attribute__((noinline)) static char *my_xstrdup(const char *text)
{
    size_t size = strlen(text) + 1;
    char *copy = my_xmalloc(size);
    if (copy)
        memcpy(copy, text, size);
    return copy;
}

__attribute__((noinline)) static int copy_names(void)
{
    char *first = my_xstrdup("first name");
    if (!first)
        return -1;
    char *last = my_xstrdup("last name");
    if (!last)
        return -1; /* BUG: leaks first */
    free(first);
    free(last);
    return 0;
}

__attribute__((noinline)) static int copy_tags(void)
{
    char *tag = my_xstrdup("tag");
    if (!tag)
        return -1;
    char *note = my_xstrdup("note");
    if (!note)
        return -1; /* BUG: leaks tag */
    free(tag);
    free(note);
    return 0;
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
    copy_names();
    copy_tags();
    puts("ok");
    return 0;
}
