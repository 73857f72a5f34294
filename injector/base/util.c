/*
 * util.c — helpers for the failrun CLI: errors, memory, files, paths, quoting.
 */
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *program_name = "failrun";
bool warnings_quiet;
jmp_buf *fatal_jump;

volatile sig_atomic_t failrun_stopping;
sigset_t stop_signals;

void stop_here(void)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    for (;;)
        pause();
}

void signals_for_child(sigset_t *mask)
{
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&stop_signals, sig) == 1)
            sigdelset(mask, sig);
}

void fatal(const char *format, ...)
{
    if (failrun_stopping)
        stop_here();
    if (fatal_jump)
        longjmp(*fatal_jump, 1);
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(EXIT_USAGE);
}

void warn(const char *format, ...)
{
    if (warnings_quiet)
        return;
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: warning: ", program_name);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
}

static void *checked(void *block)
{
    if (!block) {
        fprintf(stderr, "%s: out of memory\n", program_name);
        abort();
    }
    return block;
}

void *xmalloc(size_t size)
{
    return checked(malloc(size ? size : 1));
}

void *xcalloc(size_t count, size_t size)
{
    return checked(calloc(count ? count : 1, size ? size : 1));
}

void *xrealloc(void *block, size_t size)
{
    return checked(realloc(block, size ? size : 1));
}

char *xstrdup(const char *text)
{
    return checked(strdup(text));
}

char *xasprintf(const char *format, ...)
{
    va_list args;
    char *result = NULL;
    va_start(args, format);
    int n = vasprintf(&result, format, args);
    va_end(args);
    if (n < 0)
        checked(NULL);
    return result;
}

char *next_file_named(DIR *folder, const char *directory, const char *prefix, const char *suffix)
{
    size_t prefix_length = strlen(prefix), suffix_length = strlen(suffix);
    struct dirent *entry;
    while ((entry = readdir(folder))) {
        size_t length = strlen(entry->d_name);
        if (length >= prefix_length + suffix_length &&
            !strncmp(entry->d_name, prefix, prefix_length) &&
            !strcmp(entry->d_name + length - suffix_length, suffix))
            return xasprintf("%s/%s", directory, entry->d_name);
    }
    return NULL;
}

char *read_whole_file(const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    size_t capacity = 4096, used = 0;
    char *data = xmalloc(capacity + 1);
    size_t n;
    while ((n = fread(data + used, 1, capacity - used, file)) > 0) {
        used += n;
        if (used == capacity) {
            capacity *= 2;
            data = xrealloc(data, capacity + 1);
        }
    }
    bool failed = ferror(file);
    fclose(file);
    if (failed) {
        free(data);
        errno = EIO;
        return NULL;
    }
    data[used] = '\0';
    if (length)
        *length = used;
    return data;
}

bool write_whole_file(const char *path, const void *data, size_t length)
{
    FILE *file = fopen(path, "wb");
    if (!file)
        return false;
    bool ok = fwrite(data, 1, length, file) == length;
    ok = (fclose(file) == 0) && ok;
    return ok;
}

bool make_directories(const char *path)
{
    char *copy = xstrdup(path);
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
            free(copy);
            return false;
        }
        *p = '/';
    }
    bool ok = mkdir(copy, 0755) == 0 || errno == EEXIST;
    free(copy);
    return ok;
}

bool each_file_below(const char *folder, bool (*each)(const char *path, void *context),
                     void *context)
{
    DIR *dir = opendir(folder);
    if (!dir)
        return false;
    bool ok = true;
    struct dirent *entry;
    while (ok && (entry = readdir(dir))) {
        if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
            continue;
        char *path = xasprintf("%s/%s", folder, entry->d_name);
        unsigned char type = entry->d_type;
        struct stat st;
        if (type == DT_UNKNOWN && lstat(path, &st) == 0)
            type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
        if (type == DT_DIR)
            ok = each_file_below(path, each, context);
        else if (type == DT_REG)
            ok = each(path, context);
        free(path);
    }
    closedir(dir);
    return ok;
}

uint64_t tree_bytes(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    uint64_t bytes = (uint64_t)st.st_blocks * 512; /* as du counts: blocks on disk */
    DIR *dir = S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    if (dir) {
        struct dirent *entry;
        while ((entry = readdir(dir))) {
            if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
                continue;
            char *child = xasprintf("%s/%s", path, entry->d_name);
            bytes += tree_bytes(child);
            free(child);
        }
        closedir(dir);
    }
    return bytes;
}

void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    if (dir) {
        struct dirent *entry;
        while ((entry = readdir(dir))) {
            if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
                continue;
            char *child = xasprintf("%s/%s", path, entry->d_name);
            struct stat st;
            if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(child);
            else
                unlink(child);
            free(child);
        }
        closedir(dir);
    }
    rmdir(path);
}

