/*
 * forkmode.c — `failrun run --fork` inside the target (plan mode=fork): when a process reaches an
 * allocation site for the first time, it forks; the child fails that allocation and runs to its
 * end as the fault run of the site, in a folder of its own; the parent waits for it (or keeps up
 * to `jobs` children running) and goes on as if the allocation had succeeded. One execution of the
 * command then does the work of one re-run per site.
 *
 * Runs inside an allocator interposer with runtime_guard set: never calls malloc (paths live in
 * static or stack buffers; the child's environment is a static array), takes no lock.
 *
 * Why clone() with no exit signal rather than fork():
 * - fork() runs the program's pthread_atfork handlers, in the middle of an allocation: a handler
 *   that takes a lock the program holds right now deadlocks, and a handler that resets state in
 *   the child makes the child unlike the process whose error leg it is meant to show. The child
 *   here must be the parent, continued with a failed allocation; the parent must not notice.
 * - a child that sends SIGCHLD, or that wait(-1) can return, is visible to the program: its
 *   SIGCHLD handler runs, its wait() reaps our child as if it were its own. A "clone child" (exit
 *   signal 0) sends no signal and only waitpid with __WALL/__WCLONE sees it.
 * - glibc's fork() state changes in the child that matter are redone here by hand: the robust
 *   mutex list is registered again; raise() and abort() ask the kernel for the thread id, so the
 *   stale cached one does no harm. The process is single-threaded at the fork (checked), so no
 *   lock of malloc, stdio or the loader can be held by another thread.
 * Where forking cannot give a faithful child the site is left unclaimed and failrun re-runs it:
 * more than one thread, or standard input a pipe or socket (the child would read the parent's
 * input away).
 *
 * A site is claimed once per campaign, across all processes, by creating its folder (mkdir is
 * atomic); failrun pre-creates the folders of sites it does not want forked.
 *
 * Every child is reaped before its parent's image ends (exit, _exit: runtime_exit); a child
 * still running when the parent execs is never reaped and writes no `result`, so failrun re-runs
 * its site. A child dies with its parent (PR_SET_PDEATHSIG), so a killed campaign leaves none.
 *
 * This file decides whether a process may fork, claims the site, forks and waits for the
 * children. The child's side is forkchild.c, the children of a program's start forkstart.c;
 * what the three share is in forkmode.h.
 */
#include "forkmode.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h> /* rename(2) only: no stdio stream is used */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#endif

#ifndef __WALL
#define __WALL 0x40000000
#endif

struct forkmode_state fork_state;

/* Regular files open for writing and sockets, as they were when this image started: a harness's
   log (as ctest gives every test) is given to a child as a copy of its own, a file the program
   opened itself keeps it from forking (see process_unforkable); an inherited socket stays shared (a
   launcher's, mostly idle), but one the program made itself (a connection to a test server, a
   listening socket) keeps it from forking: the child would read its parent's answers. */
#define INHERITED_MAX 32
static struct inherited_file {
    int fd;
    dev_t device;
    ino_t inode;
} inherited[INHERITED_MAX];
static int inherited_count;

static uint64_t LF_TEXT now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

size_t LF_TEXT fork_append(char *out, size_t length, const char *text)
{
    size_t n = strlen(text);
    memcpy(out + length, text, n + 1);
    return length + n;
}

void LF_TEXT fork_site_name(char *out, uint64_t signature)
{
    out[format_hex16(out, signature)] = '\0';
}

void LF_TEXT fork_folder_path(char *out, const char *name)
{
    fork_append(out, fork_append(out, fork_append(out, 0, fork_state.root), "/"), name);
}

void LF_TEXT fork_file_in(char *out, const char *dir, const char *name)
{
    fork_append(out, fork_append(out, fork_append(out, 0, dir), "/"), name);
}

bool LF_TEXT fork_dir_open(struct fork_dir *dir, int at, const char *path)
{
    dir->fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    dir->length = dir->at = 0;
    dir->failed = false;
    return dir->fd >= 0;
}

