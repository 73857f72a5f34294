/*
 * gcovread.c — memory, messages, and the words and strings of gcc's notes and data files
 * (gcovint.h).
 */
#include "gcovint.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */

void *allocate(size_t count, size_t size)
{
    void *memory = calloc(count ? count : 1, size ? size : 1);
    if (!memory) {
        fputs("gcovdata: out of memory\n", stderr);
        abort();
    }
    return memory;
}

/* Grows *items (of `size`-byte elements) to hold at least `needed`. */
void reserve(void *items, size_t *capacity, size_t needed, size_t size)
{
    if (needed <= *capacity)
        return;
    size_t grown = *capacity ? *capacity * 2 : 16;
    while (grown < needed)
        grown *= 2;
    void *moved = realloc(*(void **)items, grown * size);
    if (!moved) {
        fputs("gcovdata: out of memory\n", stderr);
        abort();
    }
    memset((char *)moved + *capacity * size, 0, (grown - *capacity) * size);
    *(void **)items = moved;
    *capacity = grown;
}

void say(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void say(char *error, size_t error_size, const char *format, ...)
{
    if (!error || !error_size)
        return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
}

char *copy_string(const char *text)
{
    size_t length = strlen(text);
    char *copy = allocate(length + 1, 1);
    memcpy(copy, text, length);
    return copy;
}

/* ---- reading words and strings ---- */

uint32_t take_word(struct input *in)
{
    if (in->at > in->length || in->length - in->at < 4) {
        in->short_read = true;
        in->at = in->length;
        return 0;
    }
    uint32_t word;
    memcpy(&word, in->bytes + in->at, 4);
    in->at += 4;
    return in->swap ? __builtin_bswap32(word) : word;
}

int64_t take_counter(struct input *in)
{
    uint64_t low = take_word(in);
    uint64_t high = take_word(in);
    return (int64_t)(low | high << 32);
}

/* A string: NULL for an empty one (length 0); `text` gets its bytes, NUL-terminated. */
const char *take_string(struct input *in, char **text)
{
    uint32_t length = take_word(in);
    if (!length || in->short_read)
        return NULL;
    if (length > in->length - in->at) {
        in->short_read = true;
        in->at = in->length;
        return NULL;
    }
    free(*text);
    *text = allocate(length + 1, 1);
    memcpy(*text, in->bytes + in->at, length);
    in->at += length;
    return *text;
}

/* The magic word, setting the byte order; false when it is not `magic`. */
bool take_magic(struct input *in, uint32_t magic)
{
    uint32_t word = take_word(in);
    if (word == magic)
        return true;
    if (word == __builtin_bswap32(magic)) {
        in->swap = true;
        return true;
    }
    return false;
}

/* Whether record tag `sub` belongs under record tag `tag` (FUNCTION's blocks, arcs, lines):
   gcov-io.h's tag hierarchy, one byte per level, the lowest bit of a used level set. */
bool subtag(uint32_t tag, uint32_t sub)
{
    uint32_t tag_mask = (tag - 1) ^ tag, sub_mask = (sub - 1) ^ sub;
    return tag_mask >> 8 == sub_mask && !((sub ^ tag) & ~tag_mask);
}

unsigned char *gcov_read_file(const char *path, size_t *length, char *error,
                                      size_t error_size)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        say(error, error_size, "%s: %s", path, strerror(errno));
        return NULL;
    }
    LIST(unsigned char) bytes = {0};
    size_t got;
    do {
        reserve(&bytes.items, &bytes.capacity, bytes.count + 65536, 1);
        got = fread(bytes.items + bytes.count, 1, bytes.capacity - bytes.count, file);
        bytes.count += got;
    } while (got);
    bool failed = ferror(file);
    fclose(file);
    if (failed) {
        say(error, error_size, "%s: read error", path);
        free(bytes.items);
        return NULL;
    }
    *length = bytes.count;
    return bytes.items;
}
