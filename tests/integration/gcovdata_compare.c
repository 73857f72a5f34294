/*
 * gcovdata_compare.c — checks the in-process gcov reader (coverage/gcovdata.c) against gcov
 * itself: `gcovdata_compare [--time] FILE.gcda...`.
 *
 * For each data file (its .gcno beside it, as gcov finds it) the reader's counts are compared
 * with what `gcov --json-format --stdout -b FILE.gcda` prints: per source file, every line's
 * count and its branches' counts (in gcov's order), and every function's name, start line and
 * end line. A line gcov lists more than once (functions starting on the same line) is compared
 * summed, count with count and branch i with branch i, as failrun cov stores it. Differences
 * are printed; the exit status is 1 when there was any, 0 otherwise.
 *
 * With --time, the reader's mean time per data file (notes read once, the data's bytes already
 * in memory, over 200 repetitions) is printed beside gcov's (the whole run: start, read, print,
 * parse of its JSON not included; mean of 3).
 * Built by make (build/tests/gcovdata_compare) for tests/integration/test_gcovdata.sh.
 */
#include "gcovdata.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPETITIONS 200
#define GCOV_RUNS 3
#define MAX_REPORTED 12 /* differences printed per data file */

/* A line after summing duplicates: count, and branch counts index by index. */
struct summed_line {
    int line;
    int64_t count;
    int64_t *branches;
    size_t branch_count;
};

struct summed_file {
    char *name;
    struct summed_line *lines;
    size_t line_count;
    struct gcov_function *functions; /* names owned */
    size_t function_count;
};

struct summed {
    struct summed_file *files;
    size_t file_count;
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *grow(void *items, size_t count, size_t size)
{
    void *moved = realloc(items, (count ? count : 1) * size);
    if (!moved) {
        fputs("gcovdata_compare: out of memory\n", stderr);
        exit(2);
    }
    return moved;
}

static char *read_all(int fd, size_t *length)
{
    size_t capacity = 65536, used = 0;
    char *buffer = grow(NULL, capacity + 1, 1);
    for (;;) {
        if (used == capacity)
            buffer = grow(buffer, (capacity *= 2) + 1, 1);
        ssize_t n = read(fd, buffer + used, capacity - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
    }
    buffer[used] = '\0';
    *length = used;
    return buffer;
}

static char *read_file(const char *path, size_t *length)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    char *bytes = read_all(fd, length);
    close(fd);
    return bytes;
}

/* gcov's output for one data file (NULL when it could not run); *status its exit status. */
static char *run_gcov(const char *data, int *status)
{
    int pipes[2];
    if (pipe(pipes))
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipes[1], 1);
        close(pipes[0]);
        close(pipes[1]);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        execlp("gcov", "gcov", "--json-format", "--stdout", "-b", data, (char *)NULL);
        _exit(127);
    }
    close(pipes[1]);
    size_t length;
    char *output = read_all(pipes[0], &length);
    close(pipes[0]);
    int wait_status = 0;
    waitpid(pid, &wait_status, 0);
    *status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
    return output;
}

static int compare_summed_lines(const void *left, const void *right)
{
    const struct summed_line *a = left, *b = right;
    return (a->line > b->line) - (a->line < b->line);
}

/* Sorts `lines` by line and sums the entries of one line into one. */
static void sum_duplicates(struct summed_file *file)
{
    if (!file->line_count)
        return;
    qsort(file->lines, file->line_count, sizeof *file->lines, compare_summed_lines);
    size_t kept = 0;
    for (size_t i = 0; i < file->line_count; i++) {
        struct summed_line *line = &file->lines[i];
        struct summed_line *last = kept ? &file->lines[kept - 1] : NULL;
        if (!last || last->line != line->line) {
            file->lines[kept++] = *line;
            continue;
        }
        last->count += line->count;
        if (line->branch_count > last->branch_count) {
            last->branches = grow(last->branches, line->branch_count, sizeof *last->branches);
            for (size_t k = last->branch_count; k < line->branch_count; k++)
                last->branches[k] = 0;
            last->branch_count = line->branch_count;
        }
        for (size_t k = 0; k < line->branch_count; k++)
            last->branches[k] += line->branches[k];
        free(line->branches);
    }
    file->line_count = kept;
}

