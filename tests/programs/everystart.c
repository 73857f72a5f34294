/*
 * everystart.c — one allocation site reached by two programs of a suite (tests/integration/
 * test_every_start.sh): `everystart careful` checks what copy() returned, `everystart careless`
 * does not. The suite starts the careful one first, so it owns the site, and failing the site
 * there only is handled; --every-start fails it in the careless one too, which crashes.
 *
 * usage: everystart careful | careless
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *copy(const char *text)
{
    char *out = malloc(strlen(text) + 1);
    if (out)
        strcpy(out, text);
    return out;
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "careful") && strcmp(argv[1], "careless"))) {
        fputs("usage: everystart careful | careless\n", stderr);
        return 2;
    }
    char *word = copy("suite"); /* one call, one site, whichever the mode */
    if (!strcmp(argv[1], "careful") && !word) {
        fputs("everystart: out of memory\n", stderr);
        return 1;
    }
    printf("%s has %zu letters\n", word, strlen(word)); /* careless: NULL when copy failed */
    free(word);
    return 0;
}
