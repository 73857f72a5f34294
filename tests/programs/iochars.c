/*
 * iochars.c — reads and writes one character at a time, for `failrun run --faults io`
 * (tests/integration/test_faults_io.sh): getchar copies standard input, fgetc and getc count the
 * bytes of FILE, putchar, putc and fputc write the results. Each call's failure is told by its
 * stream's error indicator (EOF alone is also the end of the input) and ends the program with
 * its own status: 21 getchar, 22 fgetc, 23 getc, 24 putchar, 25 putc, 26 fputc.
 */
#include <stdio.h>

static int count_bytes(FILE *file, int (*next)(FILE *), long *count)
{
    while (next(file) != EOF)
        ++*count;
    return ferror(file) ? -1 : 0;
}

static int fgetc_next(FILE *file)
{
    return fgetc(file);
}

static int getc_next(FILE *file)
{
    return getc(file);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: iochars FILE <INPUT\n", stderr);
        return 64;
    }
    int c;
    while ((c = getchar()) != EOF)
        if (putchar(c) == EOF)
            return 24;
    if (ferror(stdin))
        return 21;
    FILE *file = fopen(argv[1], "r");
    if (!file)
        return 2;
    long by_fgetc = 0, by_getc = 0;
    if (count_bytes(file, fgetc_next, &by_fgetc) != 0)
        return 22;
    rewind(file);
    if (count_bytes(file, getc_next, &by_getc) != 0)
        return 23;
    fclose(file);
    if (putc(by_fgetc == by_getc ? '=' : '!', stdout) == EOF)
        return 25;
    if (fputc('\n', stdout) == EOF)
        return 26;
    return fflush(stdout) == 0 ? 0 : 1;
}
