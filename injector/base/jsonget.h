/*
 * jsonget.h — reading a member of a JSON object that may be missing or of another type (the
 * report's model, coverage results, kernel rows): the zero of its type then, never a NULL to test.
 */
#ifndef FAILRUN_JSONGET_H
#define FAILRUN_JSONGET_H

#include <jansson.h>

/* The integer member `key` of `object`, or 0. */
long long int_of(json_t *object, const char *key);

#endif