const char *LF_TEXT fork_dir_next(struct fork_dir *dir, unsigned char *type)
{
    if (dir->at >= dir->length) {
        dir->length = syscall(SYS_getdents64, dir->fd, dir->buffer, sizeof dir->buffer);
        dir->at = 0;
        if (dir->length <= 0) {
            dir->failed = dir->length < 0;
            dir->length = 0;
            return NULL;
        }
    }
    /* struct linux_dirent64: inode, offset, record length, type, name */
    const char *entry = dir->buffer + dir->at;
    unsigned short record_length;
    memcpy(&record_length, entry + 16, sizeof record_length);
    dir->at += record_length;
    if (type)
        *type = (unsigned char)entry[18];
    return entry + 19;
}

void LF_TEXT fork_dir_close(struct fork_dir *dir)
{
    if (dir->fd >= 0)
        close(dir->fd);
    dir->fd = -1;
}

static bool LF_TEXT descriptor_number(const char *name, uint64_t *fd)
{
    return parse_decimal(name, strlen(name), fd) && *fd > 2 && *fd < FORK_FD_FLOOR;
}

/* The regular files this image has open for writing now, at its start (see inherited). */
static void LF_TEXT note_inherited_files(void)
{
    inherited_count = 0;
    struct fork_dir directory;
    if (!fork_dir_open(&directory, AT_FDCWD, "/proc/self/fd"))
        return;
    for (const char *name; (name = fork_dir_next(&directory, NULL));) {
        uint64_t fd;
        struct stat st;
        if (!descriptor_number(name, &fd) || (int)fd == directory.fd ||
            fstat((int)fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode)))
            continue;
        int flags = fcntl((int)fd, F_GETFL);
        if (flags < 0 || (S_ISREG(st.st_mode) && (flags & O_ACCMODE) == O_RDONLY) ||
            inherited_count == INHERITED_MAX)
            continue;
        inherited[inherited_count++] = (struct inherited_file){(int)fd, st.st_dev, st.st_ino};
    }
    fork_dir_close(&directory);
}

static bool LF_TEXT was_inherited(int fd, const struct stat *st)
{
    for (int i = 0; i < inherited_count; i++)
        if (inherited[i].fd == fd && inherited[i].device == st->st_dev &&
            inherited[i].inode == st->st_ino)
            return true;
    return false;
}

void LF_TEXT forkmode_init(const struct plan *plan)
{
    const char *root = getenv("LIBFAIL_FORK");
    /* Room for ROOT/start-HASH-N/result.tmp and the like in PATH_MAX buffers. */
    if (!root || root[0] != '/' || strlen(root) >= PATH_MAX - 96)
        return; /* nowhere to put the children: record only */
    fork_append(fork_state.root, 0, root);
    /* failrun pads the root with slashes to the length every run's value has (environment.c):
       the children's folders are named without them. */
    size_t length = strlen(fork_state.root);
    while (length > 1 && fork_state.root[length - 1] == '/')
        fork_state.root[--length] = '\0';
    fork_state.jobs = plan->jobs ? plan->jobs : 1;
    if (fork_state.jobs > PLAN_MAX_JOBS)
        fork_state.jobs = PLAN_MAX_JOBS;
    fork_state.timeout_ns = plan->timeout_ms * 1000000ull;
    fork_state.depth = plan->depth;
    fork_state.cpu_ms = plan->cpu_ms;
    /* gcov's reset, when the program exports it: the child's counters then hold only what it ran
       after the fork (what ran before is the parent's, and the baseline's). */
    fork_state.gcov_reset = (void (*)(void))dlsym(RTLD_DEFAULT, "__gcov_reset");
    fork_state.owner = getpid();
    fork_state.enabled = true;
    const char *preloads = getenv("LD_PRELOAD");
    fork_state.under_valgrind = preloads && strstr(preloads, "vgpreload_");
    testcase_configure(plan);
    note_inherited_files();
}

/* ---- may this process fork here? ---- */

bool LF_TEXT fork_stat_field(const char *text, int number, uint64_t *value)
{
    const char *field = strrchr(text, ')'); /* the command name may hold spaces and parens */
    for (int i = 2; i < number && field; i++) /* from field 2 (the name) to field `number` */
        field = strchr(field + 1, ' ');
    if (!field)
        return false;
    const char *end = field + 1;
    while (*end >= '0' && *end <= '9')
        end++;
    return parse_decimal(field + 1, (size_t)(end - field - 1), value);
}

