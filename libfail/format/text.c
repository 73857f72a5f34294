/*
 * text.c — small string helpers for code that runs inside the target.
 *
 * Why hand-written: fnmatch, snprintf and strtoull may allocate or consult the locale, and this code
 * runs inside allocator calls and signal handlers. Each helper here uses only the caller's buffers.
 */
#include "text.h"

#include <string.h>

/* Glob with '*', '?' and '[...]' ('!' or '^' negates, ranges a-z). '*' crosses '/' so that
   "*examples*" matches at any depth; iterative, with one backtrack point, so it cannot blow the stack. */
static bool LF_TEXT class_match(const char **pattern_io, char c)
{
    const char *p = *pattern_io + 1;
    bool negate = (*p == '!' || *p == '^');
    if (negate)
        p++;
    bool matched = false;
    bool first = true;
    while (*p && (first || *p != ']')) {
        char low = *p, high = *p;
        if (p[1] == '-' && p[2] && p[2] != ']') {
            high = p[2];
            p += 2;
        }
        if (c >= low && c <= high)
            matched = true;
        p++;
        first = false;
    }
    if (*p != ']')
        return false; /* unterminated: treat '[' as never matching */
    *pattern_io = p;
    return matched != negate;
}

bool LF_TEXT glob_match(const char *pattern, const char *text)
{
    const char *star_pattern = NULL, *star_text = NULL;
    while (*text) {
        if (*pattern == '*') {
            star_pattern = ++pattern;
            star_text = text;
            continue;
        }
        const char *next = pattern;
        bool ok = false;
        if (*pattern == '?')
            ok = true;
        else if (*pattern == '[')
            ok = class_match(&next, *text);
        else
            ok = (*pattern == *text);
        if (ok && *pattern) {
            pattern = next + 1;
            text++;
            continue;
        }
        if (!star_pattern)
            return false;
        pattern = star_pattern;
        text = ++star_text;
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == '\0';
}

bool LF_TEXT glob_list_match(const char *list, const char *text)
{
    char one[512];
    while (list && *list) {
        const char *end = strchr(list, ':');
        size_t length = end ? (size_t)(end - list) : strlen(list);
        if (length > 0 && length < sizeof one) {
            memcpy(one, list, length);
            one[length] = '\0';
            if (glob_match(one, text))
                return true;
        }
        list = end ? end + 1 : NULL;
    }
    return false;
}

bool LF_TEXT scope_match(const char *list, const char *exe)
{
    char one[512];
    bool positive = false, included = false;
    while (list && *list) {
        const char *end = strchr(list, ':');
        size_t length = end ? (size_t)(end - list) : strlen(list);
        bool excluding = length > 0 && list[0] == '!';
        size_t skip = excluding ? 1 : 0;
        if (length > skip && length - skip < sizeof one) {
            memcpy(one, list + skip, length - skip);
            one[length - skip] = '\0';
            if (excluding && glob_match(one, exe))
                return false;
            if (!excluding) {
                positive = true;
                included = included || glob_match(one, exe);
            }
        }
        list = end ? end + 1 : NULL;
    }
    return positive ? included : !path_is_system(exe);
}

bool LF_TEXT starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

bool LF_TEXT path_is_system(const char *path)
{
    if (starts_with(path, "/usr/local/"))
        return false;
    return starts_with(path, "/usr/") || starts_with(path, "/bin/") ||
           starts_with(path, "/sbin/") || starts_with(path, "/lib");
}

size_t LF_TEXT format_decimal(char *out, uint64_t value)
{
    char reversed[20];
    size_t count = 0;
    do {
        reversed[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    for (size_t i = 0; i < count; i++)
        out[i] = reversed[count - 1 - i];
    return count;
}

size_t LF_TEXT format_hex16(char *out, uint64_t value)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--) {
        out[i] = digits[value & 0xf];
        value >>= 4;
    }
    return 16;
}

bool LF_TEXT parse_decimal(const char *text, size_t length, uint64_t *value)
{
    uint64_t result = 0;
    if (length == 0 || length > 19)
        return false;
    for (size_t i = 0; i < length; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        result = result * 10 + (uint64_t)(text[i] - '0');
    }
    *value = result;
    return true;
}

bool LF_TEXT parse_hex(const char *text, size_t length, uint64_t *value)
{
    uint64_t result = 0;
    if (length == 0 || length > 16)
        return false;
    for (size_t i = 0; i < length; i++) {
        char c = text[i];
        unsigned digit;
        if (c >= '0' && c <= '9')
            digit = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            digit = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            digit = (unsigned)(c - 'A' + 10);
        else
            return false;
        result = result << 4 | digit;
    }
    *value = result;
    return true;
}

/* FNV-1a variant over whole 64-bit words, finished with a murmur-style mix so that signatures that
   differ in one offset bit differ everywhere. */
static uint64_t LF_TEXT mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

uint64_t LF_TEXT hash_words(uint64_t seed, const uint64_t *words, size_t count)
{
    uint64_t h = 0xcbf29ce484222325ull ^ seed;
    for (size_t i = 0; i < count; i++) {
        h ^= words[i];
        h *= 0x100000001b3ull;
    }
    return mix(h);
}

uint64_t LF_TEXT hash_bytes(uint64_t seed, const void *bytes, size_t count)
{
    const unsigned char *b = bytes;
    uint64_t h = 0xcbf29ce484222325ull ^ seed;
    for (size_t i = 0; i < count; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return mix(h);
}
