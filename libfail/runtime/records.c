/*
 * records.c — the runtime's record file: one file per process image in the run folder
 * (PID-IMAGE.rec), where every record is sealed (pid, thread, sequence, checksum) and written
 * whole by one write(2); and the records the rest of the core asks for (a fixture, a library
 * boundary, a program started without the preload).
 *
 * Survives programs that close every fd: the record file is re-opened when its fd is gone or now
 * names another file (checked with fstat before each record; records are rare), and its
 * descriptor is moved up to RECORD_FD_FLOOR, out of the program's way. Its system calls are
 * libfail's own, never taken for the program's (own_syscalls_begin). No malloc: a record is
 * built on the stack.
 */

#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RECORD_FD_FLOOR 900

static void LF_TEXT path_join(char *out, const char *dir, const char *name_part, uint64_t number)
{
    size_t length = strlen(dir);
    if (length > PATH_MAX - 64)
        length = PATH_MAX - 64;
    memcpy(out, dir, length);
    out[length++] = '/';
    length += format_decimal(out + length, (uint64_t)runtime.pid);
    size_t name_length = strlen(name_part);
    memcpy(out + length, name_part, name_length);
    length += name_length;
    length += format_decimal(out + length, number);
    memcpy(out + length, ".rec", 5);
}

static int LF_TEXT move_fd_high(int fd)
{
    int high = fcntl(fd, F_DUPFD_CLOEXEC, RECORD_FD_FLOOR);
    if (high < 0)
        return fd; /* a low RLIMIT_NOFILE: keep the fd we have */
    close(fd);
    return high;
}

static void LF_TEXT remember_identity(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0) {
        atomic_store(&runtime.record_dev, st.st_dev);
        atomic_store(&runtime.record_ino, st.st_ino);
    }
}

void LF_TEXT runtime_open_record_file(void)
{
    /* One file per process image: an exec keeps the pid, so number the images. */
    for (uint64_t image = 0; image < 1000; image++) {
        path_join(runtime.record_path, runtime.dir, "-", image);
        int fd = open(runtime.record_path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
                      0644);
        if (fd >= 0) {
            fd = move_fd_high(fd);
            remember_identity(fd);
            atomic_store(&runtime.record_fd, fd);
            return;
        }
        if (errno != EEXIST)
            return;
    }
}

static int LF_TEXT record_fd_ready(void)
{
    int fd = atomic_load(&runtime.record_fd);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == atomic_load(&runtime.record_dev) &&
        st.st_ino == atomic_load(&runtime.record_ino))
        return fd;
    if (!runtime.record_path[0])
        return -1;
    /* Closed by the program, or the number now names one of its files: open ours again. */
    int fresh = open(runtime.record_path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fresh < 0)
        return -1;
    fresh = move_fd_high(fresh);
    remember_identity(fresh);
    int expected = fd;
    if (!atomic_compare_exchange_strong(&runtime.record_fd, &expected, fresh)) {
        close(fresh);
        return expected;
    }
    return fresh;
}

/* Seal records[0..count) (all made by this thread) and write them with one write(2): whole
   records, so a reader sees each either complete or not at all. */
