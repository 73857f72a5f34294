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
 */
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h> /* rename(2) only: no stdio stream is used */
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

#define FORK_FD_FLOOR 800
#define FORK_ENVIRON_MAX 4096 /* entries of the child's environment we can rewrite with room */

extern char **environ;

struct fork_child {
    pid_t pid;
    int pidfd; /* -1: none, poll by sleeping */
    uint64_t started_ns;
    char folder[40]; /* its folder under the root: the site's signature, or start-NAME */
};

static struct {
    bool enabled;
    char root[PATH_MAX - 32]; /* LIBFAIL_FORK: each site's folder is ROOT/SIGNATURE */
    unsigned jobs;
    uint64_t timeout_ns;
    unsigned depth;
    uint64_t cpu_ms; /* the plan's cpu: what the child's programs get too */
    void (*gcov_reset)(void);
    pid_t owner; /* the process the children below belong to (a fork of the program inherits
                    this table but not the children) */
    struct fork_child children[PLAN_MAX_JOBS];
    unsigned running;
    bool under_valgrind; /* the process is valgrind's guest (its preloads say so) */
} fork_state;

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

/* The child's environment: our entries point into static buffers (setenv would allocate). */
static char environment_dir[PATH_MAX + 16];
static char environment_plan[512];
static char environment_gcov[PATH_MAX + 32];
static char *child_environment[FORK_ENVIRON_MAX];

static uint64_t LF_TEXT now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

static size_t LF_TEXT append(char *out, size_t length, const char *text)
{
    size_t n = strlen(text);
    memcpy(out + length, text, n + 1);
    return length + n;
}

static void LF_TEXT site_name(char *out, uint64_t signature)
{
    out[format_hex16(out, signature)] = '\0';
}

static void LF_TEXT folder_path(char *out, const char *name)
{
    append(out, append(out, append(out, 0, fork_state.root), "/"), name);
}

static void LF_TEXT file_in(char *out, const char *dir, const char *name)
{
    append(out, append(out, append(out, 0, dir), "/"), name);
}

static bool LF_TEXT descriptor_number(const char *name, uint64_t *fd)
{
    return parse_decimal(name, strlen(name), fd) && *fd > 2 && *fd < FORK_FD_FLOOR;
}

/* The regular files this image has open for writing now, at its start (see inherited). */
static void LF_TEXT note_inherited_files(void)
{
    inherited_count = 0;
    int directory = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0)
        return;
    char buffer[4096];
    long length;
    while ((length = syscall(SYS_getdents64, directory, buffer, sizeof buffer)) > 0) {
        for (long at = 0; at < length;) {
            const char *entry = buffer + at;
            unsigned short record_length;
            memcpy(&record_length, entry + 16, sizeof record_length); /* linux_dirent64 */
            at += record_length;
            uint64_t fd;
            struct stat st;
            if (!descriptor_number(entry + 19, &fd) || (int)fd == directory ||
                fstat((int)fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode)))
                continue;
            int flags = fcntl((int)fd, F_GETFL);
            if (flags < 0 || (S_ISREG(st.st_mode) && (flags & O_ACCMODE) == O_RDONLY) ||
                inherited_count == INHERITED_MAX)
                continue;
            inherited[inherited_count++] = (struct inherited_file){(int)fd, st.st_dev, st.st_ino};
        }
    }
    close(directory);
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
    append(fork_state.root, 0, root);
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
    const char *field = strrchr(text, ')'); /* the command name may hold spaces and parens */
    if (!field)
        return false;
    for (int i = 2; i < 20 && field; i++) /* from field 2 (the name) to field 20 */
        field = strchr(field + 1, ' ');
    if (!field)
        return false;
    const char *end = strchr(field + 1, ' ');
    uint64_t threads = 0;
    return end && parse_decimal(field + 1, (size_t)(end - field - 1), &threads) && threads == 1;
}

static bool LF_TEXT input_is_shared_stream(void)
{
    struct stat input;
    return fstat(0, &input) == 0 && (S_ISFIFO(input.st_mode) || S_ISSOCK(input.st_mode));
}

/* ---- the parent: children in flight ---- */

