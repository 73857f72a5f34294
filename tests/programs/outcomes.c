/* outcomes.c — one allocation site per outcome failrun distinguishes beyond crash and leak:
   a hang, silently wrong output, an xmalloc-style abort, and a failure absorbed by a fallback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *xmalloc(size_t size)
{
    void *p = malloc(size); /* OUTCOME(oom-abort) */
    if (!p) {
        fputs("outcomes: out of memory\n", stderr);
        abort();
    }
    return p;
}

static void wait_for_memory(void)
{
    char *p = malloc(40); /* OUTCOME(hang) */
    while (!p)
        pause(); /* waits forever for memory that never comes */
    free(p);
}

static int count_words(const char *text)
{
    char *copy = malloc(strlen(text) + 1); /* OUTCOME(silent) */
    if (!copy)
        return 0; /* wrong: reports zero words, says nothing */
    strcpy(copy, text);
    int words = 0;
    for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
        words++;
    free(copy);
    return words;
}

static int checksum(const char *text)
{
    static char fallback[64];
    char *buffer = malloc(64); /* OUTCOME(absorbed) */
    char *use = buffer ? buffer : fallback;
    snprintf(use, 64, "%s", text);
    int sum = 0;
    for (const char *c = use; *c; c++)
        sum += *c;
    free(buffer);
    return sum;
}

int main(void)
{
    const char *text = "one two three four";
    char *label = xmalloc(16);
    strcpy(label, "words");
    wait_for_memory();
    printf("%s: %d, checksum %d\n", label, count_words(text), checksum(text));
    free(label);
    return 0;
}
