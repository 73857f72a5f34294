/*
 * pack.h — the regular files of a folder tree as one file, and back (pack.c).
 *
 * A run's gcov data is a tree that mirrors the build's absolute paths: at suite scale, a dozen
 * folders and a dozen files per run. Moving it from the scratch file system to the campaign's
 * folder on disk was most of failrun's own system calls in a fork run (a mkdir, create, write
 * and close per file, then a walk to remove it). As one file, a run costs one create.
 */
#ifndef LIBFAIL_BASE_PACK_H
#define LIBFAIL_BASE_PACK_H

#include <stdbool.h>
#include <stddef.h>

/* Writes every regular file below `folder` into `pack` (through PACK.tmp, renamed when whole);
   false with errno set when that failed, and no pack then. */
bool pack_tree(const char *folder, const char *pack);

/* One file of a pack: its path below the folder ('/' first; not NUL-terminated) and bytes,
   both inside the pack's bytes. */
struct pack_entry {
    const char *name;
    size_t name_length;
    const char *bytes;
    size_t length;
};

/* The whole pack into memory (free it), NULL when it is missing or not a pack. */
char *pack_load(const char *pack, size_t *length);

/* The entry at *at (0: the first) of a loaded pack, *at moved past it; false at the end, or
   where the pack was cut short. */
bool pack_next(const char *bytes, size_t length, size_t *at, struct pack_entry *entry);

#endif