static void LF_TEXT write_result(const struct fork_child *child, int status, bool timed_out,
                                 bool known)
{
    /* "status=S timed_out=T wall_ms=W parent=P pid=C\n", or status=unknown when the program
       reaped the child itself; written aside and renamed, so failrun sees all of it or none. */
    char dir[PATH_MAX], path[PATH_MAX], final_path[PATH_MAX], text[256];
    folder_path(dir, child->folder);
    size_t n = append(text, 0, "status=");
    if (known)
        n += format_decimal(text + n, (uint64_t)(unsigned)status);
    else
        n = append(text, n, "unknown");
    n = append(text, n, timed_out ? " timed_out=1 wall_ms=" : " timed_out=0 wall_ms=");
    n += format_decimal(text + n, (now_ns() - child->started_ns) / 1000000ull);
    n = append(text, n, " parent=");
    n += format_decimal(text + n, (uint64_t)getpid());
    n = append(text, n, " pid=");
    n += format_decimal(text + n, (uint64_t)child->pid);
    n = append(text, n, "\n");
    file_in(path, dir, "result.tmp");
    file_in(final_path, dir, "result");
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
static void LF_TEXT wait_for_children(unsigned keep)
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
    wait_for_children(0);
    errno = saved_errno;
}

/* ---- the child ---- */

/* Copies `length` bytes from the start of `source` to `copy` (both descriptions of their own, at
   offset 0); false on an error. */
static bool LF_TEXT copy_bytes(int source, int copy, off_t length)
{
    bool copied = copy >= 0 && source >= 0, kernel_copy = true;
    off_t left = length;
    while (copied && left > 0) {
        /* The kernel copies within one file system; across two (a run folder on tmpfs) it
           says EXDEV, and the bytes go through a buffer. */
        size_t want = left < (1 << 20) ? (size_t)left : (size_t)1 << 20;
        ssize_t moved = kernel_copy ? copy_file_range(source, NULL, copy, NULL, want, 0) : -1;
        if (moved < 0 && kernel_copy && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
                                         errno == EOPNOTSUPP)) {
            kernel_copy = false;
            continue;
        }
        if (!kernel_copy) {
            char buffer[4096];
            moved = read(source, buffer, want < sizeof buffer ? want : sizeof buffer);
            if (moved > 0 && write(copy, buffer, (size_t)moved) != moved)
                moved = -1;
        }
        if (moved == 0)
            break;
        copied = moved > 0;
        left -= moved > 0 ? moved : 0;
    }
    return copied;
}

/* "/proc/self/fd/N": the file open as `fd`, to open again with a description of its own. */
static void LF_TEXT self_path(char *out, int fd)
{
    append(out, 0, "/proc/self/fd/");
    out[14 + format_decimal(out + 14, (uint64_t)fd)] = '\0';
}

/* Where the child's standard output or error goes: a file in its folder. For a regular file the
   parent's bytes up to the fork are copied first, so the child's file holds its whole output as
   if it had run alone; a pipe or socket (a harness reading it) gets no prefix; anything else (a
   terminal, /dev/null, closed) is left as it is unless `always` (a child at the start). */
static void LF_TEXT redirect_output(int fd, const char *dir, const char *name, off_t prefix,
                                    bool always)
{
    struct stat current;
    bool open_now = fstat(fd, &current) == 0;
    if (!always && (!open_now || !(S_ISREG(current.st_mode) || S_ISFIFO(current.st_mode) ||
                                   S_ISSOCK(current.st_mode))))
        return;
    char path[PATH_MAX];
    file_in(path, dir, name);
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0)
        return;
    if (open_now && S_ISREG(current.st_mode) && prefix > 0) {
        char self[40];
        self_path(self, fd);
        int in = open(self, O_RDONLY | O_CLOEXEC);
        copy_bytes(in, out, prefix);
        if (in >= 0)
            close(in);
    }
    dup2(out, fd);
    close(out);
}

/* A regular file as standard input is read through its own open file description from where
   the parent was, so neither moves the other's offset. */
