/*
 * main.c — wordfreq (NOFAIL version): how often each word given as an argument occurs in
 * standard input. Only reading the text can fail.
 */
#include "wordfreq.h"

int main(int argc, char **argv)
{
    struct wf_table *table = wf_new();
    if (wf_load(table, stdin) < 0) {
        fputs("wordfreq: cannot read the text\n", stderr); /* LEG(kept) */
        wf_free(table);                                    /* LEG(kept) */
        return 1;                                          /* LEG(kept) */
    }
    printf("%zu distinct words\n", wf_words(table));
    for (int i = 1; i < argc; i++)
        printf("%s: %lu\n", argv[i], wf_count(table, argv[i]));
    wf_free(table);
    return 0;
}
