/*
 * pack.c — the regular files of a folder tree as one file (pack.h).
 *
 * Layout: the magic line "libfail-pack 1\n", then one entry per file: its path below the folder
 * (starting with '/') and its bytes, each behind its length as 4 bytes, little-endian. No index:
 * the reader walks the entries, and a pack cut short (failrun killed while writing it) ends at
 * the last whole entry.
 *
 * A collection (pack_append) is packs one after the other, each behind the text line
 * "libfail-packs 1 KEY LENGTH\n", LENGTH the pack's bytes (0: the key's pack removed).
 */
#include "base/pack.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PACK_MAGIC "libfail-pack 1\n"
#define COLLECTION_MAGIC "libfail-packs 1 "
#define KEY_MAX 256 /* a key's bytes, its NUL included */

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

/* The pack of every regular file below `folder`, behind its collection line for `key`, into
   memory (free it); NULL with errno set when a file could not be read. */
static char *pack_in_memory(const char *folder, const char *key, size_t *length)
{
    char *bytes = NULL;
    size_t size = 0;
    struct pack_writer writer = {open_memstream(&bytes, &size), strlen(folder)};
    if (!writer.out)
        return NULL;
    bool ok = fputs(PACK_MAGIC, writer.out) >= 0 && each_file_below(folder, pack_file, &writer);
    int saved = errno;
    if (fclose(writer.out) != 0 || !ok) {
        free(bytes);
        errno = ok ? errno : saved;
        return NULL;
    }
    char *record = xasprintf(COLLECTION_MAGIC "%s %zu\n", key, size);
    size_t header = strlen(record);
    record = xrealloc(record, header + size);
    memcpy(record + header, bytes, size);
    free(bytes);
    *length = header + size;
    return record;
}

static pthread_mutex_t append_lock = PTHREAD_MUTEX_INITIALIZER;