/* glibc's flag turns false at the first pthread_create and stays so; a thread made with a raw
   clone does not touch it, so the kernel's count (field 20 of /proc/self/stat) decides too. */
static bool LF_TEXT single_threaded_now(void)
{
#if __has_include(<sys/single_threaded.h>)
    if (!__libc_single_threaded)
        return false;
#endif
    char text[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    uint64_t threads = 0;
    return fork_stat_field(text, 20, &threads) && threads == 1;
}

static bool LF_TEXT input_is_shared_stream(void)
{
    struct stat input;
    return fstat(0, &input) == 0 && (S_ISFIFO(input.st_mode) || S_ISSOCK(input.st_mode));
}

/* A file open for writing bigger than this keeps the process from forking: its child's private
   copy (forkchild.c, private_copy) would cost more than a re-run. */
#define FORK_COPY_MAX (16ll << 20)

/* Can a child continue this process without sharing state with it that re-run mode would not
   share? Regular files open beyond standard input and output share one offset between parent and
   child: they are noted in `point`, to be reopened (read-only) or copied (written, if the image
   had it open for writing at its start: see inherited) in the child; more of them than the table
   holds, or a written one the program opened itself or over FORK_COPY_MAX, makes the answer no,
   and so does an armed interval timer (a clone child does not inherit it, and the parent's keeps
   ticking while it waits). Then the site is left to a re-run. So is a socket the program made
   itself (see inherited), away from the start. Pipes and inherited sockets other than 0-2 stay
   shared (inherited ones are common and mostly unused: a launcher's, make's jobserver); our own
   descriptors sit at FORK_FD_FLOOR and above. NULL when it can, else why not (a word
   failrun's report explains: forkrun.c). */
static const char *LF_TEXT process_unforkable(struct fork_point *point)
{
    static const int timers[] = {ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF};
    for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++) {
        struct itimerval timer;
        if (getitimer(timers[i], &timer) != 0 || timer.it_value.tv_sec || timer.it_value.tv_usec)
            return "timer";
    }
    struct fork_dir directory;
    if (!fork_dir_open(&directory, AT_FDCWD, "/proc/self/fd"))
        return "descriptors";
    const char *why = NULL;
    point->file_count = 0;
    for (const char *name; !why && (name = fork_dir_next(&directory, NULL));) {
        uint64_t fd;
        struct stat st;
        if (!parse_decimal(name, strlen(name), &fd) || fd <= 2 || fd >= FORK_FD_FLOOR ||
            (int)fd == directory.fd || fstat((int)fd, &st) != 0)
            continue;
        if (S_ISSOCK(st.st_mode) && !point->at_start && !was_inherited((int)fd, &st)) {
            why = "socket";
            continue;
        }
        if (!S_ISREG(st.st_mode))
            continue;
        int flags = fcntl((int)fd, F_GETFL);
        bool writable = flags >= 0 && (flags & O_ACCMODE) != O_RDONLY;
        /* A file the program opened for writing itself: a copy would not keep a child from
           reaching it by its name, and sharing it (its bytes saved and put back after the
           child) not from renaming or removing it, which its parent then misses (patch, in
           realworld-fork). Left to re-runs. */
        if (flags < 0 || point->file_count == FORK_FILES_MAX ||
            (writable && (st.st_size > FORK_COPY_MAX || !was_inherited((int)fd, &st)))) {
            why = "writing";
            continue;
        }
        struct private_file *file = &point->files[point->file_count++];
        file->fd = (int)fd;
        file->offset = lseek((int)fd, 0, SEEK_CUR);
        file->size = st.st_size;
        file->writable = writable;
    }
    fork_dir_close(&directory);
    return why;
}

/* Why this process did not fork at a site, for failrun's report: "SIGNATURE WHY" appended to
   ROOT/refused.PID (a process's own file: no two writers interleave). */
void LF_TEXT fork_note_refusal(uint64_t signature, const char *why)
{
    char path[PATH_MAX], line[64];
    size_t n = fork_append(path, 0, fork_state.root);
    n = fork_append(path, n, "/refused.");
    path[n + format_decimal(path + n, (uint64_t)getpid())] = '\0';
    size_t length = format_hex16(line, signature);
    line[length++] = ' ';
    length = fork_append(line, length, why);
    line[length++] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, line, length);
    (void)ignored;
    close(fd);
}

