/*
 * preload_io.c — the I/O interposers of libfail-preload-io.so (`failrun run --faults io`),
 * generated from interpose_io.def, and what a failed I/O call does besides returning its error.
 *
 * libfail-preload-io.so is libfail-preload.so plus this file: a campaign without --faults io
 * never loads it, so its runs' reads and writes go straight to libc. With it, each call asks the
 * runtime (runtime_before_io) whether it is a site this run fails, exactly as an allocation does:
 * site by stack signature, scope by --exe and --module, the same plans.
 *
 * Runs inside the target: the rules of libfail/internal.h apply. What must never be a site:
 * - libfail's own I/O (the record files, claim files, /proc reads) and whatever libunwind or dlsym
 *   do for it: made with runtime_guard set, or called from libfail's own text, it passes through;
 * - libc's internal I/O (fopen's open, stdio's writes, the loader's reads): glibc calls its own
 *   hidden aliases, never these symbols, so it never reaches here;
 * - libgcov's .gcda files (a --coverage build's exit): see "libgcov's own files" below.
 * A failing call allocates nothing: it sets errno and returns, after the stdio bookkeeping below.
 */
/* We define printf, getline and friends ourselves: no inline wrappers of glibc's (fortify's, or
   the extern inlines <bits/stdio.h> gives optimised builds). */
#undef _FORTIFY_SOURCE
#define __NO_INLINE__ 1
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* glibc's _FORTIFY_SOURCE entry points, declared by its headers only when fortifying. */
ssize_t __read_chk(int fd, void *buffer, size_t count, size_t buffer_size);
ssize_t __pread_chk(int fd, void *buffer, size_t count, off_t offset, size_t buffer_size);
ssize_t __pread64_chk(int fd, void *buffer, size_t count, off64_t offset, size_t buffer_size);
size_t __fread_chk(void *buffer, size_t buffer_size, size_t size, size_t count, FILE *stream);
char *__fgets_chk(char *buffer, size_t buffer_size, int size, FILE *stream);
int __vfprintf_chk(FILE *stream, int flag, const char *format, va_list arguments);
int __vprintf_chk(int flag, const char *format, va_list arguments);
int __fprintf_chk(FILE *stream, int flag, const char *format, ...);
int __printf_chk(int flag, const char *format, ...);

extern char __start_libfail_text[] LF_HIDDEN;
extern char __stop_libfail_text[] LF_HIDDEN;

/* ---- what a real failure does besides returning ---- */

/* The stream's error indicator, which ferror() reads: glibc sets this flag when a write or read
   under a stdio call fails. Under the stream's lock, as glibc changes it. */
static void LF_TEXT stream_error(FILE *stream)
{
    flockfile(stream);
    stream->_flags |= _IO_ERR_SEEN;
    funlockfile(stream);
}

/* glibc declares stream parameters nonnull, so a plain test for NULL would be optimised away:
   the empty asm hides what the compiler assumes. A NULL stream is no site: the real call gets it
   (and crashes, as it would without us). */
LF_INLINE bool is_null(void *pointer)
{
    __asm__("" : "+r"(pointer));
    return pointer == NULL;
}
#define IS_NULL(pointer) is_null(pointer)

#define NOTHING ((void)0)
#define STREAM_ERROR(stream) stream_error(stream)
/* A flush that failed: what the buffer held never reached the file. */
#define DISCARD_BUFFER(stream) (__fpurge(stream), stream_error(stream))
#define DISCARD_AND_CLOSE(stream) (__fpurge(stream), real_fclose()(stream))
#define CLOSE_STREAM(stream) ((void)real_fclose()(stream))
#define CLOSE_FD(fd) ((void)real_close()(fd))

static void *real_fclose_slot, *real_close_slot;

static int (*LF_TEXT real_fclose(void))(FILE *)
{
    return (int (*)(FILE *))real_function(&real_fclose_slot, "fclose");
}

static int (*LF_TEXT real_close(void))(int)
{
    return (int (*)(int))real_function(&real_close_slot, "close");
}

/* open and openat take a mode only with O_CREAT or O_TMPFILE. */
static mode_t LF_TEXT open_mode(int flags, va_list arguments)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(arguments, int)
                                                                 : 0;
}

/* ---- libgcov's own files: no site ---- */

/* A program built with --coverage writes its .gcda files when it exits: libgcov, linked into each
   instrumented module, calls open, fdopen, fread, fwrite and fclose through the PLT, as the
   program's own code does. That is not the program's I/O: failrun drops those sites as
   instrumentation and never fails them. Yet each of libgcov's word-sized writes was judged
   (an unwind apiece, in every run, at every exit): 97 % of all the unwinds of a jansson test's
   fork children. So an open of a .gcda path is no site, and the descriptor it returns is marked
   (io_after): no call on it, or on the stream fdopen makes of it, is a site until it is closed.
   Descriptors past GCOV_DESCRIPTORS are not marked (their calls are judged, as before). */
#define GCOV_DESCRIPTORS 1024
static _Atomic uint64_t gcov_descriptors[GCOV_DESCRIPTORS / 64];
static __thread bool gcov_opening __attribute__((tls_model("initial-exec")));

/* Before an open that may create its file, as libgcov's does (O_RDWR | O_CREAT): a .gcda path
   is no site, and what the open returns is marked. Only then is the path read here: a program
   that passes a bad pointer on purpose gets its EFAULT from the real call. */
