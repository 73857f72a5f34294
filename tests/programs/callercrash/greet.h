#ifndef GREET_H
#define GREET_H
#include <stddef.h>
/* "hello, WHO", newly allocated; NULL when out of memory. */
char *greet_new(const char *who);
size_t greet_count_vowels(const char *text);
/* text must not be NULL */
size_t greet_length(const char *text);
size_t greet_width(const char *text);
/* visit("hello, WHO") */
void greet_visit(const char *who, void (*visit)(const char *));
#endif
