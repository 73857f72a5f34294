/* shelf.h — a small library with the error conventions a C library uses: NULL, a negative int,
   -ENOMEM, false; and one bug: shelf_rename reports success after its strdup failed. */
#ifndef SHELF_H
#define SHELF_H
#include <stdbool.h>

struct shelf;
struct shelf *shelf_open(void);
void shelf_close(struct shelf *shelf);
char *shelf_label(const char *text);           /* a copy, or NULL */
int shelf_count(const char *text);             /* the length, or -1 */
int shelf_store(struct shelf *shelf, int item); /* 0, or -ENOMEM */
bool shelf_rename(struct shelf *shelf, const char *name); /* true: renamed (the bug: also when not) */
const char *shelf_name(const struct shelf *shelf);
/* Calls visit(item) for each item stored; visit may longjmp out, or call the library again. */
void shelf_visit(struct shelf *shelf, void (*visit)(int item));
/* A number parsed from text, in a block of its own; NULL for text that is not a number, and
   when out of memory. */
int *shelf_parse(const char *text);
/* The length of a label; the label must not be NULL. */
int shelf_width(const char *label);
/* Adds a tag: 0, or -1 (the second bug: the tag's copy leaks when the entry cannot be made). */
int shelf_tag(struct shelf *shelf, const char *tag);
#endif
