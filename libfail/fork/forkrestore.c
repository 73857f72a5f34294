/*
 * forkrestore.c — a start's working folder as it was before its children ran (PLAN_START).
 *
 * A start's children run against the suite's live fixtures, and what they do shows in the
 * suite's files: a test server appends every request it gets to its log (curl's sws opens
 * log/server.input with "ab" for each request), and the harness compares that log with the
 * test's expected protocol once the unfailed program is done. With the children's requests in
 * it the test fails, a harness that stops at its first failed test (curl's runtests) stops, and
 * every later start needs another run of the whole suite. When failrun asks for it (the start
 * file's "restore=1": where the folder is the command's, by default), the start notes every
 * regular file under its working folder before its first child (device, inode and size), and
 * after the last one puts the folder back before the program goes on.
 *
 * Cautious, since other processes may write there too:
 * - nothing is done when a process of the start's process group (the command's) started while
 *   the children ran, other than the children: a parallel harness's other tests;
 * - a file some process still holds open (a parallel test's log, a shell's redirection,
 *   failrun's own output) is left as it is: what grew it may still be writing;
 * - the file cut is the one noted (opened without following links or blocking, then checked by
 *   device and inode);
 * - a working folder others share (world-writable or sticky: /tmp) is never noted, nor one
 *   whose walk failed somewhere (an unreadable folder), nor a tree beyond RESTORE_FILES files or
 *   RESTORE_DEPTH folders deep: then nothing is put back, as without the option;
 * - failrun's own folders (the fork run's, the run's) and hidden files and folders (.failrun)
 *   are never walked, and failrun asks for none of it where its campaign's files lie in the
 *   working folder otherwise, or for a start outside the command's folder.
 * Besides files that grew, files that appeared are removed (curl's runtests removes
 * log/server.input before each test: the first child's request made it anew). New folders are
 * left.
 * A file rewritten in place, replaced or removed is not put back (the start's last unfailed
 * child tells failrun when that mattered).
 *
 * Runs inside the target: no malloc (static tables: the noted files in an open-addressed hash by
 * device and inode), no stdio.
 */
#include "forkmode.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RESTORE_FILES 8192
#define RESTORE_SLOTS (2 * RESTORE_FILES) /* a power of two */
#define RESTORE_DEPTH 6
#define RESTORE_KEEP_OUT 4
#define RESTORE_GROWN 64

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

/* The files that grew, open (verified), with the size to cut them back to (fd -1: one that
   appeared, to remove). */
static struct {
    int fd;
    uint64_t device, inode;
    int64_t size;
    bool held; /* another process has it open */
} grown[RESTORE_GROWN];
static int grown_count;
static uint64_t noted_ticks; /* when the folder was noted, in clock ticks since boot */

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

/* A noted file that grew: opened without following a link or blocking on a FIFO, kept when it
   is the noted regular file. */