/* Appends `length` bytes to the collection whole, or not at all. */
static bool append_record(const char *collection, const char *record, size_t length)
{
    pthread_mutex_lock(&append_lock);
    int fd = open(collection, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    struct stat before = {.st_size = -1};
    bool ok = fd >= 0 && fstat(fd, &before) == 0;
    for (size_t done = 0; ok && done < length;) {
        ssize_t n = write(fd, record + done, length - done);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        done += ok ? (size_t)n : 0;
    }
    int saved = errno;
    if (fd >= 0 && !ok && before.st_size >= 0)
        (void)ftruncate(fd, before.st_size); /* a cut record would hide every later one */
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    pthread_mutex_unlock(&append_lock);
    errno = ok ? errno : saved;
    return ok;
}

bool pack_append(const char *folder, const char *collection, const char *key)
{
    if (!*key || strchr(key, '\n') || strlen(key) >= KEY_MAX) {
        errno = EINVAL;
        return false;
    }
    size_t length = 0;
    char *record = pack_in_memory(folder, key, &length);
    bool ok = record && append_record(collection, record, length);
    free(record);
    return ok;
}

bool pack_append_removal(const char *collection, const char *key)
{
    if (!*key || strchr(key, '\n') || strlen(key) >= KEY_MAX) {
        errno = EINVAL;
        return false;
    }
    char *record = xasprintf(COLLECTION_MAGIC "%s 0\n", key);
    bool ok = append_record(collection, record, strlen(record));
    free(record);
    return ok;
}

struct pack_place {
    char *key;
    off_t at; /* of the pack's bytes */
    size_t length;
    size_t order;
    bool live;     /* a pack when read (not a removal, nor given back by an earlier cov) */
    bool released; /* given back since */
};

/* Read once; each use opens the collection again, so that a failrun cov that reads a
   campaign's many folders holds no descriptor for each. */
struct pack_index {
    char *path;
    off_t size; /* the collection's, when read */
    struct pack_place *places; /* by key, one a key: its latest */
    size_t count, live, released;
};

static int by_key_then_order(const void *a, const void *b)
{
    const struct pack_place *x = a, *y = b;
    int order = strcmp(x->key, y->key);
    return order ? order : x->order < y->order ? -1 : x->order > y->order;
}

/* The collection line at `at`: its key (into key, size KEY_MAX) and its pack's length; false
   at the end or where it is cut short or not a collection's. */
static bool read_line_at(int fd, off_t at, off_t size, char *key, size_t *length, off_t *data)
{
    char line[KEY_MAX + 64];
    ssize_t n = pread(fd, line, sizeof line - 1, at);
    if (n <= 0)
        return false;
    line[n] = '\0';
    char *end = memchr(line, '\n', (size_t)n);
    size_t magic = strlen(COLLECTION_MAGIC);
    if (!end || (size_t)n < magic || memcmp(line, COLLECTION_MAGIC, magic))
        return false;
    *end = '\0';
    char *space = strrchr(line + magic, ' ');
    if (!space || space == line + magic || (size_t)(space - line - magic) >= KEY_MAX)
        return false;
    char *digits_end = NULL;
    unsigned long long value = strtoull(space + 1, &digits_end, 10);
    if (!digits_end || *digits_end || digits_end == space + 1)
        return false;
    *space = '\0';
    strcpy(key, line + magic);
    *length = (size_t)value;
    *data = at + (end - line) + 1;
    return value <= (unsigned long long)(size - *data);
}

/* Whether a record may end at `end`: the collection's end, or the next record's line. */
static bool record_ends_at(int fd, off_t end, off_t size)
{
    char magic[sizeof COLLECTION_MAGIC - 1];
    return end == size || (pread(fd, magic, sizeof magic, end) == (ssize_t)sizeof magic &&
                           !memcmp(magic, COLLECTION_MAGIC, sizeof magic));
}

/* The next record's line at or after `from`, -1 when none: past a pack cut short (failrun killed
   while appending it), the packs appended after it. */
static off_t next_record(int fd, off_t from, off_t size)
{
    size_t magic = strlen(COLLECTION_MAGIC);
    char buffer[1 << 16];
    for (off_t at = from; at < size; at += (off_t)(sizeof buffer - magic)) {
        ssize_t n = pread(fd, buffer, sizeof buffer, at);
        if (n < (ssize_t)magic)
            return -1;
        char *found = memmem(buffer, (size_t)n, COLLECTION_MAGIC, magic);
        if (found)
            return at + (found - buffer);
    }
    return -1;
}

/* Whether the `length` bytes at `at` start as a pack does (a given-back one reads as zeros). */
static bool pack_starts_at(int fd, off_t at, size_t length)
{
    char magic[sizeof PACK_MAGIC - 1];
    return length >= sizeof magic &&
           pread(fd, magic, sizeof magic, at) == (ssize_t)sizeof magic &&
           !memcmp(magic, PACK_MAGIC, sizeof magic);
}

struct pack_index *pack_index_load(const char *collection)
{
    int fd = open(collection, O_RDONLY | O_CLOEXEC);
    struct stat status;
    if (fd < 0 || fstat(fd, &status) != 0) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    struct pack_index *index = xcalloc(1, sizeof *index);
    index->path = xstrdup(collection);
    index->size = status.st_size;
    size_t capacity = 0;
    char key[KEY_MAX];
    size_t length;
    off_t data;
    for (off_t at = 0; at >= 0 && at < index->size;) {
        if (!read_line_at(fd, at, index->size, key, &length, &data) ||
            !record_ends_at(fd, data + (off_t)length, index->size)) {
            at = next_record(fd, at + 1, index->size);
            continue;
        }
        if (index->count == capacity) {
            capacity = capacity ? 2 * capacity : 256;
            index->places = xrealloc(index->places, capacity * sizeof *index->places);
        }
        index->places[index->count] =
            (struct pack_place){xstrdup(key), data, length, index->count, false, false};
        index->count++;
        at = data + (off_t)length;
    }
    if (index->count)
        qsort(index->places, index->count, sizeof *index->places, by_key_then_order);
    size_t kept = 0; /* the last of each key */
    for (size_t i = 0; i < index->count; i++) {
        struct pack_place *place = &index->places[i];
        if (i + 1 < index->count && !strcmp(place->key, index->places[i + 1].key)) {
            free(place->key);
            continue;
        }
        place->live = pack_starts_at(fd, place->at, place->length);
        index->live += place->live;
        index->places[kept++] = *place;
    }
    index->count = kept;
    close(fd);
    return index;
}

static struct pack_place *place_of(const struct pack_index *index, const char *key)
{
    size_t low = 0, high = index ? index->count : 0;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        int order = strcmp(index->places[middle].key, key);
        if (!order)
            return &index->places[middle];
        if (order < 0)
            low = middle + 1;
        else
            high = middle;
    }
    return NULL;
}

char *pack_index_get(const struct pack_index *index, const char *key, size_t *length)
{
    const struct pack_place *place = place_of(index, key);
    int fd = place && place->live ? open(index->path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0)
        return NULL;
    char *bytes = NULL;
    size_t done = 0;
    if (pack_starts_at(fd, place->at, place->length)) { /* else given back since */
        bytes = xmalloc(place->length);
        while (done < place->length) {
            ssize_t n = pread(fd, bytes + done, place->length - done, place->at + (off_t)done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            done += (size_t)n;
        }
    }
    close(fd);
    if (bytes && done < place->length) {
        free(bytes);
        bytes = NULL;
    }
    if (bytes)
        *length = place->length;
    return bytes;
}

void pack_index_release(struct pack_index *index, const char *key)
{
    struct pack_place *place = place_of(index, key);
    if (!place || !place->live || place->released)
        return;
    place->released = true;
    index->released++;
    int fd = open(index->path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, place->at,
                        (off_t)place->length);
        close(fd);
    }
}

bool pack_index_all_released(const struct pack_index *index)
{
    struct stat status;
    return index->released == index->live && stat(index->path, &status) == 0 &&
           status.st_size == index->size;
}

void pack_index_free(struct pack_index *index)
{
    if (!index)
        return;
    for (size_t i = 0; i < index->count; i++)
        free(index->places[i].key);
    free(index->places);
    free(index->path);
    free(index);
}

static size_t get_length(const unsigned char *at)
{
    return (size_t)at[0] | (size_t)at[1] << 8 | (size_t)at[2] << 16 | (size_t)at[3] << 24;
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