static int compare_functions(const void *left, const void *right)
{
    const struct gcov_function *a = left, *b = right;
    if (a->start_line != b->start_line)
        return a->start_line < b->start_line ? -1 : 1;
    if (a->end_line != b->end_line)
        return a->end_line < b->end_line ? -1 : 1;
    return strcmp(a->name, b->name);
}

static void sort_functions(struct summed_file *file)
{
    if (file->function_count)
        qsort(file->functions, file->function_count, sizeof *file->functions, compare_functions);
}

static struct summed_file *add_file(struct summed *summed, const char *name)
{
    summed->files = grow(summed->files, summed->file_count + 1, sizeof *summed->files);
    struct summed_file *file = &summed->files[summed->file_count++];
    *file = (struct summed_file){.name = strdup(name)};
    return file;
}

static void summed_free(struct summed *summed)
{
    for (size_t i = 0; i < summed->file_count; i++) {
        struct summed_file *file = &summed->files[i];
        for (size_t k = 0; k < file->line_count; k++)
            free(file->lines[k].branches);
        for (size_t k = 0; k < file->function_count; k++)
            free((char *)file->functions[k].name);
        free(file->lines);
        free(file->functions);
        free(file->name);
    }
    free(summed->files);
    *summed = (struct summed){0};
}

/* The reader's counts, summed the same way. */
static void sum_reader(const struct gcov_counts *counts, struct summed *summed)
{
    for (size_t i = 0; i < counts->file_count; i++) {
        const struct gcov_file *in = &counts->files[i];
        struct summed_file *file = add_file(summed, in->name);
        file->lines = grow(NULL, in->line_count, sizeof *file->lines);
        file->line_count = in->line_count;
        for (size_t k = 0; k < in->line_count; k++) {
            const struct gcov_line *line = &in->lines[k];
            struct summed_line *out = &file->lines[k];
            *out = (struct summed_line){line->line, line->count, NULL, (size_t)line->branches};
            out->branches = grow(NULL, out->branch_count, sizeof *out->branches);
            for (size_t b = 0; b < out->branch_count; b++)
                out->branches[b] = in->branch_counts[line->first_branch + (int)b];
        }
        file->functions = grow(NULL, in->function_count, sizeof *file->functions);
        file->function_count = in->function_count;
        for (size_t k = 0; k < in->function_count; k++) {
            file->functions[k] = in->functions[k];
            file->functions[k].name = strdup(in->functions[k].name);
        }
        sum_duplicates(file);
        sort_functions(file);
    }
}

/* gcov's JSON document, summed. */
static bool sum_gcov(json_t *document, struct summed *summed)
{
    json_t *files = json_object_get(document, "files");
    if (!json_is_array(files))
        return false;
    size_t index;
    json_t *entry;
    json_array_foreach(files, index, entry) {
        const char *name = json_string_value(json_object_get(entry, "file"));
        struct summed_file *file = add_file(summed, name ? name : "?");
        json_t *lines = json_object_get(entry, "lines"), *functions;
        file->line_count = json_array_size(lines);
        file->lines = grow(NULL, file->line_count, sizeof *file->lines);
        size_t k;
        json_t *line;
        json_array_foreach(lines, k, line) {
            json_t *branches = json_object_get(line, "branches");
            struct summed_line *out = &file->lines[k];
            out->line = (int)json_integer_value(json_object_get(line, "line_number"));
            out->count = json_integer_value(json_object_get(line, "count"));
            out->branch_count = json_array_size(branches);
            out->branches = grow(NULL, out->branch_count, sizeof *out->branches);
            for (size_t b = 0; b < out->branch_count; b++)
                out->branches[b] =
                    json_integer_value(json_object_get(json_array_get(branches, b), "count"));
        }
        functions = json_object_get(entry, "functions");
        file->function_count = json_array_size(functions);
        file->functions = grow(NULL, file->function_count, sizeof *file->functions);
        json_t *function;
        json_array_foreach(functions, k, function) {
            const char *fname = json_string_value(json_object_get(function, "name"));
            file->functions[k] = (struct gcov_function){
                strdup(fname ? fname : "?"),
                (int)json_integer_value(json_object_get(function, "start_line")),
                (int)json_integer_value(json_object_get(function, "end_line"))};
        }
        sum_duplicates(file);
        sort_functions(file);
    }
    return true;
}

