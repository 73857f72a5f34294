/*
 * invocation.c — how a process image was started, written beside its record file in a recording
 * run (runtime.c calls it once per image, from its initialisation).
 *
 * In the baseline each in-scope process image also writes how it was started, beside its record
 * file (PID-IMAGE.inv), so failrun can later start that program alone instead of the whole
 * command: its executable, working folder, arguments and environment as at exec
 * (/proc/self/cmdline and /proc/self/environ: the kernel's copies, whatever the program did to
 * environ since), and what its standard input was. Sections read "NAME LENGTH\n" + LENGTH bytes +
 * "\n", LENGTH in 16 hex digits patched in once the bytes are written (their size is unknown
 * before: the environment may be large). Written once per image, from initialise(): static
 * buffers, read(2)/write(2) only.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define INVOCATION_MAGIC "libfail-invocation 1\n"

struct invocation_writer {
    int fd;
    uint64_t offset;     /* bytes written so far */
    uint64_t length_at;  /* where the open section's length digits are */
    uint64_t content_at; /* where its bytes start */
    bool ok;
};

static char invocation_buffer[4096];

static void LF_TEXT invocation_write(struct invocation_writer *w, const char *bytes, size_t length)
{
    size_t done = 0;
    while (w->ok && done < length) {
        ssize_t n = write(w->fd, bytes + done, length - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            w->ok = false;
            return;
        }
        done += (size_t)n;
    }
    w->offset += done;
}

static void LF_TEXT invocation_text(struct invocation_writer *w, const char *text)
{
    invocation_write(w, text, strlen(text));
}

static void LF_TEXT section_begin(struct invocation_writer *w, const char *name)
{
    invocation_text(w, name);
    invocation_text(w, " ");
    w->length_at = w->offset;
    invocation_text(w, "0000000000000000\n");
    w->content_at = w->offset;
}

static void LF_TEXT section_end(struct invocation_writer *w)
{
    char digits[16];
    format_hex16(digits, w->offset - w->content_at);
    if (w->ok && pwrite(w->fd, digits, sizeof digits, (off_t)w->length_at) != (ssize_t)sizeof digits)
        w->ok = false;
    invocation_text(w, "\n");
}

/* The whole of a /proc file, streamed through the buffer. */
static void LF_TEXT section_from_file(struct invocation_writer *w, const char *name,
                                      const char *path)
{
    section_begin(w, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    while (fd >= 0 && w->ok) {
        ssize_t n = read(fd, invocation_buffer, sizeof invocation_buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        invocation_write(w, invocation_buffer, (size_t)n);
    }
    if (fd >= 0)
        close(fd);
    section_end(w);
}

static void LF_TEXT section_text(struct invocation_writer *w, const char *name, const char *text)
{
    section_begin(w, name);
    invocation_text(w, text);
    section_end(w);
}

/* What standard input is: a file failrun can give the program again ("file", its path in the
   next section), /dev/null ("null"), or why not (a pipe, a socket, a terminal, a file read from
   elsewhere than its start, a deleted file, nothing open). */
static const char *LF_TEXT standard_input_kind(void)
{
    struct stat st;
    if (fstat(0, &st) != 0)
        return "closed";
    if (S_ISREG(st.st_mode)) {
        if (st.st_nlink == 0)
            return "deleted";
        return lseek(0, 0, SEEK_CUR) == 0 ? "file" : "moved";
    }
    if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3)
        return "null";
    if (S_ISFIFO(st.st_mode))
        return "pipe";
    if (S_ISSOCK(st.st_mode))
        return "socket";
    if (S_ISCHR(st.st_mode))
        return isatty(0) ? "terminal" : "device";
    return "other";
}

void LF_TEXT invocation_write_file(const char *record_path, const char *exe)
{
    size_t length = strlen(record_path);
    if (length < 4 || length >= sizeof invocation_buffer)
        return;
    char path[PATH_MAX];
    memcpy(path, record_path, length - 4);
    memcpy(path + length - 4, ".inv", 5);
    struct invocation_writer w = {.ok = true};
    w.fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (w.fd < 0)
        return;
    invocation_text(&w, INVOCATION_MAGIC);
    section_text(&w, "exe", exe);
    ssize_t n = readlink("/proc/self/cwd", invocation_buffer, sizeof invocation_buffer - 1);
    invocation_buffer[n > 0 ? n : 0] = '\0';
    section_text(&w, "cwd", invocation_buffer);
    section_from_file(&w, "argv", "/proc/self/cmdline");
    section_from_file(&w, "environ", "/proc/self/environ");
    const char *kind = standard_input_kind();
    section_text(&w, "stdin", kind);
    n = 0;
    if (!strcmp(kind, "file"))
        n = readlink("/proc/self/fd/0", invocation_buffer, sizeof invocation_buffer - 1);
    invocation_buffer[n > 0 ? n : 0] = '\0';
    section_text(&w, "stdin-path", invocation_buffer);
    close(w.fd);
    if (!w.ok)
        unlink(path); /* a partial file would read as a wrong invocation: none is better */
}