static void LF_TEXT reopen_input(off_t offset)
{
    struct stat input;
    if (offset < 0 || fstat(0, &input) != 0 || !S_ISREG(input.st_mode))
        return;
    int in = open("/proc/self/fd/0", O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return;
    lseek(in, offset, SEEK_SET);
    dup2(in, 0);
    close(in);
}

/* Programs the child starts record into its folder (mode=record: they fail nothing more) and
   write their coverage under its GCOV_PREFIX. */
static void LF_TEXT rewrite_environment(const char *dir)
{
    append(environment_dir, append(environment_dir, 0, "LIBFAIL_DIR="), dir);
    size_t n = append(environment_plan, 0, "LIBFAIL_PLAN=mode=record;depth=");
    n += format_decimal(environment_plan + n, fork_state.depth);
    if (fork_state.cpu_ms) { /* a hang in a program the child executes (runtime.c) */
        n = append(environment_plan, n, ";cpu=");
        n += format_decimal(environment_plan + n, fork_state.cpu_ms);
    }
    environment_plan[n] = '\0';
    /* DIR.gcov, beside the folder, where failrun cov looks for every run's data (campaign.c,
       coverage_directory) and which survives the folder's removal. */
    append(environment_gcov, append(environment_gcov, append(environment_gcov, 0, "GCOV_PREFIX="),
                                    dir), ".gcov");
    char *ours[] = {environment_dir, environment_plan, environment_gcov};
    bool placed[3] = {false, false, false};
    size_t count = 0;
    for (char **entry = environ; entry && *entry; entry++) {
        bool replaced = false;
        for (int i = 0; i < 3 && !replaced; i++) {
            size_t name = (size_t)(strchr(ours[i], '=') - ours[i]) + 1;
            if (!strncmp(*entry, ours[i], name)) {
                *entry = ours[i]; /* in place: right even if the copy below does not fit */
                placed[i] = replaced = true;
            }
        }
        if (count < FORK_ENVIRON_MAX - 4)
            child_environment[count] = *entry;
        count++;
    }
    if (count >= FORK_ENVIRON_MAX - 4)
        return; /* huge environment: the entries present were replaced, none added */
    for (int i = 0; i < 3; i++)
        if (!placed[i])
            child_environment[count++] = ours[i];
    child_environment[count] = NULL;
    environ = child_environment;
}

#define FORK_FILES_MAX 32
/* A file open for writing bigger than this keeps the process from forking: its child's private
   copy (below) would cost more than a re-run. */
#define FORK_COPY_MAX (16ll << 20)

/* A regular file the program has open beyond standard input and output. Read-only: the child
   reads it through a description of its own, from where the parent was (as standard input,
   reopen_input). Open for writing since before this image started (a harness's log): the child
   writes into a copy of its own in its folder, at the parent's offset, so neither sees the
   other's writes and the file the harness reads afterwards holds the unfailed process's bytes
   only. */
struct private_file {
    int fd;
    off_t offset;
    off_t size; /* written ones: the bytes the child's copy takes (the parent writes on) */
    bool writable;
};

struct fork_point {
    pid_t parent;
    bool at_start; /* before main (PLAN_START): no output yet, gcov's counters are the run's */
    off_t stdout_offset, stderr_offset, stdin_offset;
    void *robust_head;
    size_t robust_length;
    struct private_file files[FORK_FILES_MAX];
    int file_count;
};

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
    int directory = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0)
        return "descriptors";
    const char *why = NULL;
    point->file_count = 0;
    char buffer[4096];
    long length;
    while (!why && (length = syscall(SYS_getdents64, directory, buffer, sizeof buffer)) > 0) {
        for (long at = 0; at < length && !why;) {
            const char *entry = buffer + at;
            unsigned short record_length;
            memcpy(&record_length, entry + 16, sizeof record_length); /* linux_dirent64 */
            const char *name = entry + 19;
            at += record_length;
            uint64_t fd;
            struct stat st;
            if (!parse_decimal(name, strlen(name), &fd) || fd <= 2 || fd >= FORK_FD_FLOOR ||
                (int)fd == directory || fstat((int)fd, &st) != 0)
                continue;
            if (S_ISSOCK(st.st_mode) && !point->at_start && !was_inherited((int)fd, &st)) {
                why = "socket";
                continue;
            }
            if (!S_ISREG(st.st_mode))
                continue;
            int flags = fcntl((int)fd, F_GETFL);
            bool writable = flags >= 0 && (flags & O_ACCMODE) != O_RDONLY;
            /* A file the program opened for writing itself: a copy would not keep a child
               from reaching it by its name, and sharing it (its bytes saved and put back after
               the child) not from renaming or removing it, which its parent then misses
               (patch, in realworld-fork). Left to re-runs. */
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
    }
    close(directory);
    return why;
}