struct report {
    const char *data;
    int differences;
};

static void differ(struct report *r, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void differ(struct report *r, const char *format, ...)
{
    if (r->differences++ < MAX_REPORTED) {
        va_list arguments;
        va_start(arguments, format);
        printf("%s: ", r->data);
        vprintf(format, arguments);
        putchar('\n');
        va_end(arguments);
    }
}

/* What was compared, over all data files: said at the end, so that "0 different" is seen to
   have covered something. */
static long lines_compared, branches_compared, functions_compared;

static void print_branches(char *out, size_t size, const int64_t *branches, size_t count)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < count && used + 24 < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%" PRId64, i ? "," : "", branches[i]);
}

static void compare_lines(struct report *r, const struct summed_file *mine,
                          const struct summed_file *theirs)
{
    size_t i = 0, j = 0;
    while (i < mine->line_count || j < theirs->line_count) {
        const struct summed_line *a = i < mine->line_count ? &mine->lines[i] : NULL;
        const struct summed_line *b = j < theirs->line_count ? &theirs->lines[j] : NULL;
        if (a && (!b || a->line < b->line)) {
            differ(r, "%s:%d: listed by the reader only", mine->name, a->line);
            i++;
            continue;
        }
        if (b && (!a || b->line < a->line)) {
            differ(r, "%s:%d: listed by gcov only (count %" PRId64 ")", theirs->name, b->line,
                   b->count);
            j++;
            continue;
        }
        lines_compared++;
        branches_compared += (long)b->branch_count;
        if (a->count != b->count)
            differ(r, "%s:%d: count %" PRId64 " (reader) vs %" PRId64 " (gcov)", mine->name,
                   a->line, a->count, b->count);
        if (a->branch_count != b->branch_count ||
            memcmp(a->branches, b->branches, a->branch_count * sizeof *a->branches)) {
            char left[256], right[256];
            print_branches(left, sizeof left, a->branches, a->branch_count);
            print_branches(right, sizeof right, b->branches, b->branch_count);
            differ(r, "%s:%d: branches [%s] (reader) vs [%s] (gcov)", mine->name, a->line, left,
                   right);
        }
        i++;
        j++;
    }
}

static void compare_function_lists(struct report *r, const struct summed_file *mine,
                                   const struct summed_file *theirs)
{
    size_t i = 0, j = 0;
    while (i < mine->function_count || j < theirs->function_count) {
        const struct gcov_function *a = i < mine->function_count ? &mine->functions[i] : NULL;
        const struct gcov_function *b = j < theirs->function_count ? &theirs->functions[j] : NULL;
        int order = !a ? 1 : !b ? -1 : compare_functions(a, b);
        if (order < 0)
            differ(r, "%s: function %s (%d-%d) listed by the reader only", mine->name, a->name,
                   a->start_line, a->end_line);
        else if (order > 0)
            differ(r, "%s: function %s (%d-%d) listed by gcov only", theirs->name, b->name,
                   b->start_line, b->end_line);
        functions_compared += order == 0;
        i += order <= 0;
        j += order >= 0;
    }
}

static const struct summed_file *find_file(const struct summed *summed, const char *name)
{
    for (size_t i = 0; i < summed->file_count; i++)
        if (!strcmp(summed->files[i].name, name))
            return &summed->files[i];
    return NULL;
}

static void compare(struct report *r, const struct summed *mine, const struct summed *theirs)
{
    for (size_t i = 0; i < mine->file_count; i++) {
        const struct summed_file *a = &mine->files[i], *b = find_file(theirs, a->name);
        if (!b) {
            differ(r, "%s: source listed by the reader only", a->name);
            continue;
        }
        compare_lines(r, a, b);
        compare_function_lists(r, a, b);
    }
    for (size_t i = 0; i < theirs->file_count; i++)
        if (!find_file(mine, theirs->files[i].name))
            differ(r, "%s: source listed by gcov only", theirs->files[i].name);
}

