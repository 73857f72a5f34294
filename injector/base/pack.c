/*
 * pack.c — the regular files of a folder tree as one file (pack.h).
 *
 * Layout: the magic line "libfail-pack 1\n", then one entry per file: its path below the folder
 * (starting with '/') and its bytes, each behind its length as 4 bytes, little-endian. No index:
 * the reader walks the entries, and a pack cut short (failrun killed while writing it) ends at
 * the last whole entry.
 */
#include "base/pack.h"
#include "base/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PACK_MAGIC "libfail-pack 1\n"

static bool put_length(FILE *out, size_t length)
{
    unsigned char bytes[4] = {(unsigned char)length, (unsigned char)(length >> 8),
                              (unsigned char)(length >> 16), (unsigned char)(length >> 24)};
    return fwrite(bytes, 1, 4, out) == 4;
}

struct pack_writer {
    FILE *out;
    size_t base; /* the folder's length: each file is named by its path below it */
};

/* One file of the folder into the pack; false on a write error or a file that cannot be read. */
static bool pack_file(const char *path, void *context)
{
    struct pack_writer *writer = context;
    size_t length = 0;
    char *bytes = read_whole_file(path, &length);
    const char *name = path + writer->base;
    size_t name_length = strlen(name);
    bool ok = bytes && length <= UINT32_MAX && put_length(writer->out, name_length) &&
              fwrite(name, 1, name_length, writer->out) == name_length &&
              put_length(writer->out, length) && fwrite(bytes, 1, length, writer->out) == length;
    free(bytes);
    return ok;
}

bool pack_tree(const char *folder, const char *pack)
{
    char *temporary = xasprintf("%s.tmp", pack);
    struct pack_writer writer = {fopen(temporary, "wbe"), strlen(folder)};
    bool ok = writer.out && fputs(PACK_MAGIC, writer.out) >= 0 &&
              each_file_below(folder, pack_file, &writer);
    if (writer.out && fclose(writer.out) != 0)
        ok = false;
    ok = ok && rename(temporary, pack) == 0;
    int saved = errno;
    if (!ok)
        unlink(temporary);
    free(temporary);
    errno = saved;
    return ok;
}

static size_t get_length(const unsigned char *at)
{
    return (size_t)at[0] | (size_t)at[1] << 8 | (size_t)at[2] << 16 | (size_t)at[3] << 24;
}

char *pack_load(const char *pack, size_t *length)
{
    char *bytes = read_whole_file(pack, length);
    if (bytes && (*length < strlen(PACK_MAGIC) ||
                  memcmp(bytes, PACK_MAGIC, strlen(PACK_MAGIC)))) {
        free(bytes);
        return NULL;
    }
    return bytes;
}

bool pack_next(const char *bytes, size_t length, size_t *at, struct pack_entry *entry)
{
    size_t offset = *at ? *at : strlen(PACK_MAGIC);
    const unsigned char *data = (const unsigned char *)bytes;
    if (offset + 4 > length)
        return false;
    size_t name_length = get_length(data + offset);
    if (name_length > length - offset - 4 || length - offset - 4 - name_length < 4)
        return false;
    size_t data_at = offset + 4 + name_length + 4;
    size_t data_length = get_length(data + data_at - 4);
    if (data_length > length - data_at)
        return false;
    entry->name = bytes + offset + 4;
    entry->name_length = name_length;
    entry->bytes = bytes + data_at;
    entry->length = data_length;
    *at = data_at + data_length;
    return true;
}