/* In the child: a copy of the written file `file` in `dir` (named fd-N), its bytes, offset and
   append flag as the parent's; /dev/null when no copy can be made (the child must never write
   into the parent's file). Returns the new descriptor, or -1. */
static int LF_TEXT private_copy(const struct private_file *file, const char *dir)
{
    char path[PATH_MAX], name[32] = "fd-", self[40];
    name[3 + format_decimal(name + 3, (uint64_t)file->fd)] = '\0';
    self_path(self, file->fd);
    file_in(path, dir, name);
    int copy = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int source = open(self, O_RDONLY | O_CLOEXEC);
    bool copied = copy_bytes(source, copy, file->size);
    if (source >= 0)
        close(source);
    if (!copied) {
        if (copy >= 0)
            close(copy);
        return open("/dev/null", O_RDWR | O_CLOEXEC);
    }
    int flags = fcntl(file->fd, F_GETFL);
    if (flags >= 0 && (flags & O_APPEND))
        fcntl(copy, F_SETFL, O_APPEND);
    if (file->offset >= 0)
        lseek(copy, file->offset, SEEK_SET);
    return copy;
}

/* In the child: each file of `point` through a description of its own (read-only ones at the
   parent's offset, written ones as a private copy), keeping the descriptor's number and
   close-on-exec flag. */
static void LF_TEXT reopen_files(const struct fork_point *point, const char *dir)
{
    for (int i = 0; i < point->file_count; i++) {
        const struct private_file *file = &point->files[i];
        int cloexec = fcntl(file->fd, F_GETFD);
        int fresh;
        if (file->writable) {
            fresh = private_copy(file, dir);
        } else {
            char path[40];
            self_path(path, file->fd);
            fresh = open(path, O_RDONLY | O_CLOEXEC);
            if (fresh >= 0 && file->offset >= 0)
                lseek(fresh, file->offset, SEEK_SET);
        }
        if (fresh < 0) {
            if (file->writable)
                close(file->fd); /* never write into the parent's file */
            continue;
        }
        dup3(fresh, file->fd, cloexec > 0 && (cloexec & FD_CLOEXEC) ? O_CLOEXEC : 0);
        close(fresh);
    }
}

static void LF_TEXT become_child(const char *dir, const struct fork_point *point)
{
    /* If the parent dies (failrun killed it, say), so does the child: no orphan runs on. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != point->parent)
        syscall(SYS_exit_group, 127);
    setpgid(0, 0); /* its own group: a timeout kills what it started too */
    if (point->robust_head)
        syscall(SYS_set_robust_list, point->robust_head, point->robust_length);
    fork_state.enabled = false; /* one fault per child; its error leg's sites are re-runs */
    for (unsigned i = 0; i < fork_state.running; i++) /* the parent's other children */
        if (fork_state.children[i].pidfd >= 0)
            close(fork_state.children[i].pidfd);
    fork_state.running = 0;
    fork_state.owner = getpid();
    /* At the start, whatever the harness gave (a terminal, /dev/null): the child's output is
       compared with the program's alone, and never reaches the harness. */
    redirect_output(1, dir, "stdout", point->stdout_offset, point->at_start);
    redirect_output(2, dir, "stderr", point->stderr_offset, point->at_start);
    reopen_input(point->stdin_offset);
    reopen_files(point, dir);
    rewrite_environment(dir);
    runtime_repoint(dir);
    if (fork_state.gcov_reset && !point->at_start)
        fork_state.gcov_reset();
}

static off_t LF_TEXT regular_offset(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    return lseek(fd, 0, SEEK_CUR);
}

/* Why this process did not fork at a site, for failrun's report: "SIGNATURE WHY" appended to
   ROOT/refused.PID (a process's own file: no two writers interleave). */