static char *notes_path(const char *data)
{
    size_t length = strlen(data);
    char *path = grow(NULL, length + 6, 1);
    memcpy(path, data, length + 1);
    char *base = strrchr(path, '/');
    char *dot = strrchr(base ? base : path, '.');
    strcpy(dot ? dot : path + length, ".gcno");
    return path;
}

struct timing {
    double reader, gcov;
    bool valid;
};

/* Compares one data file; its number of differences (an error counts as one). */
static int check(const char *data, bool timed, struct timing *timing)
{
    struct report r = {data, 0};
    char error[512];
    char *notes_file = notes_path(data);
    struct gcov_notes *notes = gcov_notes_read(notes_file, error, sizeof error);
    free(notes_file);
    size_t length = 0;
    char *bytes = read_file(data, &length);
    int status = 0;
    double started = now();
    char *output = run_gcov(data, &status);
    double gcov_time = now() - started;
    json_error_t json_error;
    json_t *document = output ? json_loads(output, JSON_DISABLE_EOF_CHECK, &json_error) : NULL;
    struct gcov_counts counts = {0};
    if (!notes) {
        differ(&r, "reader: %s", error);
    } else if (!bytes) {
        differ(&r, "cannot read: %s", strerror(errno));
    } else if (gcov_counts_read(notes, bytes, length, &counts, error, sizeof error)) {
        differ(&r, "reader: %s (gcov exit %d)", error, status);
    } else if (!document) {
        differ(&r, "gcov printed no JSON (exit %d)", status);
    } else {
        struct summed mine = {0}, theirs = {0};
        sum_reader(&counts, &mine);
        if (!sum_gcov(document, &theirs))
            differ(&r, "gcov's JSON has no files");
        else
            compare(&r, &mine, &theirs);
        summed_free(&mine);
        summed_free(&theirs);
        if (timed) {
            started = now();
            for (int i = 0; i < REPETITIONS; i++)
                gcov_counts_read(notes, bytes, length, &counts, error, sizeof error);
            timing->reader = (now() - started) / REPETITIONS;
            for (int i = 1; i < GCOV_RUNS; i++) {
                started = now();
                free(run_gcov(data, &status));
                gcov_time += now() - started;
            }
            timing->gcov = gcov_time / GCOV_RUNS;
            timing->valid = true;
            printf("%s: reader %.1f us, gcov %.1f ms (%zu bytes)\n", data, timing->reader * 1e6,
                   timing->gcov * 1e3, length);
        }
    }
    if (r.differences > MAX_REPORTED)
        printf("%s: ... %d differences in all\n", data, r.differences);
    gcov_counts_free(&counts);
    gcov_notes_free(notes);
    json_decref(document);
    free(output);
    free(bytes);
    return r.differences;
}

int main(int argc, char **argv)
{
    bool timed = false;
    int first = 1;
    if (first < argc && !strcmp(argv[first], "--time")) {
        timed = true;
        first++;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: %s [--time] FILE.gcda...\n", argv[0]);
        return 2;
    }
    int equal = 0, different = 0, timed_files = 0;
    double reader = 0, gcov = 0;
    for (int i = first; i < argc; i++) {
        struct timing timing = {0};
        if (check(argv[i], timed, &timing))
            different++;
        else
            equal++;
        if (timing.valid) {
            reader += timing.reader;
            gcov += timing.gcov;
            timed_files++;
        }
    }
    printf("%d data file(s) equal, %d different (%ld lines, %ld branches, %ld functions "
           "compared)\n", equal, different, lines_compared, branches_compared, functions_compared);
    if (timed_files)
        printf("mean per data file: reader %.1f us, gcov %.1f ms\n", reader / timed_files * 1e6,
               gcov / timed_files * 1e3);
    return different ? 1 : 0;
}
