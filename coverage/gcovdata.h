/*
 * gcovdata.h — gcov's line, branch and function counts without gcov: a reader of gcc 12's
 * notes (.gcno) and data (.gcda) files (see gcovdata.c).
 *
 * A notes file is read once (gcov_notes_read) and kept; each data file written against it is
 * then turned into the numbers `gcov --json-format --stdout -b` prints for it
 * (gcov_counts_read), in a fraction of a millisecond and with no process started.
 *
 * What a gcov_counts holds, per source file, is what gcov's JSON says of that file:
 *   - lines: every "lines" entry (line_number, count), sorted by line. A line that gcov lists
 *     twice (it lists the lines of functions that start on the same line, such as the copies
 *     of a function defined by a macro, once per function) is here twice, in gcov's order, so
 *     that summing duplicates gives what summing gcov's entries gave;
 *   - branches: an entry's "branches" counts, in gcov's order, at
 *     branch_counts[first_branch .. first_branch + branches);
 *   - functions: "name" (the mangled name), "start_line", "end_line".
 * File names are gcov's "file": the name the notes record, made canonical as gcov does
 * (relative names are relative to gcov_notes_directory()).
 */
#ifndef GCOVDATA_H
#define GCOVDATA_H

#include <stddef.h>
#include <stdint.h>

struct gcov_notes; /* one parsed .gcno */

/* Reads a notes file; NULL on error, with a message in `error`. */
struct gcov_notes *gcov_notes_read(const char *path, char *error, size_t error_size);
void gcov_notes_free(struct gcov_notes *notes);
/* The compiler's working directory, as the notes record it. */
const char *gcov_notes_directory(const struct gcov_notes *notes);

struct gcov_line {
    int line;
    int64_t count;
    int branches;     /* how many */
    int first_branch; /* index into the file's branch_counts */
};

struct gcov_function {
    const char *name;
    int start_line, end_line;
};

struct gcov_file {
    const char *name;
    struct gcov_line *lines; /* sorted by line */
    size_t line_count;
    int64_t *branch_counts;
    size_t branch_count;
    const struct gcov_function *functions; /* by start line */
    size_t function_count;
};

/* Zero-initialise before the first use. What it holds stays valid until the next read into it;
   names and functions point into the notes. Notes are only read once built: threads may share
   them, each with its own gcov_counts. */
struct gcov_counts {
    struct gcov_file *files;
    size_t file_count;
    struct gcov_scratch *scratch; /* private */
};

/* The counts of one data file (its bytes) written against `notes`. 0 on success; -1 with a
   message when the data is malformed or does not match the notes (stamp, function checksums,
   counter count). Reuses `counts`' memory from call to call, with the same notes or others. */
int gcov_counts_read(const struct gcov_notes *notes, const void *data, size_t length,
                     struct gcov_counts *counts, char *error, size_t error_size);
void gcov_counts_free(struct gcov_counts *counts);

#endif