static void LF_TEXT note_refusal(uint64_t signature, const char *why)
{
    char path[PATH_MAX], line[64];
    size_t n = append(path, 0, fork_state.root);
    n = append(path, n, "/refused.");
    path[n + format_decimal(path + n, (uint64_t)getpid())] = '\0';
    size_t length = format_hex16(line, signature);
    line[length++] = ' ';
    length = append(line, length, why);
    line[length++] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, line, length);
    (void)ignored;
    close(fd);
}

/* Why this process cannot fork now, filling `point`; NULL when it can. */
static const char *LF_TEXT unforkable_now(struct fork_point *point)
{
    return !single_threaded_now()     ? "threads"
           : input_is_shared_stream() ? "stdin"
                                      : process_unforkable(point);
}

/* Fork the child whose folder is ROOT/`name` (made by the caller) once fewer than `jobs` run.
   True in the child, which has become the run of its folder; false in the parent, also when
   the fork failed (the folder is then removed: failrun re-runs its site). */
static bool LF_TEXT fork_child(const char *name, struct fork_point *point)
{
    char dir[PATH_MAX];
    folder_path(dir, name);
    wait_for_children(fork_state.jobs - 1);
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
        become_child(dir, point);
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
    append(entry->folder, 0, name);
    if (fork_state.jobs == 1)
        wait_for_children(0);
    return false;
}

bool LF_TEXT forkmode_site(uint64_t signature, pid_t pid)
{
    if (!fork_state.enabled || getpid() != pid) /* a vfork child shares our memory: never */
        return false;
    adopt_table();
    struct fork_point point = {.parent = getpid()};
    const char *why = unforkable_now(&point);
    if (why) {
        note_refusal(signature, why);
        return false; /* unclaimed: failrun re-runs this site */
    }
    char name[24], dir[PATH_MAX];
    site_name(name, signature);
    folder_path(dir, name);
    if (mkdir(dir, 0755) != 0)
        return false; /* claimed by another process of the campaign, or by failrun */
    testcase_prepare();
    if (!fork_child(name, &point))
        return false; /* the parent's allocation goes ahead */
    testcase_arm(dir); /* where its test case ends, it ends */
    return true;      /* the allocation fails here */
}

/* ---- PLAN_START: the fault runs of a program forked at its start ---- */

/* failrun writes, for each program started inside the command whose sites are failed this way,
   ROOT/starts/HASH-N (HASH: its command line's hash as RECORD_START gives it; N from 0: several
   programs can share a command line): its executable's path, its working folder, and then one
   line per site, "SIGNATURE PLAN" (the plan of the site's run). A working folder inside the
   baseline's run folder is written "@/REST": the same folder inside this run's. The first process that starts
   as that program takes the file (renames it to HASH-N.taken) and forks before main: a child
   that runs unfailed in ROOT/start-HASH-N (failrun compares it with the program alone), then one
   child per site in ROOT/SIGNATURE running with the site's plan; then it goes on unfailed. */

#define START_FILES_MAX 64

struct line_reader {
    int fd;
    size_t start, end;
    char buffer[8192];
};

/* The next line into `out` (NUL instead of the newline); false at the end of the file. A line
   longer than `size` is skipped. */
static bool LF_TEXT read_line(struct line_reader *reader, char *out, size_t size)
{
    size_t length = 0;
    bool too_long = false;
    for (;;) {
        if (reader->start == reader->end) {
            ssize_t got = read(reader->fd, reader->buffer, sizeof reader->buffer);
            if (got <= 0)
                return false;
            reader->start = 0;
            reader->end = (size_t)got;
        }
        char c = reader->buffer[reader->start++];
        if (c == '\n') {
            if (!too_long) {
                out[length] = '\0';
                return true;
            }
            length = 0;
            too_long = false;
            continue;
        }
        if (length + 1 < size)
            out[length++] = c;
        else
            too_long = true;
    }
}

/* Under valgrind (a harness that runs the program under memcheck, as curl's runtests does), a
   start's child goes on as a native run of the same program: valgrind forks the whole guest and
   runs its code some thirty times slower, while an exec from the guest leaves valgrind (it
   follows no exec unless --trace-children=yes) and takes its own preloads out of LD_PRELOAD. The
   child execs the guest's program with its arguments (valgrind shows the guest's own in
   /proc/self/cmdline) and the environment become_child made, with `plan` as its plan (NULL: the
   control child, which records and fails nothing). Its error legs are then checked by failrun
   alone, not by memcheck. Returns only when that cannot be done: the child goes on in the guest. */
