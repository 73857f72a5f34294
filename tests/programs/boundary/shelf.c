/* shelf.c — the library of shelf.h, built as libshelf.so. */
#define _GNU_SOURCE
#include "shelf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct shelf {
    char *name;
    char **tags;
    int tag_count;
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
    for (int i = 0; i < shelf->tag_count; i++)
        free(shelf->tags[i]);
    free(shelf->tags);
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

int *shelf_parse(const char *text)
{
    if (*text < '0' || *text > '9')
        return NULL;
    int *number = malloc(sizeof *number);
    if (number)
        *number = atoi(text);
    return number;
}

int shelf_width(const char *label)
{
    int n = 0;
    while (label[n])
        n++;
    return n;
}

int shelf_tag(struct shelf *shelf, const char *tag)
{
    char *copy = strdup(tag);
    if (!copy)
        return -1;
    char **grown = realloc(shelf->tags, (size_t)(shelf->tag_count + 1) * sizeof *grown);
    if (!grown)
        return -1; /* the bug: copy is lost */
    shelf->tags = grown;
    shelf->tags[shelf->tag_count++] = copy;
    return 0;
}
