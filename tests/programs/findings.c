/* findings.c — one program per way a maintainer reads a failed allocation, chosen by argv[1]:
 *   warn       prints a warning, then a wrong result with exit status 0: a bug (silent)
 *   pair       one function ignores both of its allocations' failures, each giving another wrong
 *              output: one bug (one silent finding seen in two runs)
 *   panic      an allocation wrapper returns NULL and its caller calls the program's own panic
 *              helper, which exits 3: a deliberate out-of-memory exit (oom-abort), not a bug
 *   abort      the same with abort(): oom-abort too
 *   layered    a library's allocator three layers deep (Pool_Alloc -> pool_take -> pool_more ->
 *              malloc) whose public entry panics and aborts when the layers below return NULL,
 *              as Tcl_Alloc calls Tcl_Panic("unable to alloc"): its designed oom-abort
 *   locale     setlocale(LC_ALL, "") under a UTF-8 locale: glibc 2.36 loses the normalised
 *              codeset in _nl_find_locale when a later allocation of its own fails, a leak
 *              whose allocation, failed call and loss all lie inside the C library: glibc's,
 *              not the program's, and suppressed by default
 *   reachable  the failure leaves a block live at exit, still reachable from a global: no leak
 *   lost       the failure leaves a block nothing points to any more: a leak
 *   stream     the failure leaves a NULL stream that fputs is given: a crash inside the C
 *              library whose fault is the program's argument, headlined at the program's line
 *   nocode     two failures leave a function pointer unset (NULL, or a stale value) and the
 *              program calls through it: a crash at an address that holds no code, unwound from
 *              the call's return address and headlined at the caller's line, one finding
 * Every mode prints the same line as without a failure when it absorbs one. */
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *cache; /* a block the program keeps on purpose */

__attribute__((noinline)) static void *try_alloc(size_t size)
{
    return malloc(size);
}

__attribute__((noinline, noreturn)) static void panic(int abort_instead)
{
    char *message = malloc(64); /* the exit path allocates: never an error leg to explore */
    snprintf(message ? message : (char[64]){0}, 64, "findings: out of memory\n");
    fputs(message ? message : "findings: out of memory\n", stderr);
    if (abort_instead)
        abort();
    exit(3);
}

static int warn(void)
{
    char *line = malloc(32);
    if (!line) {
        fputs("warning: out of memory, result left empty\n", stderr);
        puts("");
        return 0;
    }
    strcpy(line, "result 42");
    puts(line);
    free(line);
    return 0;
}

static int pair(void)
{
    char *name = malloc(16), *value = malloc(16);
    printf("%s=%s\n", name ? strcpy(name, "key") : "", value ? strcpy(value, "42") : "");
    free(name);
    free(value);
    return 0;
}

static int panics(int abort_instead)
{
    char *line = try_alloc(32);
    if (!line)
        panic(abort_instead);
    strcpy(line, "result 42");
    puts(line);
    free(line);
    return 0;
}

__attribute__((noinline)) static void *pool_more(size_t size)
{
    return malloc(size);
}

__attribute__((noinline)) static void *pool_take(size_t size)
{
    void *block = pool_more(size);
    return block ? block : NULL;
}

/* The library's public allocator: never returns NULL, it panics (Tcl_Alloc's design). */
__attribute__((noinline)) static void *Pool_Alloc(size_t size)
{
    void *block = pool_take(size);
    if (!block) {
        fprintf(stderr, "findings: unable to alloc %zu bytes\n", size);
        abort();
    }
    return block;
}

static int layered(void)
{
    char *line = Pool_Alloc(32);
    strcpy(line, "result 42");
    puts(line);
    free(line);
    return 0;
}

static int keeps(int lose)
{
    char *first = malloc(48);
    if (!first)
        return 1;
    char *second = malloc(16);
    if (!second) {
        if (!lose)
            cache = first; /* kept for later: reachable */
        first = NULL;     /* lost: nothing points to it */
        puts("result 42");
        return 0;
    }
    free(second);
    free(first);
    puts("result 42");
    return 0;
}

static int stream(void)
{
    char *buffer = malloc(64);
    FILE *out = buffer ? stdout : NULL;
    fputs("result 42\n", out); /* BUG(stream) */
    free(buffer);
    return 0;
}

struct codec {
    char *name;
    char *alias;
    int (*decode)(const char *text);
};

static int decode_plain(const char *text)
{
    return (int)strlen(text);
}

__attribute__((noinline)) static struct codec *codec_new(void)
{
    struct codec *codec = calloc(1, sizeof *codec);
    if (!codec)
        return NULL;
    codec->name = strdup("plain");
    if (!codec->name)
        return codec; /* BUG(nocode): decode is left NULL */
    codec->alias = strdup("text");
    if (!codec->alias) {
        codec->decode = (int (*)(const char *))(uintptr_t)0x10; /* BUG(nocode): not code */
        return codec;
    }
    codec->decode = decode_plain;
    return codec;
}

static int nocode(void)
{
    struct codec *codec = codec_new();
    if (!codec) {
        puts("result 42");
        return 0;
    }
    printf("result %d\n", codec->decode("the answer is 42") + 26); /* CALL(nocode) */
    free(codec->alias);
    free(codec->name);
    free(codec);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "warn"))
        return warn();
    if (!strcmp(mode, "pair"))
        return pair();
    if (!strcmp(mode, "panic") || !strcmp(mode, "abort"))
        return panics(!strcmp(mode, "abort"));
    if (!strcmp(mode, "reachable") || !strcmp(mode, "lost"))
        return keeps(!strcmp(mode, "lost"));
    if (!strcmp(mode, "stream"))
        return stream();
    if (!strcmp(mode, "nocode"))
        return nocode();
    if (!strcmp(mode, "layered"))
        return layered();
    if (!strcmp(mode, "locale")) {
        setlocale(LC_ALL, "");
        puts("result 42");
        return 0;
    }
    fputs("usage: findings warn|panic|abort|layered|reachable|lost|stream|nocode|locale\n", stderr);
    return 2;
}