#define NATIVE_ARGUMENTS_BYTES (64 << 10)
#define NATIVE_ARGUMENTS_MAX 4096
static void LF_TEXT exec_natively(const char *exe, const char *plan)
{
    static char arguments[NATIVE_ARGUMENTS_BYTES];
    static char *argv[NATIVE_ARGUMENTS_MAX + 1];
    if (!fork_state.under_valgrind)
        return;
    if (plan) {
        size_t n = append(environment_plan, 0, "LIBFAIL_PLAN=");
        if (n + strlen(plan) + 1 > sizeof environment_plan)
            return;
        append(environment_plan, n, plan);
    }
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t length = 0;
    for (;;) {
        ssize_t got = read(fd, arguments + length, sizeof arguments - length);
        if (got <= 0)
            break;
        length += (size_t)got;
        if (length == sizeof arguments)
            break;
    }
    close(fd);
    if (length == 0 || length == sizeof arguments || arguments[length - 1] != '\0')
        return; /* none, or more than we hold */
    size_t count = 0;
    for (size_t at = 0; at < length && count < NATIVE_ARGUMENTS_MAX; at += strlen(arguments + at) + 1)
        argv[count++] = arguments + at;
    if (count == NATIVE_ARGUMENTS_MAX)
        return;
    argv[count] = NULL;
    execve(exe, argv, environ);
}

/* Standard input that is a pipe, at a start, when its writer has closed it (the harness piped
   the test's input in: `printf ... | prog`): every byte is in the pipe, and is read out once into
   ROOT/CONTROL.stdin, which becomes the program's standard input, and each child's through a
   description of its own (reopen_input). Whether the writer closed it is seen without reading
   (POLLHUP), for up to SPOOL_WAIT_MS: a pipe still open (an interactive peer, a launcher's idle
   stdin), or one the parent holds too (parent_shares_pipe), is left alone, unread, and the
   start forks no children. */
#define SPOOL_WAIT_MS 300

/* Whether the process that started this one holds the pipe on standard input too (a shell's
   `while read` loop that starts the program for each line, `{ prog; cat; }`): its bytes are
   then not all this program's, and reading them out would take them from the others. Also true
   when that cannot be told. */
static bool LF_TEXT parent_shares_pipe(const struct stat *input)
{
    char path[48];
    size_t n = append(path, 0, "/proc/");
    n += format_decimal(path + n, (uint64_t)getppid());
    append(path, n, "/fd");
    int folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder < 0)
        return true;
    static char entries[4096];
    bool shared = false;
    for (;;) {
        long got = syscall(SYS_getdents64, folder, entries, sizeof entries);
        if (got <= 0)
            break;
        for (long at = 0; at < got && !shared;) {
            /* struct linux_dirent64: inode, offset, record length, type, name */
            unsigned short length;
            memcpy(&length, entries + at + 16, sizeof length);
            const char *name = entries + at + 19;
            at += length;
            struct stat held;
            if (name[0] != '.' && fstatat(folder, name, &held, 0) == 0 &&
                held.st_dev == input->st_dev && held.st_ino == input->st_ino)
                shared = true;
        }
    }
    close(folder);
    return shared;
}

static void LF_TEXT spool_input(const char *control)
{
    struct stat input;
    if (fstat(0, &input) != 0 || !S_ISFIFO(input.st_mode))
        return;
    bool closed = false;
    for (int waited = 0; !closed && waited <= SPOOL_WAIT_MS; waited += 2) {
        struct pollfd peek = {.fd = 0, .events = POLLIN};
        if (poll(&peek, 1, 0) == 1 && (peek.revents & POLLHUP))
            closed = true;
        else if (waited < SPOOL_WAIT_MS)
            nanosleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
    }
    if (!closed || parent_shares_pipe(&input))
        return;
    char path[PATH_MAX];
    size_t n = append(path, 0, fork_state.root);
    n = append(path, n, "/");
    n = append(path, n, control);
    append(path, n, ".stdin");
    int file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (file < 0)
        return;
    /* Once a byte is read it is the program's only through the file: a file that could not be
       written whole (a full disk) is still given, as the most of its input there is. */
    static char buffer[1 << 16];
    bool more = true;
    while (more) {
        ssize_t got = read(0, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == EAGAIN) { /* a non-blocking pipe: its last bytes are there */
            struct pollfd wait = {.fd = 0, .events = POLLIN};
            poll(&wait, 1, 1000);
            continue;
        }
        more = got > 0;
        for (ssize_t done = 0; more && done < got;) {
            ssize_t put = write(file, buffer + done, (size_t)(got - done));
            if (put < 0 && errno == EINTR)
                continue;
            more = put > 0;
            done += put > 0 ? put : 0;
        }
    }
    close(file);
    int spooled = open(path, O_RDONLY | O_CLOEXEC);
    if (spooled < 0)
        return;
    dup2(spooled, 0); /* without close-on-exec, as standard input is */
    close(spooled);
}

