/*
 * csv.c — line reading and field splitting for csvstat (see csv.h).
 *
 * Why the allocations look like this: a line buffer that starts small and doubles, a copy of
 * each header name, and per row a field index, a scratch copy of the line and the result
 * array. Every one of them is checked; one error leg in csv_parse_row is deliberately wrong
 * (marked by a BUG comment on its line; see examples/README.md).
 */
#define _POSIX_C_SOURCE 200809L

#include "csv.h"

#include <stdlib.h>
#include <string.h>

#define LINE_START_SIZE 16

/* Discard input up to and including the next newline. */
static void skip_rest_of_line(FILE *fp)
{
    int c;
    while ((c = getc(fp)) != EOF && c != '\n')
        ;
}

enum csv_status csv_read_line(FILE *fp, char **line)
{
    size_t size = LINE_START_SIZE;
    size_t len = 0;
    int c;

    char *buf = malloc(size);
    if (buf == NULL) {
        skip_rest_of_line(fp);
        return CSV_ENOMEM;
    }
    while ((c = getc(fp)) != EOF && c != '\n') {
        if (len + 1 >= size) {
            char *bigger = realloc(buf, size * 2);
            if (bigger == NULL) {
                free(buf);
                skip_rest_of_line(fp);
                return CSV_ENOMEM;
            }
            buf = bigger;
            size *= 2;
        }
        buf[len++] = (char)c;
    }
    if (ferror(fp)) {
        free(buf);
        return CSV_EIO;
    }
    if (c == EOF && len == 0) {
        free(buf);
        return CSV_EOF;
    }
    if (len > 0 && buf[len - 1] == '\r')
        len--;
    buf[len] = '\0';
    *line = buf;
    return CSV_OK;
}

/* Number of comma-separated fields in line (an empty line has one, empty, field). */
static size_t count_fields(const char *line)
{
    size_t n = 1;
    for (const char *p = line; *p != '\0'; p++)
        if (*p == ',')
            n++;
    return n;
}

char **csv_parse_header(const char *line, size_t *ncols)
{
    size_t n = count_fields(line);
    char **names = calloc(n, sizeof *names);
    if (names == NULL)
        return NULL;

    const char *p = line;
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(p, ",");
        names[i] = strndup(p, len);
        if (names[i] == NULL)
            goto fail;
        p += len;
        if (*p == ',')
            p++;
    }
    *ncols = n;
    return names;

fail:
    csv_free_header(names, n); /* calloc left the unset names NULL */
    return NULL;
}

void csv_free_header(char **names, size_t ncols)
{
    if (names == NULL)
        return;
    for (size_t i = 0; i < ncols; i++)
        free(names[i]);
    free(names);
}

/* A whole field that strtod accepts, with nothing left over. */
static int parse_number(const char *field, double *out)
{
    char *end;
    if (*field == '\0')
        return -1;
    double v = strtod(field, &end);
    if (*end != '\0')
        return -1;
    *out = v;
    return 0;
}

enum csv_status csv_parse_row(const char *line, size_t ncols, double **values)
{
    enum csv_status rc = CSV_ENOMEM;
    char *copy = NULL;
    double *vals = NULL;

    if (count_fields(line) != ncols)
        return CSV_EBADROW;

    char **fields = malloc(ncols * sizeof *fields); /* BUG(leak) */
    if (fields == NULL)
        return CSV_ENOMEM;
    copy = strdup(line);
    if (copy == NULL)
        return CSV_ENOMEM;

    /* Cut the copy into fields in place. */
    char *p = copy;
    for (size_t i = 0; i < ncols; i++) {
        fields[i] = p;
        p += strcspn(p, ",");
        if (*p == ',')
            *p++ = '\0';
    }

    vals = malloc(ncols * sizeof *vals);
    if (vals == NULL)
        goto out;
    for (size_t i = 0; i < ncols; i++) {
        if (parse_number(fields[i], &vals[i]) != 0) {
            rc = CSV_EBADROW;
            goto out;
        }
    }
    *values = vals;
    vals = NULL;
    rc = CSV_OK;

out:
    free(vals);
    free(copy);
    free(fields);
    return rc;
}