/* Why this process cannot fork now, filling `point`; NULL when it can. */
const char *LF_TEXT fork_unforkable_now(struct fork_point *point)
{
    return !single_threaded_now()     ? "threads"
           : input_is_shared_stream() ? "stdin"
                                      : process_unforkable(point);
}

/* ---- the parent: children in flight ---- */

static void LF_TEXT write_result(const struct fork_child *child, int status, bool timed_out,
                                 bool known)
{
    /* "status=S timed_out=T wall_ms=W parent=P pid=C\n", or status=unknown when the program
       reaped the child itself; written aside and renamed, so failrun sees all of it or none. */
    char dir[PATH_MAX], path[PATH_MAX], final_path[PATH_MAX], text[256];
    fork_folder_path(dir, child->folder);
    size_t n = fork_append(text, 0, "status=");
    if (known)
        n += format_decimal(text + n, (uint64_t)(unsigned)status);
    else
        n = fork_append(text, n, "unknown");
    n = fork_append(text, n, timed_out ? " timed_out=1 wall_ms=" : " timed_out=0 wall_ms=");
    n += format_decimal(text + n, (now_ns() - child->started_ns) / 1000000ull);
    n = fork_append(text, n, " parent=");
    n += format_decimal(text + n, (uint64_t)getpid());
    n = fork_append(text, n, " pid=");
    n += format_decimal(text + n, (uint64_t)child->pid);
    n = fork_append(text, n, "\n");
    fork_file_in(path, dir, "result.tmp");
    fork_file_in(final_path, dir, "result");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    bool written = write(fd, text, n) == (ssize_t)n;
    close(fd);
    if (written)
        rename(path, final_path);
}

static void LF_TEXT forget_child(unsigned index)
{
    if (fork_state.children[index].pidfd >= 0)
        close(fork_state.children[index].pidfd);
    fork_state.children[index] = fork_state.children[--fork_state.running];
}

/* Reap child `index` if it ended, or kill it (and its process group) when its time is up.
   True when it is gone. */
static bool LF_TEXT reap_child(unsigned index, uint64_t now)
{
    struct fork_child *child = &fork_state.children[index];
    int status = 0;
    pid_t done = waitpid(child->pid, &status, WNOHANG | __WALL);
    bool timed_out = false;
    if (done == 0 && fork_state.timeout_ns && now - child->started_ns >= fork_state.timeout_ns) {
        kill(-child->pid, SIGKILL);
        kill(child->pid, SIGKILL);
        timed_out = true;
        while ((done = waitpid(child->pid, &status, __WALL)) < 0 && errno == EINTR)
            ;
    }
    if (done == 0 || (done < 0 && errno == EINTR))
        return false;
    kill(-child->pid, SIGKILL); /* what the child started in its group: its run is over */
    write_result(child, status, timed_out, done == child->pid);
    fork_state.reaped_wall_ns = now_ns() - child->started_ns;
    fork_state.reaped_timed_out = timed_out;
    forget_child(index);
    return true;
}

/* Sleep until a child ends or the nearest deadline, at most 100 ms. */
static void LF_TEXT wait_a_moment(uint64_t now)
{
    struct pollfd fds[PLAN_MAX_JOBS];
    int64_t wait_ms = 100;
    bool every_child_has_pidfd = true;
    for (unsigned i = 0; i < fork_state.running; i++) {
        fds[i].fd = fork_state.children[i].pidfd;
        fds[i].events = POLLIN;
        every_child_has_pidfd = every_child_has_pidfd && fds[i].fd >= 0;
        if (fork_state.timeout_ns) {
            uint64_t deadline = fork_state.children[i].started_ns + fork_state.timeout_ns;
            int64_t left = deadline > now ? (int64_t)((deadline - now) / 1000000ull) + 1 : 0;
            if (left < wait_ms)
                wait_ms = left;
        }
    }
    if (every_child_has_pidfd) {
        poll(fds, fork_state.running, (int)wait_ms);
    } else {
        struct timespec pause = {0, 1000000}; /* an old kernel without pidfds: 1 ms steps */
        nanosleep(&pause, NULL);
    }
}