/* Fork the start's children from the lines left in `reader`. True in a child. */
static bool LF_TEXT fork_at_start(struct line_reader *reader, const char *control,
                                  const char *exe, bool (*reached)(uint64_t))
{
    static char line[PATH_MAX + 512];
    struct fork_point point = {.parent = getpid(), .at_start = true};
    spool_input(control);
    const char *why = unforkable_now(&point);
    char control_dir[PATH_MAX];
    folder_path(control_dir, control);
    testcase_prepare(); /* the children end with the test case their fault fires in */
    if (!why && mkdir(control_dir, 0755) == 0 && fork_child(control, &point)) {
        exec_natively(exe, NULL);
        runtime_replan(NULL); /* only how it ends and what it prints count: no unwinding */
        return true;
    }
    /* A second unfailed child, ROOT/start-NAME-2: where the two end or print otherwise, the
       start is unstable and its children's differences say nothing (failrun, start_differs). */
    char twin[48], twin_dir[PATH_MAX];
    append(twin, append(twin, 0, control), "-2");
    folder_path(twin_dir, twin);
    wait_for_children(0); /* one after the other: two at once may disturb each other */
    if (!why && mkdir(twin_dir, 0755) == 0 && fork_child(twin, &point)) {
        exec_natively(exe, NULL);
        runtime_replan(NULL);
        return true;
    }
    while (read_line(reader, line, sizeof line)) {
        uint64_t signature;
        if (strlen(line) < 18 || line[16] != ' ' || !parse_hex(line, 16, &signature))
            continue;
        if (why || reached(signature)) {
            /* Reached before main (a constructor's): the child could not fail its first call. */
            note_refusal(signature, why ? why : "early");
            continue;
        }
        char name[24], dir[PATH_MAX];
        site_name(name, signature);
        folder_path(dir, name);
        if (mkdir(dir, 0755) != 0)
            continue; /* answered already */
        if (fork_child(name, &point)) {
            exec_natively(exe, line + 17);
            runtime_replan(line + 17);
            testcase_at_fault = true;
            return true;
        }
    }
    /* And one more unfailed child after them all, ROOT/start-NAME-3: where it ends or prints
       otherwise than the first, the children changed what the program depends on (a file one
       left behind), and a later child's difference may be an earlier one's doing (failrun,
       start_differs). */
    char after[48], after_dir[PATH_MAX];
    append(after, append(after, 0, control), "-3");
    folder_path(after_dir, after);
    wait_for_children(0);
    if (!why && mkdir(after_dir, 0755) == 0 && fork_child(after, &point)) {
        exec_natively(exe, NULL);
        runtime_replan(NULL);
        return true;
    }
    wait_for_children(0);
    return false;
}

/* The start's working folder as failrun wrote it: a path, or "@/REST" for a folder inside the
   run's own (a harness that puts its scratch folder in LIBFAIL_DIR, as json-c's suite does
   here): REST inside `run_dir`, the folder this run was given. */
static bool LF_TEXT same_folder(const char *written, const char *cwd, const char *run_dir)
{
    if (written[0] != '@')
        return !strcmp(written, cwd);
    size_t length = strlen(run_dir);
    while (length > 1 && run_dir[length - 1] == '/')
        length--; /* failrun pads the folder with slashes to one length */
    return !strncmp(cwd, run_dir, length) && !strcmp(cwd + length, written + 1);
}

