/*
 * csvstat.c — per-column count, min, max and mean of a numeric CSV read from stdin.
 *
 * Why it is written this way: it is a libfail target, so its output is fully deterministic
 * (fixed printf formats, input order only) and it frees everything before exiting. It also
 * has the two kinds of error policy a real tool has: a row that cannot be parsed because
 * memory ran out is parsed once more (memory may have come back), and if it still cannot be
 * handled it is skipped with a warning ("csvstat: line N skipped: out of memory"): the report
 * then covers the other rows and the exit status is 1, since it is incomplete. Running out of
 * memory anywhere else (the header, the statistics table) is fatal: a message on stderr and
 * exit status 1 at once.
 *
 * Input: a header line of column names, then rows of numbers, comma-separated.
 * Run:   ./csvstat < sample.csv
 */
#define _POSIX_C_SOURCE 200809L

#include "csv.h"

#include <stdio.h>
#include <stdlib.h>

struct column_stats {
    size_t count;
    double min;
    double max;
    double sum;
};

static void add_row(struct column_stats *stats, const double *values, size_t ncols)
{
    for (size_t i = 0; i < ncols; i++) {
        struct column_stats *s = &stats[i];
        if (s->count == 0 || values[i] < s->min)
            s->min = values[i];
        if (s->count == 0 || values[i] > s->max)
            s->max = values[i];
        s->sum += values[i];
        s->count++;
    }
}

static void print_report(char *const *names, const struct column_stats *stats, size_t ncols,
                         size_t rows, size_t used, size_t skipped)
{
    printf("rows: %zu read, %zu used, %zu skipped\n", rows, used, skipped);
    printf("%-14s %6s %12s %12s %12s\n", "column", "count", "min", "max", "mean");
    for (size_t i = 0; i < ncols; i++) {
        const struct column_stats *s = &stats[i];
        if (s->count == 0)
            printf("%-14s %6zu %12s %12s %12s\n", names[i], s->count, "-", "-", "-");
        else
            printf("%-14s %6zu %12.3f %12.3f %12.3f\n", names[i], s->count, s->min, s->max,
                   s->sum / (double)s->count);
    }
}

int main(void)
{
    int status = 1;
    char *header = NULL;
    char **names = NULL;
    size_t ncols = 0;
    struct column_stats *stats = NULL;
    size_t lineno = 1;
    size_t rows = 0, used = 0, skipped = 0;
    int incomplete = 0;

    switch (csv_read_line(stdin, &header)) {
    case CSV_OK:
        break;
    case CSV_EOF:
        fprintf(stderr, "csvstat: no header line\n");
        goto cleanup;
    case CSV_ENOMEM:
        fprintf(stderr, "csvstat: header: out of memory\n");
        goto cleanup;
    default:
        fprintf(stderr, "csvstat: read error\n");
        goto cleanup;
    }
    names = csv_parse_header(header, &ncols);
    if (names == NULL) {
        fprintf(stderr, "csvstat: header: out of memory\n");
        goto cleanup;
    }
    stats = calloc(ncols, sizeof *stats);
    if (stats == NULL) {
        fprintf(stderr, "csvstat: statistics table: out of memory\n");
        goto cleanup;
    }

    for (;;) {
        char *line = NULL;
        double *values = NULL;
        enum csv_status rc = csv_read_line(stdin, &line);
        lineno++;
        if (rc == CSV_EOF)
            break;
        if (rc == CSV_EIO) {
            fprintf(stderr, "csvstat: read error at line %zu\n", lineno);
            goto cleanup;
        }
        if (rc == CSV_OK && line[0] == '\0') { /* blank lines are not rows */
            free(line);
            continue;
        }
        rows++;
        if (rc == CSV_OK)
            rc = csv_parse_row(line, ncols, &values);
        if (rc == CSV_ENOMEM && line != NULL)
            rc = csv_parse_row(line, ncols, &values); /* once more */
        free(line);

        if (rc == CSV_OK) {
            add_row(stats, values, ncols);
            free(values);
            used++;
        } else {
            fprintf(stderr, "csvstat: line %zu skipped: %s\n", lineno,
                    rc == CSV_ENOMEM ? "out of memory" : "not a row of numbers");
            skipped++;
            incomplete |= rc == CSV_ENOMEM;
        }
    }

    print_report(names, stats, ncols, rows, used, skipped);
    status = incomplete ? 1 : 0;

cleanup:
    free(stats);
    csv_free_header(names, ncols);
    free(header);
    return status;
}
