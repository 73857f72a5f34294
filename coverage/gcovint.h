/*
 * gcovint.h — what the files that read gcc 12's notes and data share (gcovdata.h is their
 * interface): the files' constants, the reader of words and strings, the parsed notes, and the
 * builder that reads them. gcovread.c reads words, gcovnotes.c the notes file, gcovplan.c works
 * out what depends on the notes alone, gcovdata.c reads a data file with it. See gcovdata.c for
 * the formats and for what gcov does with them.
 */
#ifndef GCOVINT_H
#define GCOVINT_H

#include "gcovdata.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NOTES_MAGIC 0x67636e6fu /* "gcno" */
#define DATA_MAGIC 0x67636461u  /* "gcda" */
#define TAG_FUNCTION 0x01000000u
#define TAG_BLOCKS 0x01410000u
#define TAG_ARCS 0x01430000u
#define TAG_LINES 0x01450000u
#define TAG_ARC_COUNTS 0x01a10000u
#define FUNCTION_LENGTH 12

#define ARC_ON_TREE 1u
#define ARC_FAKE 2u
#define ARC_FALLTHROUGH 4u
/* Derived, as gcov marks them. */
#define ARC_UNCONDITIONAL 8u /* the only non-fake exit of its block */
#define ARC_NO_RETURN 16u    /* fake exit of a call block: a call that may not return */

#define MAX_BLOCKS (1 << 24) /* per function; more means a corrupt file */
#define MAX_LINE (1 << 28)

#define LIST(type)                                                                                 \
    struct {                                                                                       \
        type *items;                                                                               \
        size_t count, capacity;                                                                    \
    }
#define LIST_PUSH(list, value)                                                                     \
    (reserve(&(list).items, &(list).capacity, (list).count + 1, sizeof *(list).items),             \
     (list).items[(list).count++] = (value))

struct int_list {
    int *items;
    size_t count, capacity;
};

/* ---- gcovread.c: memory, messages, words and strings ---- */

struct input {
    const unsigned char *bytes;
    size_t length, at;
    bool swap; /* written in the other byte order */
    bool short_read;
};

void *allocate(size_t count, size_t size);
/* Grows *items (of `size`-byte elements) to hold at least `needed`. */
void reserve(void *items, size_t *capacity, size_t needed, size_t size);
void say(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
char *copy_string(const char *text);
uint32_t take_word(struct input *in);
int64_t take_counter(struct input *in);
const char *take_string(struct input *in, char **text);
bool take_magic(struct input *in, uint32_t magic);
bool subtag(uint32_t tag, uint32_t sub);
/* The whole file at `path`; NULL with the reason in `error` when it cannot be read. */
unsigned char *gcov_read_file(const char *path, size_t *length, char *error, size_t error_size);

/* ---- the parsed notes ---- */

struct note_function {
    char *name;
    uint32_t ident, lineno_checksum, cfg_checksum;
    int source, start_line, start_column, end_line, end_column;
    bool artificial, group;
    int first_block, block_count; /* notes->blocks */
    int first_counter, counter_count;
    int *group_lines; /* while building: line objects of a group function, by line - start */
};

struct note_block {
    int succ, succ_count; /* arcs[succ ...]: its exits, by destination as gcov sorts them */
    int pred, pred_count; /* pred_arcs[pred ...]: its entries */
};

struct note_arc {
    int src, dst; /* notes->blocks */
};

/* One step of gcov's flow solution. */
enum { STEP_BLOCK_BY_EXITS, STEP_BLOCK_BY_ENTRIES, STEP_EXIT_ARC, STEP_ENTRY_ARC };
struct solve_step {
    int kind, block, arc;
};

/* One of gcov's line records: a line of a file, or of a group function. */
struct note_line {
    int blocks, block_count;   /* line_blocks[...]: blocks chained on it (repeats kept) */
    int entries, entry_count;  /* line_arcs[...]: arcs entering them from off the line */
    int plain, plain_count;    /* line_plain[...]: blocks summed when none is chained */
    bool cyclic;               /* arcs between its blocks close a cycle */
};

struct note_source {
    char *name;
    int first_line, line_count;         /* out_lines[...] */
    int first_branch, branch_count;     /* out_branch_arcs[...] */
    int first_function, function_count; /* out_functions[...] */
};

struct ident_entry {
    uint32_t ident;
    int function;
};

struct gcov_notes {
    char *directory;
    uint32_t stamp;
    struct note_function *functions;
    size_t function_count;
    struct ident_entry *idents; /* sorted; the last function of an ident wins, as in gcov */
    size_t ident_count;
    struct note_block *blocks;
    size_t block_count;
    struct note_arc *arcs;
    unsigned char *arc_flags;
    size_t arc_count;
    int *pred_arcs;
    int *counter_arcs; /* counter i of the data -> its arc */
    size_t counter_count;
    struct solve_step *steps;
    size_t step_count;
    struct note_line *lines;
    size_t line_count;
    int *line_blocks, *line_arcs, *line_plain;
    struct note_source *sources;
    size_t source_count;
    /* What gcov_counts_read hands out, counts aside. */
    struct gcov_line *out_lines;
    int *out_objects; /* out_lines[i]'s line record */
    size_t out_line_count;
    int *out_branch_arcs;
    size_t out_branch_count;
    struct gcov_function *out_functions;
    size_t out_function_count;
};

/* ---- gcovnotes.c: the builder the notes are read into ---- */

struct raw_arc {
    int src, dst; /* notes->blocks */
    unsigned flags;
};

struct raw_location {
    int block, source;
    int first_line, line_count; /* builder.lines */
};

struct name_entry {
    char *name;
    int source;
};

struct block_range {
    int first, count; /* builder.arcs, in record order */
};

struct builder {
    LIST(struct note_function) functions;
    LIST(struct raw_arc) arcs;
    LIST(struct block_range) block_arcs; /* per block */
    LIST(struct raw_location) locations;
    LIST(int) lines;
    LIST(struct name_entry) names;
    LIST(char *) sources;
    char *text; /* take_string's buffer */
};

/* ---- gcovplan.c: what depends on the notes alone ---- */

/* Each step of gcov_notes_read after the file is parsed, in this order. */
void build_arcs(struct gcov_notes *notes, struct builder *b);
void plan_solutions(struct gcov_notes *notes);
void mark_groups(struct gcov_notes *notes);
void build_lines(struct gcov_notes *notes, struct builder *b);
void build_idents(struct gcov_notes *notes);
/* Is `block` one of blocks[0..count)? (gcovdata.c's cycle search too) */
bool on_blocks(const int *blocks, int count, int block);

#endif