/* Copy one regular file, keeping its mode; false (errno set) on any failure. */
static bool copy_file(const char *from, const char *to, mode_t mode)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return false;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 07777);
    bool ok = out >= 0;
    char buffer[65536];
    while (ok) {
        ssize_t n = read(in, buffer, sizeof buffer);
        if (n == 0)
            break;
        if (n < 0) {
            ok = errno == EINTR;
            continue;
        }
        for (ssize_t done = 0; ok && done < n;) {
            ssize_t w = write(out, buffer + done, (size_t)(n - done));
            if (w < 0)
                ok = errno == EINTR;
            else
                done += w;
        }
    }
    int saved = errno;
    close(in);
    if (out >= 0 && close(out) != 0)
        ok = false;
    errno = saved;
    return ok;
}

static bool copy_tree(const char *from, const char *to)
{
    struct stat st;
    if (lstat(from, &st) != 0)
        return false;
    if (S_ISREG(st.st_mode))
        return copy_file(from, to, st.st_mode);
    if (S_ISLNK(st.st_mode)) { /* a suite's link in its folder (the baseline's is moved) */
        char target[PATH_MAX];
        ssize_t length = readlink(from, target, sizeof target - 1);
        if (length < 0)
            return false;
        target[length] = '\0';
        return symlink(target, to) == 0 || errno == EEXIST;
    }
    if (!S_ISDIR(st.st_mode))
        return true; /* a FIFO, a socket: nothing to keep */
    if (mkdir(to, 0700) != 0 && errno != EEXIST)
        return false;
    DIR *dir = opendir(from);
    if (!dir)
        return false;
    bool ok = true;
    struct dirent *entry;
    while (ok && (entry = readdir(dir))) {
        if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
            continue;
        char *source = xasprintf("%s/%s", from, entry->d_name);
        char *target = xasprintf("%s/%s", to, entry->d_name);
        ok = copy_tree(source, target);
        free(source);
        free(target);
    }
    closedir(dir);
    return ok && chmod(to, st.st_mode & 07777) == 0; /* its mode once its entries are in */
}

bool move_tree(const char *from, const char *to)
{
    char *parent = xstrdup(to);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        make_directories(parent);
    }
    free(parent);
    remove_tree(to);
    if (rename(from, to) == 0)
        return true;
    if (errno != EXDEV)
        return false;
    bool ok = copy_tree(from, to);
    if (ok)
        remove_tree(from);
    return ok;
}

void hex16(char out[17], uint64_t value)
{
    snprintf(out, 17, "%016llx", (unsigned long long)value);
}

bool parse_hex16(const char *text, uint64_t *value)
{
    if (strlen(text) != 16 || strspn(text, "0123456789abcdefABCDEF") != 16)
        return false;
    *value = strtoull(text, NULL, 16);
    return true;
}

uint64_t file_hash(const char *path)
{
    size_t length;
    char *data = read_whole_file(path, &length);
    if (!data)
        return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < length; i++) {
        h ^= (unsigned char)data[i];
        h *= 0x100000001b3ull;
    }
    free(data);
    return h ? h : 1;
}

int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *self_directory(void)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return xstrdup(".");
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (slash)
        *slash = '\0';
    return xstrdup(path);
}

char *resolve_command(const char *name)
{
    char resolved[PATH_MAX];
    if (strchr(name, '/'))
        return realpath(name, resolved) ? xstrdup(resolved) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t length = strcspn(path, ":");
        char *candidate = xasprintf("%.*s/%s", (int)length, length ? path : ".", name);
        bool found = access(candidate, X_OK) == 0 && realpath(candidate, resolved);
        free(candidate);
        if (found)
            return xstrdup(resolved);
        path += length + (path[length] == ':');
    }
    return NULL;
}

char *shell_quote(const char *argument)
{
    if (*argument && strspn(argument, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789-_./=:,+@%") == strlen(argument))
        return xstrdup(argument);
    size_t length = 2;
    for (const char *p = argument; *p; p++)
        length += *p == '\'' ? 4 : 1;
    char *out = xmalloc(length + 1), *o = out;
    *o++ = '\'';
    for (const char *p = argument; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}

char *shell_join(char *const *argv)
{
    char *joined = xstrdup("");
    for (size_t i = 0; argv[i]; i++) {
        char *quoted = shell_quote(argv[i]);
        char *next = xasprintf("%s%s%s", joined, i ? " " : "", quoted);
        free(joined);
        free(quoted);
        joined = next;
    }
    return joined;
}
