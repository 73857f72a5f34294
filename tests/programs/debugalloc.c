/*
 * debugalloc.c — a debug allocator in the manner of curl's memdebug.c: dbg_malloc allocates for
 * its caller and logs the call through dbg_log, which allocates the line it writes and gives up
 * quietly when it cannot; dbg_free logs through it too. Failing dbg_log's allocation costs the
 * log a line and nothing else: it is the wrapper's bookkeeping, not the program's error handling.
 * make_pair and make_list each leak their first block when dbg_malloc's second allocation fails
 * (two findings). pool_alloc has no allocation of its own: it forwards to refill, so refill's
 * allocations stay the program's even when pool_alloc is named a wrapper (--wrapper pool_alloc);
 * fill_one leaks its first block when the second fails (a third finding).
 * dbg_fopen opens a stream and logs it, as curl_dbg_fopen does: a wrapper by its name, since it
 * returns the FILE that fopen allocated. show_banner says nothing when it cannot open its file
 * (a silent finding at its call of dbg_fopen); count_lines says why and exits 1 (handled).
 * libmaker's maker_make allocates through dbg_malloc, the callback show_made gives it, as zlib
 * allocates through the zalloc curl gives it (whose frame a tail call removes); show_made says nothing when maker_make fails (a
 * silent finding at show_made's call of maker_make, the place the failure came back to).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *debug_log;

__attribute__((noinline)) static void dbg_log(const char *format, ...)
{
    if (!debug_log)
        return;
    char *line = malloc(256);
    if (!line)
        return; /* the line is lost, as curl_dbg_log loses it */
    va_list arguments;
    va_start(arguments, format);
    int length = vsnprintf(line, 256, format, arguments);
    va_end(arguments);
    if (length > 0)
        fwrite(line, 1, strlen(line), debug_log);
    free(line);
}

__attribute__((noinline)) static void *dbg_malloc(size_t size, int source_line)
{
    void *block = malloc(size);
    dbg_log("MEM debugalloc.c:%d malloc(%zu) = %s\n", source_line, size, block ? "ok" : "NULL");
    return block;
}

__attribute__((noinline)) static void dbg_free(void *block, int source_line)
{
    dbg_log("MEM debugalloc.c:%d free(%s)\n", source_line, block ? "block" : "NULL");
    free(block);
}

__attribute__((noinline)) static FILE *dbg_fopen(const char *path, const char *mode,
                                                  int source_line)
{
    FILE *stream = fopen(path, mode);
    dbg_log("FILE debugalloc.c:%d fopen(%s) = %s\n", source_line, path, stream ? "ok" : "NULL");
    return stream;
}

int maker_make(void *(*allocate)(size_t, int), char **out);

__attribute__((noinline)) static void *refill(size_t size)
{
    return malloc(size);
}

__attribute__((noinline)) static void *pool_alloc(size_t size)
{
    return refill(size);
}

__attribute__((noinline)) static int make_pair(void)
{
    char *first = dbg_malloc(16, __LINE__);
    if (!first)
        return -1;
    char *second = dbg_malloc(32, __LINE__);
    if (!second)
        return -1; /* BUG: leaks first */
    dbg_free(first, __LINE__);
    dbg_free(second, __LINE__);
    return 0;
}

__attribute__((noinline)) static int make_list(void)
{
    char *head = dbg_malloc(24, __LINE__);
    if (!head)
        return -1;
    char *tail = dbg_malloc(40, __LINE__);
    if (!tail)
        return -1; /* BUG: leaks head */
    dbg_free(head, __LINE__);
    dbg_free(tail, __LINE__);
    return 0;
}

__attribute__((noinline)) static int fill_one(void)
{
    char *a = pool_alloc(48);
    if (!a)
        return -1;
    char *b = pool_alloc(56);
    if (!b)
        return -1; /* BUG: leaks a */
    free(a);
    free(b);
    return 0;
}

__attribute__((noinline)) static void show_banner(void)
{
    FILE *banner = dbg_fopen("/dev/null", "r", __LINE__);
    if (!banner)
        return; /* BUG: the banner is lost and nobody is told */
    puts("banner: shown");
    fclose(banner);
}

__attribute__((noinline)) static void count_lines(void)
{
    FILE *input = dbg_fopen("/dev/null", "r", __LINE__);
    if (!input) {
        fputs("debugalloc: cannot open /dev/null\n", stderr);
        exit(1);
    }
    int lines = 0;
    for (int c; (c = getc(input)) != EOF;)
        lines += c == '\n';
    printf("lines: %d\n", lines);
    fclose(input);
}

__attribute__((noinline)) static void show_made(void)
{
    char *made = NULL;
    if (maker_make(dbg_malloc, &made) != 0) /* the allocator it calls back */
        return; /* BUG: nothing is shown and nobody is told */
    printf("%s\n", made);
    dbg_free(made, __LINE__);
}

int main(void)
{
    debug_log = fopen("/dev/null", "w");
    /* Failures are absorbed (same status, same output): only the leaks are bugs. */
    make_pair();
    make_list();
    fill_one();
    show_banner();
    count_lines();
    show_made();
    if (debug_log)
        fclose(debug_log);
    puts("ok");
    return 0;
}