void LF_TEXT runtime_emit_records(struct record *records, size_t count)
{
    char selector = own_syscalls_begin();
    pid_t pid = getpid();
    int fd = -1;
    /* A vfork or raw clone child shares our memory (pid differs): it leaves the parent's state
       alone, but for one record: that the program it is about to execute starts without the
       preload (dash runs every command from a vfork child). That is the parent's record, in the
       parent's file: the parent started the program. */
    bool for_parent = pid != runtime.pid && count == 1 && records[0].type == RECORD_UNPRELOADED;
    if (pid == runtime.pid || for_parent) {
        uint32_t tid = (uint32_t)syscall(SYS_gettid);
        for (size_t i = 0; i < count; i++) {
            records[i].magic = RECORD_MAGIC;
            records[i].pid = (uint32_t)runtime.pid;
            records[i].tid = tid;
            records[i].sequence = atomic_fetch_add(&runtime.sequence, 1);
            records[i].checksum = record_checksum(&records[i]);
        }
        fd = record_fd_ready();
    }
    const char *bytes = (const char *)records;
    size_t done = 0, total = count * sizeof *records;
    while (fd >= 0 && done < total) {
        ssize_t n = write(fd, bytes + done, total - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    own_syscalls_end(selector);
}

void LF_TEXT runtime_emit(struct record *r)
{
    runtime_emit_records(r, 1);
}

void LF_TEXT runtime_emit_text(enum record_type type, uint32_t flags, uint64_t id, uint64_t value,
                               const char *path, const uint8_t *build_id, uint32_t build_id_length)
{
    struct record r;
    memset(&r, 0, sizeof r);
    r.type = (uint16_t)type;
    r.flags = flags;
    r.signature = id;
    r.value = value;
    r.value2 = build_id_length;
    if (build_id_length)
        memcpy(r.body.text.build_id, build_id, build_id_length);
    size_t length = strlen(path);
    if (length >= RECORD_PATH_MAX) {
        length = RECORD_PATH_MAX - 1;
        r.flags |= RECORD_FLAG_PATH_TRUNCATED;
    }
    memcpy(r.body.text.path, path, length);
    runtime_emit(&r);
}

static void LF_TEXT fill_frames(struct record *r, enum record_type type, uint32_t flags,
                                uint32_t function, uint64_t signature, uint64_t value,
                                uint64_t value2, const struct record_frame *frames, int count)
{
    memset(r, 0, sizeof *r);
    r->type = (uint16_t)type;
    r->flags = flags;
    r->function = function;
    r->signature = signature;
    r->value = value;
    r->value2 = value2;
    r->frame_count = (uint16_t)count;
    if (count > 0)
        memcpy(r->body.frames, frames, (size_t)count * sizeof *frames);
}

void LF_TEXT runtime_emit_frames(enum record_type type, uint32_t flags, uint32_t function,
                                 uint64_t signature, uint64_t value, uint64_t value2,
                                 const struct record_frame *frames, int count)
{
    struct record r;
    fill_frames(&r, type, flags, function, signature, value, value2, frames, count);
    runtime_emit(&r);
}

void LF_TEXT runtime_announce_module(const struct module_info *module)
{
    runtime_emit_text(RECORD_MODULE, 0, module->id, module->bias, module->path, module->build_id,
                      module->build_id_length);
}

void LF_TEXT runtime_announce_process(bool forked)
{
    uint32_t flags =
        (runtime.in_scope ? RECORD_FLAG_IN_SCOPE : 0) | (forked ? RECORD_FLAG_FORKED : 0);
    runtime_emit_text(RECORD_START, flags, runtime.command_line, (uint64_t)getppid(), runtime.exe,
                      NULL, 0);
}

void LF_TEXT runtime_boundary(uint32_t flags, const char *name, uintptr_t function, uintptr_t caller,
                              uint64_t value, uint64_t value2)
{
    if (!runtime.active || !runtime.in_scope)
        return;
    struct record_frame frame;
    stack_normalise(&function, 1, &frame);
    struct record r;
    memset(&r, 0, sizeof r);
    r.type = RECORD_BOUNDARY;
    r.flags = flags;
    r.signature = frame.module;
    r.value = value;
    r.value2 = value2;
    stack_normalise(&caller, 1, &r.body.call.caller);
    size_t length = strnlen(name, RECORD_PATH_MAX - 1);
    memcpy(r.body.call.name, name, length);
    runtime_emit(&r);
}

void LF_TEXT runtime_fixture(uint32_t how)
{
    if (!runtime.active || getpid() != runtime.pid)
        return; /* a vfork child about to exec: its program reports for itself */
    if (atomic_fetch_or(&runtime.fixture_reported, how) & how)
        return;
    char selector = own_syscalls_begin();
    struct record r;
    memset(&r, 0, sizeof r);
    r.type = RECORD_FIXTURE;
    r.flags = how;
    runtime_emit(&r);
    own_syscalls_end(selector);
}

void LF_TEXT runtime_note_unpreloaded(const char *program, uint32_t reason, uint64_t attempt,
                                      bool failed)
{
    runtime_emit_text(RECORD_UNPRELOADED, failed ? RECORD_FLAG_EXEC_FAILED : 0, attempt, reason,
                      program, NULL, 0);
}