/* Takes ROOT/starts/FILE (`name` is "start-FILE") when it is this program's: the same
   executable and working folder. START_CHILD: taken, and this process is one of its children;
   START_PARENT: taken, the parent goes on; START_ABSENT: no such file, taken or not; START_OTHER:
   another program's, or another process took it. */
enum start_taken { START_CHILD, START_PARENT, START_ABSENT, START_OTHER };

static enum start_taken LF_TEXT take_start(const char *name, const char *exe, const char *cwd,
                                          const char *run_dir, bool (*reached)(uint64_t))
{
    static struct line_reader reader;
    static char line[PATH_MAX];
    char path[PATH_MAX], taken[PATH_MAX];
    size_t at = append(path, append(path, 0, fork_state.root), "/starts/");
    append(path, at, name + 6);
    append(taken, append(taken, 0, path), ".taken");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) { /* out of the program's numbers (and of the files a child reopens) */
        int high = fcntl(fd, F_DUPFD_CLOEXEC, FORK_FD_FLOOR);
        if (high >= 0) {
            close(fd);
            fd = high;
        }
    }
    if (fd < 0)
        return errno == ENOENT && access(taken, F_OK) != 0 ? START_ABSENT : START_OTHER;
    reader.fd = fd;
    reader.start = reader.end = 0;
    bool same = read_line(&reader, line, sizeof line) && !strcmp(line, exe) &&
                read_line(&reader, line, sizeof line) && same_folder(line, cwd, run_dir);
    if (!same || rename(path, taken) != 0) {
        close(fd);
        return START_OTHER;
    }
    bool child = fork_at_start(&reader, name, exe, reached);
    close(fd);
    return child ? START_CHILD : START_PARENT;
}

/* A program that needs the suite around it may be started with other arguments in every run (a
   test server's port in its URL): failrun matches those by order instead. ROOT/starts/exes lists
   their executables, one a line; every process of such an executable takes the next number
   (the first K for which it makes ROOT/starts/claim-I-K, I the executable's line), and its
   start file, if it has one, is ROOT/starts/ord-I-K: the K-th start of that executable in the
   baseline. -1 when the executable is not listed. */
static int LF_TEXT start_ordinal(const char *exe, unsigned *index)
{
    static struct line_reader reader;
    static char line[PATH_MAX];
    char path[PATH_MAX];
    append(path, append(path, 0, fork_state.root), "/starts/exes");
    reader.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (reader.fd < 0)
        return -1;
    reader.start = reader.end = 0;
    bool found = false;
    for (*index = 0; !found && read_line(&reader, line, sizeof line); ++*index)
        found = !strcmp(line, exe);
    close(reader.fd);
    if (!found)
        return -1;
    --*index;
    for (int k = 0; k < 100000; k++) {
        size_t n = append(path, append(path, 0, fork_state.root), "/starts/claim-");
        n += format_decimal(path + n, *index);
        path[n++] = '-';
        path[n + format_decimal(path + n, (uint64_t)k)] = '\0';
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            close(fd);
            return k;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

bool LF_TEXT forkmode_start(uint64_t command_line, const char *exe, const char *run_dir,
                            bool (*reached)(uint64_t))
{
    char cwd[PATH_MAX];
    if (!fork_state.enabled || !getcwd(cwd, sizeof cwd))
        return false;
    unsigned index = 0;
    int ordinal = start_ordinal(exe, &index); /* before anything: the order counts every start */
    for (unsigned n = 0; n < START_FILES_MAX; n++) {
        char name[40] = "start-";
        size_t length = 6 + format_hex16(name + 6, command_line);
        name[length++] = '-';
        name[length + format_decimal(name + length, n)] = '\0';
        enum start_taken taken = take_start(name, exe, cwd, run_dir, reached);
        if (taken == START_CHILD || taken == START_PARENT)
            return taken == START_CHILD;
        if (taken == START_ABSENT)
            break; /* the last of this command line */
    }
    if (ordinal < 0)
        return false;
    char name[48] = "start-ord-";
    size_t length = 10 + format_decimal(name + 10, index);
    name[length++] = '-';
    name[length + format_decimal(name + length, (uint64_t)ordinal)] = '\0';
    return take_start(name, exe, cwd, run_dir, reached) == START_CHILD;
}
