/* ownertest.c — the test programs of a small suite (ownersuite.sh) for test_owner.sh: failrun
   starts the program that owns a site alone, when alone it does what it did in the suite.
     ownertest words   reads a file on standard input, prints its words in capitals; a token
                       that fails to grow loses a byte and says nothing (like jansson's lexer)
     ownertest list    prints a list to standard output, which the driver reads through a pipe
                       and checks; a crash on one error leg, a silently short list on another
     ownertest token   needs SUITE_TOKEN and the same token on descriptor 3, both from the driver:
                       alone (without descriptor 3) it cannot do what it did
     ownertest count   counts the lines of standard input, a pipe from the driver
     ownertest init DIR  creates the repository DIR (like `git init`): a folder and its config
                       file; when DIR is there already it only says so (Reinitialized), through
                       other allocations: run alone twice, the second run finds the first's
   OWNERTEST_SLEEP_MS=N makes each start N ms slower (so a test can kill a campaign part-way). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct token {
    char *bytes;
    size_t length, capacity;
};

/* Returns -1 when the buffer cannot grow. */
static int token_append(struct token *token, char c)
{
    if (token->length + 2 > token->capacity) {
        size_t capacity = token->capacity ? token->capacity * 2 : 4;
        char *bytes = realloc(token->bytes, capacity); /* OWNER(silent) */
        if (!bytes)
            return -1;
        token->bytes = bytes;
        token->capacity = capacity;
    }
    token->bytes[token->length++] = c;
    token->bytes[token->length] = '\0';
    return 0;
}

static int words(void)
{
    char **list = malloc(64 * sizeof *list); /* OWNER(handled) */
    if (!list) {
        fputs("ownertest: out of memory\n", stderr);
        return 1;
    }
    size_t count = 0;
    struct token token = {0};
    int c;
    do {
        c = getchar();
        if (c != EOF && !isspace(c)) {
            token_append(&token, (char)toupper(c)); /* BUG(silent-drop): the result is ignored */
            continue;
        }
        if (token.length && count < 64) {
            list[count++] = token.bytes;
            token = (struct token){0};
        }
    } while (c != EOF);
    for (size_t i = 0; i < count; i++) {
        printf("%s\n", list[i]);
        free(list[i]);
    }
    free(token.bytes);
    free(list);
    return 0;
}

struct item {
    char *label;
    struct item *next;
};

/* An error leg that allocates: its allocation is a site only a failure reaches (a chain). */
static int out_of_memory_at(int item)
{
    char *message = malloc(64); /* OWNER(chain) */
    if (!message) {
        fputs("ownertest: out of memory\n", stderr);
        return 1;
    }
    snprintf(message, 64, "ownertest: out of memory at item %d\n", item);
    fputs(message, stderr);
    free(message);
    return 1;
}

static int list(void)
{
    static const char *const names[] = {"alpha", "beta", "gamma"};
    struct item *head = NULL;
    for (int i = 2; i >= 0; i--) {
        struct item *item = malloc(sizeof *item); /* OWNER(handled) */
        if (!item)
            return out_of_memory_at(i);
        item->label = malloc(strlen(names[i]) + 1); /* unchecked: */
        strcpy(item->label, names[i]);              /* BUG(crash) */
        item->next = head;
        head = item;
    }
    char *summary = malloc(32); /* BUG(silent-short): the summary line just goes missing */
    for (struct item *item = head; item; item = item->next)
        printf("%s\n", item->label);
    if (summary) {
        snprintf(summary, 32, "%d items", 3);
        printf("%s\n", summary);
    }
    free(summary);
    while (head) {
        struct item *next = head->next;
        free(head->label);
        free(head);
        head = next;
    }
    return 0;
}

static int token(void)
{
    const char *expected = getenv("SUITE_TOKEN");
    char given[64] = "";
    struct stat st;
    ssize_t n = fstat(3, &st) == 0 && S_ISREG(st.st_mode) ? read(3, given, sizeof given - 1) : 0;
    if (!expected || n <= 0) {
        fputs("ownertest: no token from the driver\n", stderr);
        return 2;
    }
    given[n] = '\0';
    char *copy = strdup(expected); /* OWNER(handled) */
    if (!copy) {
        fputs("ownertest: out of memory\n", stderr);
        return 1;
    }
    int same = strncmp(copy, given, strlen(copy)) == 0;
    free(copy);
    printf("token %s\n", same ? "ok" : "wrong");
    return same ? 0 : 3;
}

static int count(void)
{
    char *line = NULL;
    size_t capacity = 0;
    int lines = 0;
    while (getline(&line, &capacity, stdin) > 0)
        lines++;
    free(line);
    char *text = malloc(32); /* OWNER(handled) */
    if (!text) {
        fputs("ownertest: out of memory\n", stderr);
        return 1;
    }
    snprintf(text, 32, "%d lines", lines);
    puts(text);
    free(text);
    return 0;
}

/* A path under dir; NULL (after saying so) when there is no memory for it. */
static char *path_in(const char *dir, const char *name)
{
    size_t size = strlen(dir) + strlen(name) + 2;
    char *path = malloc(size); /* OWNER(init-path) */
    if (!path) {
        fputs("ownertest: out of memory\n", stderr);
        return NULL;
    }
    snprintf(path, size, "%s/%s", dir, name);
    return path;
}

static int init(const char *dir)
{
    char *config = path_in(dir, "config");
    if (!config)
        return 1;
    struct stat st;
    if (stat(config, &st) == 0) {
        printf("Reinitialized existing repository in %s\n", dir);
        free(config);
        return 0;
    }
    char *text = malloc(64); /* OWNER(init-fresh): reached only when DIR is new */
    if (!text || mkdir(dir, 0755) != 0) {
        fputs("ownertest: cannot create the repository\n", stderr);
        free(text);
        free(config);
        return 1;
    }
    snprintf(text, 64, "[core]\n\tversion = 0\n");
    FILE *file = fopen(config, "w");
    int status = file && fputs(text, file) >= 0 && fclose(file) == 0 ? 0 : 1;
    if (status)
        fputs("ownertest: cannot write the config\n", stderr);
    else
        printf("Initialized empty repository in %s\n", dir);
    free(text);
    free(config);
    return status;
}

int main(int argc, char **argv)
{
    const char *sleep_ms = getenv("OWNERTEST_SLEEP_MS");
    if (sleep_ms) {
        long ms = atol(sleep_ms);
        struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};
        nanosleep(&pause, NULL);
    }
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "words"))
        return words();
    if (!strcmp(mode, "list"))
        return list();
    if (!strcmp(mode, "token"))
        return token();
    if (!strcmp(mode, "count"))
        return count();
    if (!strcmp(mode, "init") && argc > 2)
        return init(argv[2]);
    fprintf(stderr, "usage: ownertest words|list|token|count|init DIR\n");
    return 2;
}
