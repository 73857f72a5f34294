/*
 * iolegs.c — a program with I/O error legs, for `failrun run --faults io`
 * (tests/integration/test_faults_io.sh): it sums the numbers of INPUT, journals the sum, saves a
 * report and shows the saved report. Every I/O failure is handled with its own exit status,
 * except one: the saved report's fclose is never checked, so a failed final flush loses the
 * report and the program still exits 0 (the BUG line). Its one small allocation has an error leg
 * of its own (the NOFAIL policy would make it dead code); the legs of fopen, which also fails when
 * its own small allocation does, are needed for I/O failures anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *what, int status)
{
    fprintf(stderr, "iolegs: %s: %s\n", what, strerror(errno)); /* LEG(report) */
    return status;
}

/* The journal: one line, written, synced and closed, every step checked. */
static int write_journal(const char *text)
{
    char path[64];
    snprintf(path, sizeof path, "journal.%d", (int)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return fail("create journal", 4);
    ssize_t length = (ssize_t)strlen(text);
    if (write(fd, text, (size_t)length) != length || fsync(fd) != 0) {
        int status = fail("write journal", 5); /* LEG(journal) */
        close(fd);
        unlink(path);
        return status;
    }
    if (close(fd) != 0) {
        unlink(path);
        return fail("close journal", 6);
    }
    unlink(path);
    return 0;
}

/* The report: saved to a file, then shown from the file. */
static int save_and_show(const char *text)
{
    char path[64], line[64];
    snprintf(path, sizeof path, "report.%d", (int)getpid());
    FILE *report = fopen(path, "w");
    if (!report)
        return fail("create report", 7);
    if (fprintf(report, "%s", text) < 0) {
        fclose(report);
        unlink(path);
        return fail("write report", 8);
    }
    fclose(report); /* BUG: unchecked: a failed final flush loses the report, silently */
    report = fopen(path, "r");
    if (!report) {
        unlink(path);
        return fail("reopen report", 9);
    }
    while (fgets(line, sizeof line, report))
        fputs(line, stdout);
    int status = ferror(report) ? fail("read report", 10) : 0;
    fclose(report);
    unlink(path);
    return status;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: iolegs INPUT\n", stderr);
        return 64;
    }
    char *text = malloc(256);
    if (!text) {
        fputs("iolegs: out of memory\n", stderr); /* LEG(alloc) */
        return 12;
    }
    FILE *input = fopen(argv[1], "r");
    if (!input) {
        free(text);
        return fail("open input", 2); /* LEG(open) */
    }
    char line[64];
    long total = 0;
    int count = 0;
    while (fgets(line, sizeof line, input)) {
        total += strtol(line, NULL, 10);
        count++;
    }
    if (ferror(input)) {
        fclose(input);
        free(text);
        return fail("read input", 3);
    }
    fclose(input); /* a read-only stream: nothing to lose */
    snprintf(text, 256, "count %d\ntotal %ld\n", count, total);
    int status = write_journal(text);
    if (!status)
        status = save_and_show(text);
    free(text);
    /* Standard output is a file too: a full disk there is an error as well. */
    if (!status && (fflush(stdout) != 0 || ferror(stdout)))
        status = fail("write output", 11);
    return status;
}