/* Wait until at most `keep` children are running. */
void LF_TEXT fork_wait_for_children(unsigned keep)
{
    while (fork_state.running > keep) {
        uint64_t now = now_ns();
        bool any = false;
        for (unsigned i = fork_state.running; i-- > 0;)
            any = reap_child(i, now) || any;
        if (!any && fork_state.running > keep)
            wait_a_moment(now);
    }
}

/* A fork of the program (or of ours) inherits the table, not the children: start empty. */
static void LF_TEXT adopt_table(void)
{
    pid_t self = getpid();
    if (fork_state.owner != self) {
        fork_state.owner = self;
        fork_state.running = 0;
    }
}

void LF_TEXT forkmode_finish(void)
{
    if (!fork_state.enabled)
        return;
    int saved_errno = errno;
    adopt_table();
    fork_wait_for_children(0);
    errno = saved_errno;
}

/* ---- forking ---- */

static off_t LF_TEXT regular_offset(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    return lseek(fd, 0, SEEK_CUR);
}

/* Fork the child whose folder is ROOT/`name` (made by the caller) once fewer than `jobs` run.
   True in the child, which has become the run of its folder; false in the parent, also when
   the fork failed (the folder is then removed: failrun re-runs its site). */
bool LF_TEXT fork_child(const char *name, struct fork_point *point)
{
    char dir[PATH_MAX];
    fork_folder_path(dir, name);
    fork_wait_for_children(fork_state.jobs - 1);
    /* Taken before the fork, while nothing else writes: the parent goes on right after it. At
       the start nothing was written yet by this image: the child's files hold its own bytes. */
    point->stdout_offset = point->at_start ? -1 : regular_offset(1);
    point->stderr_offset = point->at_start ? -1 : regular_offset(2);
    point->stdin_offset = regular_offset(0);
    if (syscall(SYS_get_robust_list, 0, &point->robust_head, &point->robust_length) != 0)
        point->robust_head = NULL;
    uint64_t started = now_ns();
    /* flags 0: a copy of this process (no CLONE_VM), exit signal none; a NULL stack pointer
       keeps the same stack, copied, as fork does. */
    long child = syscall(SYS_clone, 0ul, NULL, NULL, NULL, 0ul);
    if (child < 0) {
        rmdir(dir); /* unclaim: failrun re-runs it */
        return false;
    }
    if (child == 0) {
        fork_become_child(dir, point);
        return true;
    }
    setpgid((pid_t)child, (pid_t)child); /* also here: a timeout's kill must not race it */
    struct fork_child *entry = &fork_state.children[fork_state.running++];
    entry->pid = (pid_t)child;
    /* Under valgrind (3.19) pidfd_open is unknown, and its warning would land in the harness's
       log: children are then waited for in 1 ms steps. */
    entry->pidfd = fork_state.under_valgrind
                       ? -1
                       : (int)syscall(SYS_pidfd_open, (pid_t)child, 0); /* close-on-exec always */
    if (entry->pidfd >= 0) {
        /* Out of the way of the numbers the program opens next (as the record file is). */
        int high = fcntl(entry->pidfd, F_DUPFD_CLOEXEC, FORK_FD_FLOOR);
        if (high >= 0) {
            close(entry->pidfd);
            entry->pidfd = high;
        }
    }
    entry->started_ns = started;
    fork_append(entry->folder, 0, name);
    if (fork_state.jobs == 1)
        fork_wait_for_children(0);
    return false;
}

bool LF_TEXT forkmode_site(uint64_t signature, pid_t pid)
{
    if (!fork_state.enabled || getpid() != pid) /* a vfork child shares our memory: never */
        return false;
    adopt_table();
    struct fork_point point = {.parent = getpid()};
    const char *why = fork_unforkable_now(&point);
    if (why) {
        fork_note_refusal(signature, why);
        return false; /* unclaimed: failrun re-runs this site */
    }
    char name[24], dir[PATH_MAX];
    fork_site_name(name, signature);
    fork_folder_path(dir, name);
    if (mkdir(dir, 0755) != 0)
        return false; /* claimed by another process of the campaign, or by failrun */
    testcase_prepare();
    if (!fork_child(name, &point))
        return false; /* the parent's allocation goes ahead */
    testcase_arm(dir); /* where its test case ends, it ends */
    return true;      /* the allocation fails here */
}
