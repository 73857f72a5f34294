/*
 * forkchild.c — fork mode's child becomes the run of its folder: a process just cloned from the
 * parent at a site (or at its program's start), that must go on as the parent would have, with a
 * failed allocation, yet share nothing with it that a re-run would not. Its standard output and
 * error go to files in its folder (with the parent's bytes so far), standard input and the
 * regular files the program has open are read and written through descriptions of its own (a
 * private copy of a written file), its environment sends what it starts to its folder, and it
 * records into its folder as the process it continues (runtime_repoint). Under valgrind a start's
 * child goes on as a native run instead.
 *
 * Runs in the child just cloned, inside the target: never calls malloc (paths live in static or
 * stack buffers; the child's environment is a static array), takes no lock.
 */
#include "forkmode.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FORK_ENVIRON_MAX 4096 /* entries of the child's environment we can rewrite with room */
#define RUN_PLAN_ROOM 640     /* failrun pads a run's plan to 512 bytes (environment.h) */

extern char **environ;

/* The child's environment: our entries point into static buffers (setenv would allocate). */
static char environment_dir[PATH_MAX + 16];
static char environment_plan[RUN_PLAN_ROOM];
static char environment_gcov[PATH_MAX + 32];
static char *child_environment[FORK_ENVIRON_MAX];

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
    fork_append(out, 0, "/proc/self/fd/");
    out[14 + format_decimal(out + 14, (uint64_t)fd)] = '\0';
}

/* Where the child's standard output or error goes: a file in its folder. For a regular file the
   parent's bytes up to the fork are copied first, so the child's file holds its whole output as
   if it had run alone; a pipe or socket (a harness reading it) gets no prefix; anything else (a
   terminal, /dev/null, closed) is left as it is unless `always` (a child at the start). */
static bool LF_TEXT redirect_output(int fd, const char *dir, const char *name, off_t prefix,
                                    bool always)
{
    struct stat current;
    bool open_now = fstat(fd, &current) == 0;
    if (!always && (!open_now || !(S_ISREG(current.st_mode) || S_ISFIFO(current.st_mode) ||
                                   S_ISSOCK(current.st_mode))))
        return false;
    char path[PATH_MAX];
    fork_file_in(path, dir, name);
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0)
        return false;
    if (open_now && S_ISREG(current.st_mode) && prefix > 0) {
        char self[40];
        self_path(self, fd);
        int in = open(self, O_RDONLY | O_CLOEXEC);
        copy_bytes(in, out, prefix);
        if (in >= 0)
            close(in);
    }
    bool redirected = dup2(out, fd) == fd;
    close(out);
    return redirected;
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

/* The environment with each of `ours` ("NAME=value", at most 4, each in a buffer of rooms[i]
   bytes) in place of the entry of that name, or added at its end; environ then points at it
   (child_environment). An entry shorter than the one it replaces is padded to its length with
   pads[i] (a folder's '/', a plan's ';'): the program sees the environment of the length every
   run of the campaign gives it (failrun's environment.c), as an interpreter that copies it into
   its own allocator must. False for a huge environment: the entries present were replaced,
   none added. */
static bool LF_TEXT set_environment(char *const *ours, const size_t *rooms, const char *pads,
                                    int count)
{
    bool placed[4] = {false, false, false, false};
    size_t n = 0;
    for (char **entry = environ; entry && *entry; entry++) {
        bool replaced = false;
        for (int i = 0; i < count && !replaced; i++) {
            size_t name = (size_t)(strchr(ours[i], '=') - ours[i]) + 1;
            if (!strncmp(*entry, ours[i], name)) {
                size_t length = strlen(ours[i]), wanted = strlen(*entry);
                if (length < wanted && wanted < rooms[i]) {
                    memset(ours[i] + length, pads[i], wanted - length);
                    ours[i][wanted] = '\0';
                }
                *entry = ours[i]; /* in place: right even if the copy below does not fit */
                placed[i] = replaced = true;
            }
        }
        if (n < FORK_ENVIRON_MAX - 4)
            child_environment[n] = *entry;
        n++;
    }
    if (n >= FORK_ENVIRON_MAX - 4)
        return false;
    for (int i = 0; i < count; i++)
        if (!placed[i])
            child_environment[n++] = ours[i];
    child_environment[n] = NULL;
    environ = child_environment;
    return true;
}

/* Programs the child starts record into its folder (mode=record: they fail nothing more) and
   write their coverage under its GCOV_PREFIX. */
static void LF_TEXT rewrite_environment(const char *dir)
{
    fork_append(environment_dir, fork_append(environment_dir, 0, "LIBFAIL_DIR="), dir);
    size_t n = fork_append(environment_plan, 0, "LIBFAIL_PLAN=mode=record;depth=");
    n += format_decimal(environment_plan + n, fork_state.depth);
    if (fork_state.cpu_ms) { /* a hang in a program the child executes (runtime.c) */
        n = fork_append(environment_plan, n, ";cpu=");
        n += format_decimal(environment_plan + n, fork_state.cpu_ms);
    }
    environment_plan[n] = '\0';
    /* DIR.gcov, beside the folder, where failrun cov looks for every run's data (campaign.c,
       coverage_directory) and which survives the folder's removal. */
    fork_append(environment_gcov,
                fork_append(environment_gcov,
                            fork_append(environment_gcov, 0, "GCOV_PREFIX="), dir),
                ".gcov");
    char *ours[] = {environment_dir, environment_plan, environment_gcov};
    const size_t rooms[] = {sizeof environment_dir, sizeof environment_plan,
                            sizeof environment_gcov};
    set_environment(ours, rooms, "/;/", 3);
}

