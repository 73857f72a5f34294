/*
 * pack.h — the regular files of a folder tree as one file, and back (pack.c).
 *
 * A run's gcov data is a tree that mirrors the build's absolute paths: at suite scale, a dozen
 * folders and a dozen files per run. Moving it from the scratch file system to the campaign's
 * folder on disk was most of failrun's own system calls in a fork run (a mkdir, create, write
 * and close per file, then a walk to remove it). As one pack appended to its folder's
 * collection, a run creates no file at all: on ext4 without a journal, each create soon after
 * many removals scans the recently freed inodes (recently_deleted), a third of failrun's CPU in
 * json-c's suite when each run had a pack file of its own.
 */
#ifndef LIBFAIL_BASE_PACK_H
#define LIBFAIL_BASE_PACK_H

#include <stdbool.h>
#include <stddef.h>

/* A collection of packs: one file that packs are only ever appended to, each under a key (a
   run's name), so that a campaign's thousands of runs create one file, not one each. A later
   pack of a key replaces the earlier; an empty one removes it. Appends in this process never
   interleave (a lock); a collection has one writing process (a campaign's folder). */
bool pack_append(const char *folder, const char *collection, const char *key);
bool pack_append_removal(const char *collection, const char *key);

/* Where each key's latest pack lies in a collection, read once; NULL when there is none. A
   collection cut short (failrun killed while appending) ends at its last whole pack. */
struct pack_index;
struct pack_index *pack_index_load(const char *collection);
/* The key's pack into memory (free it), NULL when it has none (or it was given back). */
char *pack_index_get(const struct pack_index *index, const char *key, size_t *length);
/* Gives back the disk space of the key's pack (its bytes read as no pack from then on; a pack
   of a few blocks gives back only its whole blocks until the collection goes). */
void pack_index_release(struct pack_index *index, const char *key);
/* Whether every pack the collection held when read was given back since, and nothing was
   appended: it may be removed. */
bool pack_index_all_released(const struct pack_index *index);
void pack_index_free(struct pack_index *index);

/* One file of a pack: its path below the folder ('/' first; not NUL-terminated) and bytes,
   both inside the pack's bytes. */
struct pack_entry {
    const char *name;
    size_t name_length;
    const char *bytes;
    size_t length;
};

/* The entry at *at (0: the first) of a loaded pack, *at moved past it; false at the end, or
   where the pack was cut short. */
bool pack_next(const char *bytes, size_t length, size_t *at, struct pack_entry *entry);

#endif
