/*
 * forkrestore.c — a start's working folder as it was before its children ran (PLAN_START).
 *
 * A start's children run against the suite's live fixtures, and what they do shows in the
 * suite's files: a test server appends every request it gets to its log (curl's sws writes
 * log/server.input with "ab"), and the harness compares that log with the test's expected
 * protocol once the unfailed program is done. With the children's requests in it the test
 * fails, a harness that stops at its first failed test (curl's runtests) stops, and every later
 * start needs another run of the whole suite. When failrun asks for it (the start file's
 * "restore=1": a fork run of the suite that stopped early before), the start notes every regular
 * file under its working folder before its first child (device, inode and size), and after the
 * last one puts the folder back for the unfailed program: a file that grew is cut back to its
 * size, a file that appeared is removed. A file rewritten in place, replaced or removed cannot be
 * put back and is left as it is (the start's last unfailed child tells failrun when that
 * mattered). failrun's own folders (the fork run's, the run's) and hidden files and folders
 * (.failrun) are never walked; failrun asks for none of it where its campaign's files lie in
 * the working folder otherwise.
 *
 * Bounded: at most RESTORE_FILES files, RESTORE_DEPTH folders deep; a larger tree is not noted
 * at all (nothing is put back, as without the option). Runs inside the target: no malloc (a
 * static table, kept by device and inode in an open-addressed hash), no stdio.
 */
#include "forkmode.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RESTORE_FILES 8192
#define RESTORE_SLOTS (2 * RESTORE_FILES) /* a power of two */
#define RESTORE_DEPTH 6
#define RESTORE_KEEP_OUT 4

struct noted_file {
    uint64_t device, inode; /* inode 0: an empty slot */
    int64_t size;
};

static struct noted_file noted[RESTORE_SLOTS];
static size_t noted_count;
static bool noted_whole; /* the walk saw every file: the table can be trusted */
static struct {
    uint64_t device, inode;
} keep_out[RESTORE_KEEP_OUT];
static int keep_out_count;

void LF_TEXT fork_restore_keep_out(const char *path)
{
    struct stat info;
    if (keep_out_count < RESTORE_KEEP_OUT && stat(path, &info) == 0 && S_ISDIR(info.st_mode)) {
        keep_out[keep_out_count].device = (uint64_t)info.st_dev;
        keep_out[keep_out_count].inode = (uint64_t)info.st_ino;
        keep_out_count++;
    }
}

static struct noted_file *LF_TEXT slot_of(uint64_t device, uint64_t inode)
{
    uint64_t hash = (inode * 0x9e3779b97f4a7c15ull) ^ (device * 0xff51afd7ed558ccdull);
    for (uint32_t probe = 0; probe < RESTORE_SLOTS; probe++) {
        struct noted_file *slot = &noted[(uint32_t)((hash >> 32) + probe) & (RESTORE_SLOTS - 1)];
        if (slot->inode == 0 || (slot->inode == inode && slot->device == device))
            return slot;
    }
    return NULL;
}

static bool LF_TEXT kept_out(const struct stat *info)
{
    for (int i = 0; i < keep_out_count; i++)
        if (keep_out[i].device == (uint64_t)info->st_dev &&
            keep_out[i].inode == (uint64_t)info->st_ino)
            return true;
    return false;
}

/* What to do with each regular file found: note it (before the children) or put it back. */
enum walk_step { WALK_NOTE, WALK_RESTORE };

/* Walks the folder open at `folder` (closed here). False when the tree is larger than the
   bounds (noting stops there). */
static bool LF_TEXT walk(int folder, int depth, enum walk_step step)
{
    static char entries[RESTORE_DEPTH + 1][4096];
    char *buffer = entries[depth];
    bool whole = true;
    for (;;) {
        long got = syscall(SYS_getdents64, folder, buffer, sizeof entries[0]);
        if (got <= 0)
            break;
        for (long at = 0; at < got;) {
            /* struct linux_dirent64: inode, offset, record length, type, name */
            unsigned short length;
            memcpy(&length, buffer + at + 16, sizeof length);
            unsigned char type = (unsigned char)buffer[at + 18];
            const char *name = buffer + at + 19;
            at += length;
            if (name[0] == '.') /* ., .., and hidden folders and files (.failrun, .git) */
                continue;
            struct stat info;
            if (type != DT_REG && type != DT_DIR && type != DT_UNKNOWN)
                continue;
            if (fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) != 0)
                continue;
            if (S_ISDIR(info.st_mode)) {
                if (kept_out(&info))
                    continue;
                if (depth == RESTORE_DEPTH) {
                    whole = false;
                    continue;
                }
                int inner = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (inner >= 0 && !walk(inner, depth + 1, step))
                    whole = false;
                continue;
            }
            if (!S_ISREG(info.st_mode))
                continue;
            struct noted_file *slot = slot_of((uint64_t)info.st_dev, (uint64_t)info.st_ino);
            if (step == WALK_NOTE) {
                if (!slot || noted_count == RESTORE_FILES) {
                    whole = false;
                    break;
                }
                if (slot->inode == 0)
                    noted_count++;
                *slot = (struct noted_file){(uint64_t)info.st_dev, (uint64_t)info.st_ino,
                                            (int64_t)info.st_size};
            } else if (!slot || slot->inode == 0) {
                unlinkat(folder, name, 0); /* made while the children ran */
            } else if ((int64_t)info.st_size > slot->size) {
                int file = openat(folder, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
                if (file >= 0) {
                    if (ftruncate(file, slot->size) != 0) {
                        /* left as it is: the last unfailed child tells failrun */
                    }
                    close(file);
                }
            }
        }
        if (!whole)
            break;
    }
    close(folder);
    return whole;
}

void LF_TEXT fork_restore_note(void)
{
    if (noted_count) /* a second start in one process (an exec'd image starts afresh) */
        memset(noted, 0, sizeof noted);
    noted_count = 0;
    int folder = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    noted_whole = folder >= 0 && walk(folder, 0, WALK_NOTE);
}

void LF_TEXT fork_restore_put_back(void)
{
    if (!noted_whole)
        return;
    int folder = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder >= 0)
        walk(folder, 0, WALK_RESTORE);
    noted_whole = false;
}
