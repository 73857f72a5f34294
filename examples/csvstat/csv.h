/*
 * csv.h — just enough CSV for csvstat: lines, a header of names, rows of numbers.
 *
 * Why a separate module: it is where the allocations happen, each at its own call site and
 * each with an error leg, which is what libfail exercises. No quoting or escaping is
 * supported: fields are separated by commas and that is all.
 */
#ifndef CSV_H
#define CSV_H

#include <stddef.h>
#include <stdio.h>

enum csv_status {
    CSV_OK = 0,
    CSV_EOF,     /* csv_read_line: no more input */
    CSV_ENOMEM,  /* an allocation failed; nothing was returned */
    CSV_EIO,     /* csv_read_line: the stream reported an error */
    CSV_EBADROW, /* csv_parse_row: wrong number of fields, or a field is not a number */
};

/*
 * Read one line of any length from fp into a fresh NUL-terminated buffer without its line
 * ending ("\n" or "\r\n"); the caller frees *line. On CSV_ENOMEM the rest of the line has
 * been consumed, so the caller may skip it and carry on.
 */
enum csv_status csv_read_line(FILE *fp, char **line);

/* Split a header line into *ncols freshly allocated names. NULL when out of memory. */
char **csv_parse_header(const char *line, size_t *ncols);

/* Free what csv_parse_header returned. */
void csv_free_header(char **names, size_t ncols);

/*
 * Parse a row of exactly ncols numeric fields into a fresh array *values (the caller frees
 * it). CSV_OK, CSV_ENOMEM or CSV_EBADROW; on error *values is untouched.
 */
enum csv_status csv_parse_row(const char *line, size_t ncols, double **values);

#endif
