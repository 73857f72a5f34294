/*
 * auditlibc.c — the few C library functions libfail-audit.so uses, so that the module needs no
 * C library of its own.
 *
 * Why: the dynamic linker loads an LD_AUDIT module into a link namespace of its own, and every
 * library the module needs with it: a module linked against libc.so.6 brought a second copy of
 * the C library into every process of a scoped campaign (mapped, relocated and initialised,
 * about a millisecond and a hundred page faults a process here), for a handful of string
 * functions and one getenv. Built with -nostdlib, the module needs nothing and these stand in.
 *
 * getenv reads /proc/self/environ once, with raw system calls (no errno, no stdio, no malloc):
 * the environment the process was started with, which is where failrun put the module's
 * settings. Everything here is hidden: nothing leaves the module. Compiled freestanding
 * (Makefile), so that the compiler does not turn these loops back into calls of themselves.
 */
#include <fcntl.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HIDDEN __attribute__((visibility("hidden")))

static long raw_syscall3(long number, long a, long b, long c)
{
    long result;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(number), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    return result;
}

HIDDEN size_t strlen(const char *text)
{
    size_t length = 0;
    while (text[length])
        length++;
    return length;
}

HIDDEN void *memcpy(void *to, const void *from, size_t count)
{
    unsigned char *out = to;
    const unsigned char *in = from;
    while (count--)
        *out++ = *in++;
    return to;
}

HIDDEN void *memset(void *to, int value, size_t count)
{
    unsigned char *out = to;
    while (count--)
        *out++ = (unsigned char)value;
    return to;
}

HIDDEN int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}

HIDDEN int strncmp(const char *a, const char *b, size_t count)
{
    for (; count; count--, a++, b++) {
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        if (!*a)
            return 0;
    }
    return 0;
}

HIDDEN char *strchr(const char *text, int c)
{
    for (;; text++) {
        if (*text == (char)c)
            return (char *)text;
        if (!*text)
            return NULL;
    }
}

HIDDEN char *strrchr(const char *text, int c)
{
    const char *found = NULL;
    for (;; text++) {
        if (*text == (char)c)
            found = text;
        if (!*text)
            return (char *)found;
    }
}

/* The environment as the process was started with it: NUL-separated NAME=VALUE entries, read
   when the module is loaded (la_version), before the program can rewrite the area. Room for
   the most the kernel passes a program (arguments and environment share 2 MiB by default);
   only the pages the environment fills are touched. Without /proc, or past that size, nothing is
   found: without LIBFAIL_API_MODULES the module audits every library that is not the system's,
   as it does when failrun names none. */
static char environment[1 << 21];
static long environment_length = -1;

static void read_environment(void)
{
    environment_length = 0;
    long fd = raw_syscall3(SYS_open, (long)"/proc/self/environ", O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0)
        return;
    while (environment_length < (long)sizeof environment - 1) {
        long got = raw_syscall3(SYS_read, fd, (long)(environment + environment_length),
                                (long)sizeof environment - 1 - environment_length);
        if (got == -4) /* -EINTR */
            continue;
        if (got <= 0)
            break;
        environment_length += got;
    }
    raw_syscall3(SYS_close, fd, 0, 0);
    environment[environment_length] = '\0';
}

/* The target of a symbolic link, unterminated, as readlink(2) gives it; -1 on an error. */
HIDDEN ssize_t readlink(const char *restrict path, char *restrict buffer, size_t size)
{
    long got = raw_syscall3(SYS_readlink, (long)path, (long)buffer, (long)size);
    return got < 0 ? -1 : got;
}

/* Code built with -fstack-protector (a distribution's default: text.c is shared with the
   preload) calls this when a canary was overwritten; the canary itself is the thread's, which
   the dynamic linker sets up. */
HIDDEN _Noreturn void __stack_chk_fail(void)
{
    raw_syscall3(SYS_kill, raw_syscall3(SYS_getpid, 0, 0, 0), 6 /* SIGABRT */, 0);
    for (;;)
        raw_syscall3(SYS_exit_group, 127, 0, 0);
}

HIDDEN char *getenv(const char *name)
{
    if (environment_length < 0)
        read_environment();
    size_t length = strlen(name);
    for (long at = 0; at < environment_length;) {
        char *entry = environment + at;
        size_t entry_length = strlen(entry);
        if (entry_length > length && entry[length] == '=' && !strncmp(entry, name, length))
            return entry + length + 1;
        at += (long)entry_length + 1;
    }
    return NULL;
}
