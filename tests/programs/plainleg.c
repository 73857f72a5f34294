/*
 * plainleg.c — the two test programs of a small suite (plainsuite.sh), built with --coverage,
 * for tests/integration/test_cov_plain.sh: a line that is only an error leg in one program's
 * fault run, but that the other program runs in the suite's plain run, is live code, never
 * deletable under NOFAIL.
 *   plainleg list   builds a list of three names; a failed (small) allocation is reported
 *                   through set_error(), the library's error setter, and plainleg_error()
 *   plainleg parse  parses a malformed number, as a suite's test of its error path does: the
 *                   plain run reports it through the same set_error() and plainleg_error()
 * Each program alone never calls set_error() in the other's way: failrun cov compares each
 * fault run with its own program's run alone, so set_error() is an error leg of list's
 * allocation; but parse runs it without any fault, so NOFAIL cannot make it dead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char error_text[64];
static int error_code;

static void set_error(int code, const char *what)
{
    error_code = code; /* LEG(plain) */
    snprintf(error_text, sizeof error_text, "%s (%d)", what, code); /* LEG(plain) */
}

/* The library's public error getter. */
static const char *plainleg_error(void)
{
    return error_code ? error_text : "no error"; /* LEG(plain) */
}

static int list(void)
{
    static const char *const names[] = {"alpha", "beta", "gamma"};
    char *copies[3] = {0};
    int status = 0;
    for (int i = 0; i < 3; i++) {
        copies[i] = malloc(strlen(names[i]) + 1);
        if (!copies[i]) {
            set_error(ENOMEM, "out of memory"); /* LEG(deletable) */
            status = 1;                         /* LEG(deletable) */
            break;                              /* LEG(deletable) */
        }
        strcpy(copies[i], names[i]);
        puts(copies[i]);
    }
    if (status)
        fprintf(stderr, "plainleg: %s\n", plainleg_error()); /* LEG(deletable) */
    for (int i = 0; i < 3; i++)
        free(copies[i]);
    return status;
}

static int parse(const char *text)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (*end || errno) {
        set_error(EINVAL, "not a number");
        fprintf(stderr, "plainleg: %s: %s\n", text, plainleg_error());
        return 1;
    }
    printf("%ld\n", value);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "list"))
        return list();
    if (argc == 3 && !strcmp(argv[1], "parse"))
        return parse(argv[2]);
    fputs("usage: plainleg list | plainleg parse TEXT\n", stderr);
    return 2;
}
