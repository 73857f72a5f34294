/*
 * text.h — allocation-free string, number and hash helpers (text.c), for both sides.
 */
#ifndef LIBFAIL_FORMAT_TEXT_H
#define LIBFAIL_FORMAT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attributes.h"

bool glob_match(const char *pattern, const char *text) LF_HIDDEN;
/* `list` is a ':'-separated list of globs; true when any matches. */
bool glob_list_match(const char *list, const char *text) LF_HIDDEN;
/* A campaign's scope (LIBFAIL_EXE): does it take this executable? `list` holds globs that take
   one and "!GLOB"s that leave one out; with no glob that takes, every executable outside the
   system's folders is taken (unless left out). NULL or empty: the same. */
bool scope_match(const char *list, const char *exe) LF_HIDDEN;
bool starts_with(const char *text, const char *prefix) LF_HIDDEN;
/* True for paths under /usr (not /usr/local), /bin, /sbin, /lib*: the system's executables. */
bool path_is_system(const char *path) LF_HIDDEN;
/* Append decimal/hex text of value at out; returns characters written (no NUL). */
size_t format_decimal(char *out, uint64_t value) LF_HIDDEN;
size_t format_hex16(char *out, uint64_t value) LF_HIDDEN;
/* Parse exactly the digits in [text, text+length); false on anything else or overflow. */
bool parse_decimal(const char *text, size_t length, uint64_t *value) LF_HIDDEN;
bool parse_hex(const char *text, size_t length, uint64_t *value) LF_HIDDEN;
uint64_t hash_words(uint64_t seed, const uint64_t *words, size_t count) LF_HIDDEN;
uint64_t hash_bytes(uint64_t seed, const void *bytes, size_t count) LF_HIDDEN;

#endif