/* In the child: a copy of the written file `file` in `dir` (named fd-N), its bytes, offset and
   append flag as the parent's; /dev/null when no copy can be made (the child must never write
   into the parent's file). Returns the new descriptor, or -1. */
static int LF_TEXT private_copy(const struct private_file *file, const char *dir)
{
    char path[PATH_MAX], name[32] = "fd-", self[40];
    name[3 + format_decimal(name + 3, (uint64_t)file->fd)] = '\0';
    self_path(self, file->fd);
    fork_file_in(path, dir, name);
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

void LF_TEXT fork_become_child(const char *dir, const struct fork_point *point)
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

/* Under valgrind (a harness that runs the program under memcheck, as curl's runtests does), a
   start's child goes on as a native run of the same program: valgrind forks the whole guest and
   runs its code some thirty times slower, while an exec from the guest leaves valgrind (it
   follows no exec unless --trace-children=yes) and takes its own preloads out of LD_PRELOAD. The
   child execs the guest's program with its arguments (valgrind shows the guest's own in
   /proc/self/cmdline) and the environment fork_become_child made, with `plan` as its plan (NULL:
   the control child, which records and fails nothing). Its error legs are then checked by failrun
   alone, not by memcheck. Returns only when that cannot be done: the child goes on in the guest. */
#define NATIVE_ARGUMENTS_BYTES (64 << 10)
#define NATIVE_ARGUMENTS_MAX 4096
void LF_TEXT fork_exec_natively(const char *exe, const char *plan)
{
    static char arguments[NATIVE_ARGUMENTS_BYTES];
    static char *argv[NATIVE_ARGUMENTS_MAX + 1];
    if (!fork_state.under_valgrind)
        return;
    if (plan) {
        size_t n = fork_append(environment_plan, 0, "LIBFAIL_PLAN=");
        if (n + strlen(plan) + 1 > sizeof environment_plan)
            return;
        fork_append(environment_plan, n, plan);
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

/* Under valgrind, the start's children come from one native process instead (forkstart.c,
   start_zygote): a fork of the guest costs valgrind some 60 ms of CPU before its exec, so a
   start of curl's tests paid that for each of its hundreds of children. This is the fork of
   the guest that becomes that process: the program's native image, its output in `dir` (never
   the harness's), given `variable` (LIBFAIL_START_ZYGOTE=...: which start's children to fork)
   and LIBFAIL_DIR=`dir` (its own records, of no run, go there), with the guest's plan and
   input. Returns only when that cannot be done. */
void LF_TEXT fork_exec_zygote(const char *exe, const char *variable, const char *dir)
{
    if (!redirect_output(1, dir, "stdout", -1, true) ||
        !redirect_output(2, dir, "stderr", -1, true))
        return;
    fork_append(environment_dir, fork_append(environment_dir, 0, "LIBFAIL_DIR="), dir);
    char *ours[] = {environment_dir, (char *)variable};
    const size_t rooms[] = {sizeof environment_dir, 0}; /* `variable` is never padded */
    if (set_environment(ours, rooms, "/-", 2))
        fork_exec_natively(exe, NULL);
}

/* Open across an exec: a descriptor the zygote will hold. */
static bool LF_TEXT held_across_exec(int fd)
{
    int flags = fcntl(fd, F_GETFD);
    return flags >= 0 && !(flags & FD_CLOEXEC);
}

bool LF_TEXT fork_keep_output(void)
{
    /* One closed at the exec (valgrind's, ours) may go; one the program would keep may not. */
    if (held_across_exec(FORK_ZYGOTE_STDOUT) || held_across_exec(FORK_ZYGOTE_STDERR))
        return false;
    if (dup2(1, FORK_ZYGOTE_STDOUT) != FORK_ZYGOTE_STDOUT)
        return false;
    if (dup2(2, FORK_ZYGOTE_STDERR) != FORK_ZYGOTE_STDERR) {
        close(FORK_ZYGOTE_STDOUT);
        return false;
    }
    return true;
}

/* The zygote of a start under valgrind, once it forked the start's children, runs the program
   itself, natively, where the guest would have run it under valgrind some thirty times slower:
   the harness's output (kept at FORK_ZYGOTE_STDOUT and _STDERR), the run's folder for its
   records and for what it starts, and `marker`, which tells the guest to end as this process
   does instead of running main (forkstart.c). The unfailed program's verdict under valgrind is
   the baseline's; this run is there for the harness to go on. */
bool LF_TEXT fork_zygote_become_program(const char *run_dir, const char *marker)
{
    fork_append(environment_dir, fork_append(environment_dir, 0, "LIBFAIL_DIR="), run_dir);
    char *ours[] = {environment_dir};
    const size_t rooms[] = {sizeof environment_dir};
    if (!set_environment(ours, rooms, "/", 1))
        return false;
    /* The output first: a zygote that fails after it ends before main, its output unread. */
    if (dup2(FORK_ZYGOTE_STDOUT, 1) != 1 || dup2(FORK_ZYGOTE_STDERR, 2) != 2)
        return false;
    close(FORK_ZYGOTE_STDOUT);
    close(FORK_ZYGOTE_STDERR);
    int told = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (told < 0)
        return false;
    close(told);
    runtime_repoint(run_dir);
    return true;
}
