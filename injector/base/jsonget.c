/*
 * jsonget.c — see jsonget.h.
 */
#include "base/jsonget.h"

long long int_of(json_t *object, const char *key)
{
    return (long long)json_integer_value(json_object_get(object, key));
}