static void LF_TEXT note_growth(int folder, const char *name, const struct noted_file *slot)
{
    if (grown_count == RESTORE_GROWN)
        return;
    int file = openat(folder, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat info;
    if (file < 0)
        return;
    if (fstat(file, &info) != 0 || !S_ISREG(info.st_mode) ||
        (uint64_t)info.st_dev != slot->device || (uint64_t)info.st_ino != slot->inode ||
        (int64_t)info.st_size <= slot->size) {
        close(file);
        return;
    }
    grown[grown_count].fd = file;
    grown[grown_count].device = slot->device;
    grown[grown_count].inode = slot->inode;
    grown[grown_count].size = slot->size;
    grown[grown_count].held = false;
    grown_count++;
}

/* A file that appeared: noted to be removed once no process is seen holding it. */
static void LF_TEXT note_new(const struct stat *info)
{
    if (grown_count == RESTORE_GROWN)
        return;
    grown[grown_count].fd = -1;
    grown[grown_count].device = (uint64_t)info->st_dev;
    grown[grown_count].inode = (uint64_t)info->st_ino;
    grown[grown_count].size = 0;
    grown[grown_count].held = false;
    grown_count++;
}

static bool LF_TEXT new_and_free(const struct stat *info)
{
    for (int i = 0; i < grown_count; i++)
        if (grown[i].fd < 0 && grown[i].device == (uint64_t)info->st_dev &&
            grown[i].inode == (uint64_t)info->st_ino)
            return !grown[i].held;
    return false;
}

/* WALK_NOTE: note each file; WALK_GROWN: find those that grew or appeared; WALK_REMOVE: remove
   those that appeared and no process holds. */
enum walk_step { WALK_NOTE, WALK_GROWN, WALK_REMOVE };

/* Walks the folder `path` (relative to the folder open at `at`). False when something could
   not be seen or the tree is larger than the bounds (noting stops there). */
static bool LF_TEXT walk(int at, const char *path, int depth, enum walk_step step)
{
    static struct fork_dir levels[RESTORE_DEPTH + 1];
    struct fork_dir *folder = &levels[depth];
    bool noting = step == WALK_NOTE;
    if (!fork_dir_open(folder, at, path))
        return !noting;
    bool whole = true;
    unsigned char type;
    for (const char *name; whole && (name = fork_dir_next(folder, &type));) {
        if (name[0] == '.') /* ., .., and hidden folders and files (.failrun, .git) */
            continue;
        if (type != DT_REG && type != DT_DIR && type != DT_UNKNOWN)
            continue;
        struct stat info;
        /* Noting, whatever cannot be seen makes the table untrustworthy; putting back, it is
           skipped (a file gone since, a folder made since). */
        if (fstatat(folder->fd, name, &info, AT_SYMLINK_NOFOLLOW) != 0) {
            whole = !noting;
            continue;
        }
        if (S_ISDIR(info.st_mode)) {
            if (!kept_out(&info))
                whole = depth < RESTORE_DEPTH ? walk(folder->fd, name, depth + 1, step) || !noting
                                              : !noting;
            continue;
        }
        if (!S_ISREG(info.st_mode))
            continue;
        struct noted_file *slot = slot_of((uint64_t)info.st_dev, (uint64_t)info.st_ino);
        if (noting) {
            if (!slot || noted_count == RESTORE_FILES) {
                whole = false;
                continue;
            }
            if (slot->inode == 0)
                noted_count++;
            *slot = (struct noted_file){(uint64_t)info.st_dev, (uint64_t)info.st_ino,
                                        (int64_t)info.st_size};
        } else if (slot && slot->inode != 0) {
            if (step == WALK_GROWN && (int64_t)info.st_size > slot->size)
                note_growth(folder->fd, name, slot);
        } else if (step == WALK_GROWN) {
            note_new(&info);
        } else if (new_and_free(&info)) {
            unlinkat(folder->fd, name, 0);
        }
    }
    if (folder->failed && noting)
        whole = false;
    fork_dir_close(folder);
    return whole;
}

/* Marks the grown files some other process has open: every descriptor of every process in
   /proc, by device and inode. */
static void LF_TEXT mark_held(void)
{
    static struct fork_dir processes, descriptors;
    if (!fork_dir_open(&processes, AT_FDCWD, "/proc")) {
        for (int i = 0; i < grown_count; i++)
            grown[i].held = true; /* cannot tell: leave every file as it is */
        return;
    }
    pid_t self = getpid();
    for (const char *name; (name = fork_dir_next(&processes, NULL));) {
        uint64_t pid = 0;
        char path[48];
        if (!parse_decimal(name, strlen(name), &pid) || pid == (uint64_t)self)
            continue;
        fork_append(path, fork_append(path, 0, name), "/fd");
        if (!fork_dir_open(&descriptors, processes.fd, path))
            continue;
        for (const char *fd; (fd = fork_dir_next(&descriptors, NULL));) {
            struct stat info;
            if (fd[0] == '.' || fstatat(descriptors.fd, fd, &info, 0) != 0)
                continue;
            for (int i = 0; i < grown_count; i++)
                if ((uint64_t)info.st_dev == grown[i].device &&
                    (uint64_t)info.st_ino == grown[i].inode)
                    grown[i].held = true;
        }
        fork_dir_close(&descriptors);
    }
    fork_dir_close(&processes);
}

static uint64_t LF_TEXT ticks_since_boot(void)
{
    struct timespec now;
    long hertz = sysconf(_SC_CLK_TCK);
    if (clock_gettime(CLOCK_BOOTTIME, &now) != 0 || hertz <= 0)
        return 0;
    return (uint64_t)now.tv_sec * (uint64_t)hertz +
           (uint64_t)now.tv_nsec / (1000000000ull / (uint64_t)hertz);
}

/* /proc/PID/stat of `pid` (a decimal name) into text[size]; false when it is gone. */
static bool LF_TEXT read_stat(int proc, const char *pid, char *text, size_t size)
{
    char path[48];
    fork_append(path, fork_append(path, 0, pid), "/stat");
    int file = openat(proc, path, O_RDONLY | O_CLOEXEC);
    if (file < 0)
        return false;
    ssize_t got = read(file, text, size - 1);
    close(file);
    if (got <= 0)
        return false;
    text[got] = '\0';
    return true;
}

/* Did a process of this process group, other than this one and its ancestors, start since the
   folder was noted (its start time in /proc/PID/stat)? The children are reaped by now: such a
   process is something else at work beside the start (a parallel harness's next test). Start
   times count clock ticks (10 ms): one in the tick of the note counts as started after it, since
   a start whose children took less than a tick would otherwise miss everything beside it. */
static bool LF_TEXT others_started(void)
{
    static struct fork_dir processes;
    static char stat_text[1024];
    if (!fork_dir_open(&processes, AT_FDCWD, "/proc"))
        return true; /* cannot tell */
    pid_t group = getpgrp();
    /* This process and the chain of its parents (the harness's shell that started it, begun in
       the same tick maybe): never something beside it. */
    uint64_t ancestors[16];
    int ancestor_count = 0;
    ancestors[ancestor_count++] = (uint64_t)getpid();
    for (uint64_t parent = (uint64_t)getppid(); parent > 1 && ancestor_count < 16;) {
        ancestors[ancestor_count++] = parent;
        char name[24];
        name[format_decimal(name, parent)] = '\0';
        if (!read_stat(processes.fd, name, stat_text, sizeof stat_text) ||
            !fork_stat_field(stat_text, 4, &parent))
            break;
    }
    bool started = false;
    for (const char *name; !started && (name = fork_dir_next(&processes, NULL));) {
        uint64_t pid = 0;
        bool ancestor = false;
        if (!parse_decimal(name, strlen(name), &pid))
            continue;
        for (int i = 0; i < ancestor_count && !ancestor; i++)
            ancestor = ancestors[i] == pid;
        if (ancestor || !read_stat(processes.fd, name, stat_text, sizeof stat_text))
            continue;
        /* "PID (COMM) STATE PPID PGRP ...": field 5 the process group, 22 the start time */
        uint64_t its_group = 0, start = 0;
        started = fork_stat_field(stat_text, 5, &its_group) && its_group == (uint64_t)group &&
                  fork_stat_field(stat_text, 22, &start) && start >= noted_ticks;
    }
    fork_dir_close(&processes);
    return started;
}

void LF_TEXT fork_restore_note(void)
{
    if (noted_count) /* a second start in one process (an exec'd image starts afresh) */
        memset(noted, 0, sizeof noted);
    noted_count = 0;
    noted_whole = false;
    struct stat here;
    if (stat(".", &here) != 0 || (here.st_mode & (S_IWOTH | S_ISVTX)))
        return; /* a folder others share: /tmp */
    noted_whole = walk(AT_FDCWD, ".", 0, WALK_NOTE);
    noted_ticks = ticks_since_boot();
}

void LF_TEXT fork_restore_put_back(void)
{
    if (!noted_whole)
        return;
    noted_whole = false;
    grown_count = 0;
    if (!noted_ticks || others_started())
        return;
    walk(AT_FDCWD, ".", 0, WALK_GROWN);
    if (!grown_count)
        return;
    mark_held();
    bool appeared = false;
    for (int i = 0; i < grown_count; i++) {
        appeared |= grown[i].fd < 0 && !grown[i].held;
        if (grown[i].fd < 0)
            continue;
        if (!grown[i].held && ftruncate(grown[i].fd, grown[i].size) != 0) {
            /* left as it is: the last unfailed child tells failrun */
        }
        close(grown[i].fd);
    }
    if (appeared)
        walk(AT_FDCWD, ".", 0, WALK_REMOVE);
    grown_count = 0;
}
