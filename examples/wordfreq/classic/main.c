/*
 * main.c — wordfreq: how often each word given as an argument occurs in standard input.
 * The HTML coverage report must show this comment escaped: <script>alert("x")</script> & co.
 */
#include "wordfreq.h"

int main(int argc, char **argv)
{
    struct wf_table *table = wf_new();
    if (!table) {
        fputs("wordfreq: out of memory\n", stderr); /* LEG(deletable) */
        return 1;                                   /* LEG(deletable) */
    }
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