static bool LF_TEXT gcov_path(const char *path, int flags)
{
    if (!(flags & O_CREAT) || is_null((void *)path))
        return false;
    size_t length = strlen(path);
    if (length <= 5 || memcmp(path + length - 5, ".gcda", 5))
        return false;
    gcov_opening = true;
    return true;
}

static bool LF_TEXT gcov_descriptor(int fd)
{
    if (fd < 0 || fd >= GCOV_DESCRIPTORS)
        return false;
    return atomic_load_explicit(&gcov_descriptors[fd / 64], memory_order_relaxed) >> (fd % 64) & 1;
}

/* close(fd), fclose: the descriptor's number is free again. */
static bool LF_TEXT gcov_closing(int fd)
{
    if (!gcov_descriptor(fd))
        return false;
    atomic_fetch_and(&gcov_descriptors[fd / 64], ~(1ull << (fd % 64)));
    return true;
}

/* After the real call of an interposer: the descriptor (or stream) a .gcda open returned. */
static void LF_TEXT gcov_opened(uint32_t function, intptr_t result)
{
    gcov_opening = false;
    int fd = -1;
    if (function == FUNCTION_IO_OPEN || function == FUNCTION_IO_OPEN64 ||
        function == FUNCTION_IO_OPENAT || function == FUNCTION_IO_OPENAT64)
        fd = (int)result;
    if (fd >= 0 && fd < GCOV_DESCRIPTORS)
        atomic_fetch_or(&gcov_descriptors[fd / 64], 1ull << (fd % 64));
}

LF_INLINE void io_after(uint32_t function, intptr_t result)
{
    if (LF_UNLIKELY(gcov_opening))
        gcov_opened(function, result);
}

#define GCOV_OPEN(path, flags) gcov_path(path, flags)
#define GCOV_FD(fd) gcov_descriptor(fd)
#define GCOV_FD_CLOSING(fd) gcov_closing(fd)
#define NO_STREAM_SITE(stream) (is_null(stream) || gcov_descriptor((stream)->_fileno))
#define NO_STREAM_SITE_CLOSING(stream) (is_null(stream) || gcov_closing((stream)->_fileno))

/* ---- the decision ---- */

LF_INLINE bool called_from_libfail(uintptr_t caller)
{
    return caller - 1 >= (uintptr_t)__start_libfail_text &&
           caller - 1 < (uintptr_t)__stop_libfail_text;
}

/* Should this call fail? `possible` is false for calls the table says are no site (a NULL
   stream). Cheap when the run fails no I/O: one load. Leaves errno as it found it. */
static bool LF_TEXT io_should_fail(uint32_t function, uintptr_t caller, bool possible)
{
    unsigned hooks = atomic_load_explicit(&runtime_hooks, memory_order_relaxed);
    if (LF_LIKELY(hooks & RUNTIME_READY) && !(hooks & RUNTIME_IO))
        return false;
    if (runtime_guard || !possible || called_from_libfail(caller))
        return false;
    int saved_errno = errno;
    runtime_guard = 1;
    bool fail = false;
    if (preload_active()) {
        if (LF_UNLIKELY(!(hooks & RUNTIME_READY)))
            runtime_init(); /* an I/O call before the first allocation and our constructor */
        if (atomic_load_explicit(&runtime_hooks, memory_order_relaxed) & RUNTIME_IO) {
            struct call call;
            call.fail = false;
            call.static_index = UINT32_MAX;
            runtime_before_io(&call, function, caller);
            fail = call.fail;
        }
    }
    runtime_guard = 0;
    errno = saved_errno;
    return fail;
}

/* ---- the interposers, generated from the table ---- */

#define IO_INTERPOSE(name, id, error, like_eof, type, params, args, fail_value, when_failing, \
                     no_site)                                                                      \
    static void *real_##name##_slot;                                                               \
    LF_TEXT LF_EXPORT type name params                                                             \
    {                                                                                              \
        __typeof__(&name) real = (__typeof__(&name))real_function(&real_##name##_slot, #name);     \
        if (LF_UNLIKELY(io_should_fail(id, (uintptr_t)__builtin_return_address(0), !(no_site)))) { \
            when_failing;                                                                          \
            errno = (error);                                                                       \
            return fail_value;                                                                     \
        }                                                                                          \
        type result = real args;                                                                   \
        io_after(id, (intptr_t)result);                                                            \
        __asm__ volatile("" ::: "memory"); /* not a tail call: our frame shows on a crash stack */ \
        return result;                                                                             \
    }

#define IO_INTERPOSE_VARIADIC(name, id, error, like_eof, type, params, last, real_name, args, \
                              fail_value, when_failing, no_site)                                   \
    static void *real_##name##_slot;                                                               \
    LF_TEXT LF_EXPORT type name params                                                             \
    {                                                                                              \
        __typeof__(&real_name) real =                                                              \
            (__typeof__(&real_name))real_function(&real_##name##_slot, #real_name);                \
        if (LF_UNLIKELY(io_should_fail(id, (uintptr_t)__builtin_return_address(0), !(no_site)))) { \
            when_failing;                                                                          \
            errno = (error);                                                                       \
            return fail_value;                                                                     \
        }                                                                                          \
        va_list arguments;                                                                         \
        va_start(arguments, last);                                                                 \
        type result = real args;                                                                   \
        va_end(arguments);                                                                         \
        io_after(id, (intptr_t)result);                                                            \
        return result;                                                                             \
    }

#include "format/interpose_io.def"
#undef IO_INTERPOSE
#undef IO_INTERPOSE_VARIADIC
