/* shelf.c — the library of shelf.h, built as libshelf.so. */
#define _GNU_SOURCE
#include "shelf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct shelf {
    char *name;
    int *items;
    int count;
};

struct shelf *shelf_open(void)
{
    static struct shelf one; /* never fails: not a site */
    return &one;
}

void shelf_close(struct shelf *shelf)
{
    free(shelf->name);
    free(shelf->items);
    memset(shelf, 0, sizeof *shelf);
}

char *shelf_label(const char *text)
{
    char *copy = malloc(strlen(text) + 3);
    if (!copy)
        return NULL;
    strcpy(copy, "[");
    strcat(copy, text);
    strcat(copy, "]");
    return copy;
}

int shelf_count(const char *text)
{
    char *scratch = malloc(strlen(text) + 1);
    if (!scratch)
        return -1;
    int n = (int)strlen(strcpy(scratch, text));
    free(scratch);
    return n;
}

int shelf_store(struct shelf *shelf, int item)
{
    int *grown = realloc(shelf->items, (size_t)(shelf->count + 1) * sizeof *grown);
    if (!grown)
        return -ENOMEM;
    shelf->items = grown;
    shelf->items[shelf->count++] = item;
    return 0;
}

bool shelf_rename(struct shelf *shelf, const char *name)
{
    free(shelf->name);
    shelf->name = strdup(name); /* the bug: its failure is not reported */
    return true;
}

const char *shelf_name(const struct shelf *shelf)
{
    return shelf->name;
}

void shelf_visit(struct shelf *shelf, void (*visit)(int item))
{
    for (int i = 0; i < shelf->count; i++)
        visit(shelf->items[i]);
}
