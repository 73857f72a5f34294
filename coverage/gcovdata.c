/*
 * gcovdata.c — gcc 12's notes (.gcno) and data (.gcda) files read in process, giving the
 * numbers `gcov --json-format --stdout -b` gives (see gcovdata.h).
 *
 * Why: failrun cov reads thousands of data files per campaign. Running gcov on them and
 * parsing its JSON cost ~140 ms a run; most of that is gcov reading the same notes file again
 * for every data file. Here a notes file is read once, and everything that depends only on it
 * is worked out then: the order in which gcov solves the flow graph, which blocks and arcs make
 * each line's count, which arcs are each line's branches. A data file then costs one pass over
 * its counters and straight-line arithmetic.
 *
 * The files (gcc 12; numbers are 32-bit words in the writer's byte order, which the magic
 * tells; a string is a byte length, 0 for none, then that many bytes ending in a NUL, with no
 * padding; a 64-bit counter is its low word then its high word):
 *   notes: "gcno" version stamp checksum cwd:string has-unexecuted-blocks, then records
 *          (tag, length in bytes, body): FUNCTION (ident, lineno checksum, cfg checksum,
 *          name, artificial, source, start line, start column, end line, end column), then its
 *          BLOCKS (the block count), one ARCS per block (source block, then destination and
 *          flags per arc: ON_TREE, FAKE, FALLTHROUGH) and one LINES per block (the block, then
 *          line numbers, a 0 followed by a file name switching files, a 0 and an empty name
 *          ending the list). Block 0 is the entry, block 1 the exit.
 *   data:  "gcda" version stamp checksum, then FUNCTION records (ident and the two checksums;
 *          empty for a placeholder) each followed by its ARC_COUNTS: one counter per arc not
 *          on the spanning tree, in block order then arc order (a negative length: all zero),
 *          and the object summary. A function the data lacks counts zero.
 *
 * What gcov does with them, and so what is done here (gcov.cc of gcc 12 is the reference):
 *   - flow: each arc not on the tree gets its counter; gcov then solves the rest block by
 *     block from two work lists. Its order depends only on the graph, so it is simulated once
 *     (plan_function) and recorded as steps; replaying the steps gives gcov's numbers even for
 *     data whose flow does not balance (a program that died in the middle of a function);
 *   - lines: a block's lines are chained to it; the block (entry and the last block excluded,
 *     as gcov does) goes on the last line of each of its locations, with its arcs as that
 *     line's branches. A line with blocks counts the arcs entering them from elsewhere plus
 *     the cycles lying wholly on the line, found with gcov's elementary-circuit search
 *     (Hawick and James), whose results depend on its visiting order, kept here; a line with no
 *     block counts the sum of its blocks' counts;
 *   - functions that start on the same line of the same file (copies of a macro-made function)
 *     form a group: the lines of each, within its start and end, are its own and listed once
 *     per function;
 *   - artificial functions are dropped, as are, in the branch lists, unconditional arcs and
 *     the fake arcs of calls that may not return;
 *   - file names are made canonical as gcov does ('.' dropped, 'x/..' dropped when x exists);
 *     functions are listed by start line and column.
 * Where this differs on purpose: gcov still prints counts for a data file whose stamp or a
 * function's checksums do not match the notes (zeros, or the functions read before the
 * mismatch), and reads the missing counters of a cut data file as 0; here each is an error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include "gcovdata.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* ---- small helpers ---- */

static void *allocate(size_t count, size_t size)
{
    void *memory = calloc(count ? count : 1, size ? size : 1);
    if (!memory) {
        fputs("gcovdata: out of memory\n", stderr);
        abort();
    }
    return memory;
}

/* Grows *items (of `size`-byte elements) to hold at least `needed`. */
static void reserve(void *items, size_t *capacity, size_t needed, size_t size)
{
    if (needed <= *capacity)
        return;
    size_t grown = *capacity ? *capacity * 2 : 16;
    while (grown < needed)
        grown *= 2;
    void *moved = realloc(*(void **)items, grown * size);
    if (!moved) {
        fputs("gcovdata: out of memory\n", stderr);
        abort();
    }
    memset((char *)moved + *capacity * size, 0, (grown - *capacity) * size);
    *(void **)items = moved;
    *capacity = grown;
}

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

static void say(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *error, size_t error_size, const char *format, ...)
{
    if (!error || !error_size)
        return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
}

static char *copy_string(const char *text)
{
    size_t length = strlen(text);
    char *copy = allocate(length + 1, 1);
    memcpy(copy, text, length);
    return copy;
}

/* ---- reading words and strings ---- */

struct input {
    const unsigned char *bytes;
    size_t length, at;
    bool swap; /* written in the other byte order */
    bool short_read;
};

static uint32_t take_word(struct input *in)
{
    if (in->at > in->length || in->length - in->at < 4) {
        in->short_read = true;
        in->at = in->length;
        return 0;
    }
    uint32_t word;
    memcpy(&word, in->bytes + in->at, 4);
    in->at += 4;
    return in->swap ? __builtin_bswap32(word) : word;
}

static int64_t take_counter(struct input *in)
{
    uint64_t low = take_word(in);
    uint64_t high = take_word(in);
    return (int64_t)(low | high << 32);
}

/* A string: NULL for an empty one (length 0); `text` gets its bytes, NUL-terminated. */
static const char *take_string(struct input *in, char **text)
{
    uint32_t length = take_word(in);
    if (!length || in->short_read)
        return NULL;
    if (length > in->length - in->at) {
        in->short_read = true;
        in->at = in->length;
        return NULL;
    }
    free(*text);
    *text = allocate(length + 1, 1);
    memcpy(*text, in->bytes + in->at, length);
    in->at += length;
    return *text;
}

/* The magic word, setting the byte order; false when it is not `magic`. */
static bool take_magic(struct input *in, uint32_t magic)
{
    uint32_t word = take_word(in);
    if (word == magic)
        return true;
    if (word == __builtin_bswap32(magic)) {
        in->swap = true;
        return true;
    }
    return false;
}

/* Whether record tag `sub` belongs under record tag `tag` (FUNCTION's blocks, arcs, lines):
   gcov-io.h's tag hierarchy, one byte per level, the lowest bit of a used level set. */
static bool subtag(uint32_t tag, uint32_t sub)
{
    uint32_t tag_mask = (tag - 1) ^ tag, sub_mask = (sub - 1) ^ sub;
    return tag_mask >> 8 == sub_mask && !((sub ^ tag) & ~tag_mask);
}

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

/* ---- reading the notes into a builder ---- */

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

/* gcov's canonical name: separators collapsed, '.' dropped, 'dir/..' dropped when what is
   before it exists (stat, from the current directory), and not past a '..' that stayed. */
static char *canonical_name(const char *name)
{
    char *out = allocate(strlen(name) + 1, 1);
    size_t length = 0, floor = 0;
    bool separator = false;
    for (const char *part = name; *part;) {
        const char *end = part;
        while (*end && *end != '/')
            end++;
        size_t size = (size_t)(end - part);
        bool dots = size == 2 && part[0] == '.' && part[1] == '.';
        struct stat info;
        out[length] = '\0';
        if (size == 1 && part[0] == '.') {
            /* dropped */
        } else if (dots && length != floor && stat(out, &info) == 0) {
            do
                length--;
            while (length != floor && out[length] != '/');
            separator = length != 0;
        } else {
            if (dots)
                floor = length + 2 + separator;
            if (separator)
                out[length++] = '/';
            memcpy(out + length, part, size);
            length += size;
            separator = true;
        }
        while (*end == '/')
            end++;
        part = end;
    }
    out[length] = '\0';
    return out;
}

static int known_name(const struct builder *b, const char *name)
{
    for (size_t i = 0; i < b->names.count; i++)
        if (!strcmp(b->names.items[i].name, name))
            return b->names.items[i].source;
    return -1;
}

/* The source index of a file name, as gcov's find_source gives it: the same file under its
   canonical name or any name already seen is one source. */
static int find_source(struct builder *b, const char *name)
{
    if (!name)
        name = "<unknown>";
    int source = known_name(b, name);
    if (source >= 0)
        return source;
    char *canonical = canonical_name(name);
    source = known_name(b, canonical);
    if (source < 0) {
        source = (int)b->sources.count;
        LIST_PUSH(b->sources, canonical);
        LIST_PUSH(b->names, ((struct name_entry){copy_string(canonical), source}));
    } else {
        free(canonical);
    }
    LIST_PUSH(b->names, ((struct name_entry){copy_string(name), source}));
    return source;
}

static void read_function(struct builder *b, struct input *in)
{
    struct note_function f = {0};
    f.ident = take_word(in);
    f.lineno_checksum = take_word(in);
    f.cfg_checksum = take_word(in);
    const char *name = take_string(in, &b->text);
    f.name = copy_string(name ? name : "");
    f.artificial = take_word(in) != 0;
    f.source = find_source(b, take_string(in, &b->text));
    f.start_line = (int)take_word(in);
    f.start_column = (int)take_word(in);
    f.end_line = (int)take_word(in);
    f.end_column = (int)take_word(in);
    f.first_block = (int)b->block_arcs.count;
    f.block_count = -1; /* no BLOCKS record yet */
    LIST_PUSH(b->functions, f);
}

static bool read_blocks(struct builder *b, struct note_function *f, struct input *in)
{
    uint32_t count = take_word(in);
    if (f->block_count >= 0)
        return true; /* gcov ignores a second one */
    if (count > MAX_BLOCKS)
        return false;
    f->first_block = (int)b->block_arcs.count;
    f->block_count = (int)count;
    reserve(&b->block_arcs.items, &b->block_arcs.capacity, b->block_arcs.count + count,
            sizeof *b->block_arcs.items);
    b->block_arcs.count += count;
    return true;
}

static bool read_arcs(struct builder *b, struct note_function *f, struct input *in,
                      uint32_t length)
{
    uint32_t src = take_word(in);
    if (length < 4 || f->block_count < 0 || src >= (uint32_t)f->block_count)
        return false;
    struct block_range *range = &b->block_arcs.items[f->first_block + (int)src];
    if (range->count)
        return false; /* a second ARCS for the block */
    range->first = (int)b->arcs.count;
    for (uint32_t n = (length / 4 - 1) / 2; n--;) {
        uint32_t dst = take_word(in), flags = take_word(in);
        if (dst >= (uint32_t)f->block_count || in->short_read)
            return false;
        LIST_PUSH(b->arcs, ((struct raw_arc){f->first_block + (int)src,
                                             f->first_block + (int)dst, flags & 7u}));
        range->count++;
    }
    return true;
}

static bool read_lines(struct builder *b, struct note_function *f, struct input *in)
{
    uint32_t block = take_word(in);
    if (f->block_count < 0 || block >= (uint32_t)f->block_count)
        return false;
    struct raw_location *location = NULL;
    for (;;) {
        uint32_t line = take_word(in);
        if (in->short_read)
            return false;
        if (line > MAX_LINE)
            return false;
        if (line) {
            if (location) {
                LIST_PUSH(b->lines, (int)line);
                location->line_count++;
            }
            continue;
        }
        const char *name = take_string(in, &b->text);
        if (in->short_read)
            return false;
        if (!name)
            return true;
        int source = find_source(b, name);
        LIST_PUSH(b->locations, ((struct raw_location){f->first_block + (int)block, source,
                                                       (int)b->lines.count, 0}));
        location = &b->locations.items[b->locations.count - 1];
    }
}

/* The records of a notes file into `b`; false with a message when it is not one or is cut. */
static bool read_notes(struct builder *b, struct gcov_notes *notes, struct input *in,
                       const char *path, char *error, size_t error_size)
{
    if (!take_magic(in, NOTES_MAGIC)) {
        say(error, error_size, "%s: not a gcov notes file", path);
        return false;
    }
    uint32_t version = take_word(in);
    if ((version >> 24) < 'B' || ((version >> 24) == 'B' && ((version >> 16) & 0xff) < '2')) {
        say(error, error_size, "%s: notes of gcc version '%c%c%c%c', older than gcc 12", path,
            (char)(version >> 24), (char)(version >> 16), (char)(version >> 8), (char)version);
        return false;
    }
    notes->stamp = take_word(in);
    take_word(in); /* checksum */
    const char *directory = take_string(in, &b->text);
    notes->directory = directory ? copy_string(directory) : NULL;
    take_word(in); /* supports unexecuted blocks */
    if (in->short_read) {
        say(error, error_size, "%s: corrupted notes file", path);
        return false;
    }
    struct note_function *f = NULL;
    uint32_t current = 0, tag;
    while (!in->short_read && (tag = take_word(in))) {
        uint32_t length = take_word(in);
        size_t base = in->at;
        bool ok = true;
        if (tag == TAG_FUNCTION) {
            read_function(b, in);
            f = &b->functions.items[b->functions.count - 1];
            current = tag;
        } else if (f && tag == TAG_BLOCKS) {
            ok = read_blocks(b, f, in);
        } else if (f && tag == TAG_ARCS) {
            ok = read_arcs(b, f, in, length);
        } else if (f && tag == TAG_LINES) {
            ok = read_lines(b, f, in);
        } else if (current && !subtag(current, tag)) {
            f = NULL;
            current = 0;
        }
        if (!ok || in->short_read || length > in->length - base) {
            say(error, error_size, "%s: corrupted notes file", path);
            return false;
        }
        in->at = base + length;
    }
    return true;
}

/* ---- working out everything that depends on the notes alone ---- */

static int compare_arcs(const void *left, const void *right, void *context)
{
    const struct raw_arc *arcs = context;
    int a = *(const int *)left, b = *(const int *)right;
    if (arcs[a].src != arcs[b].src)
        return arcs[a].src < arcs[b].src ? -1 : 1;
    if (arcs[a].dst != arcs[b].dst)
        return arcs[a].dst < arcs[b].dst ? -1 : 1;
    return (a > b) - (a < b); /* gcov's sort by destination is stable */
}

/* Arcs grouped by source block and sorted by destination; entries per block; counters. */
static void build_arcs(struct gcov_notes *notes, struct builder *b)
{
    size_t count = b->arcs.count;
    int *order = allocate(count, sizeof *order), *final = allocate(count, sizeof *final);
    for (size_t i = 0; i < count; i++)
        order[i] = (int)i;
    qsort_r(order, count, sizeof *order, compare_arcs, b->arcs.items);
    notes->arc_count = count;
    notes->arcs = allocate(count, sizeof *notes->arcs);
    notes->arc_flags = allocate(count, 1);
    notes->blocks = allocate(b->block_arcs.count, sizeof *notes->blocks);
    notes->block_count = b->block_arcs.count;
    for (size_t i = 0; i < count; i++) {
        const struct raw_arc *raw = &b->arcs.items[order[i]];
        final[order[i]] = (int)i;
        notes->arcs[i] = (struct note_arc){raw->src, raw->dst};
        notes->arc_flags[i] = (unsigned char)raw->flags;
        struct note_block *block = &notes->blocks[raw->src];
        if (!block->succ_count++)
            block->succ = (int)i;
    }
    /* Entries in record order (gcov's predecessor lists). */
    int *fill = allocate(notes->block_count + 1, sizeof *fill);
    for (size_t i = 0; i < count; i++)
        notes->blocks[b->arcs.items[i].dst].pred_count++;
    for (size_t i = 0, at = 0; i < notes->block_count; i++) {
        notes->blocks[i].pred = (int)at;
        fill[i] = (int)at;
        at += (size_t)notes->blocks[i].pred_count;
    }
    notes->pred_arcs = allocate(count, sizeof *notes->pred_arcs);
    for (size_t i = 0; i < count; i++)
        notes->pred_arcs[fill[b->arcs.items[i].dst]++] = final[i];
    free(fill);
    /* Counters: the arcs off the tree, block by block, each block's in record order. */
    notes->counter_arcs = allocate(count, sizeof *notes->counter_arcs);
    for (size_t fi = 0; fi < b->functions.count; fi++) {
        struct note_function *f = &b->functions.items[fi];
        f->first_counter = (int)notes->counter_count;
        for (int block = 0; block < f->block_count; block++) {
            struct block_range range = b->block_arcs.items[f->first_block + block];
            for (int i = range.first; i < range.first + range.count; i++)
                if (!(b->arcs.items[i].flags & ARC_ON_TREE))
                    notes->counter_arcs[notes->counter_count++] = final[i];
        }
        f->counter_count = (int)notes->counter_count - f->first_counter;
    }
    free(order);
    free(final);
}

/* Marks unconditional arcs and those of calls that may not return, as gcov does. */
static void mark_arcs(struct gcov_notes *notes, const struct note_function *f)
{
    for (int block = f->first_block; block < f->first_block + f->block_count; block++) {
        const struct note_block *bl = &notes->blocks[block];
        int non_fake = 0, last = -1;
        for (int a = bl->succ; a < bl->succ + bl->succ_count; a++) {
            if (!(notes->arc_flags[a] & ARC_FAKE)) {
                non_fake++;
                last = a;
            } else if (block != f->first_block) {
                notes->arc_flags[a] |= ARC_NO_RETURN;
            }
        }
        if (non_fake == 1)
            notes->arc_flags[last] |= ARC_UNCONDITIONAL;
    }
}

/* Work space for simulating gcov's solution of one function. */
struct plan_state {
    int64_t *exits_left, *entries_left; /* gcov's num_succ, num_pred */
    unsigned char *block_state;         /* BLOCK_* bits */
    unsigned char *arc_known;
    int *invalid, *valid; /* the two work lists, as stacks */
    size_t invalid_count, valid_count;
    LIST(struct solve_step) steps;
};
enum { BLOCK_KNOWN = 1, ON_VALID = 2, ON_INVALID = 4 };

static void push_valid(struct plan_state *s, int block)
{
    s->block_state[block] |= ON_VALID;
    s->valid[s->valid_count++] = block;
}

static void push_invalid(struct plan_state *s, int block)
{
    s->block_state[block] |= ON_INVALID;
    s->invalid[s->invalid_count++] = block;
}

/* A block whose counts are known but for one exit (or entry: `entries`) arc: that arc is
   solved, and the block at its other end may become solvable. */
static void solve_last_arc(struct gcov_notes *notes, struct plan_state *s, int block,
                           bool entries)
{
    const struct note_block *bl = &notes->blocks[block];
    int unknown = -1;
    if (entries) {
        for (int i = bl->pred; i < bl->pred + bl->pred_count; i++)
            if (!s->arc_known[notes->pred_arcs[i]])
                unknown = notes->pred_arcs[i];
    } else {
        for (int a = bl->succ; a < bl->succ + bl->succ_count; a++)
            if (!s->arc_known[a])
                unknown = a;
    }
    if (unknown < 0)
        return; /* cannot happen in a well-formed graph */
    LIST_PUSH(s->steps, ((struct solve_step){entries ? STEP_ENTRY_ARC : STEP_EXIT_ARC, block,
                                             unknown}));
    s->arc_known[unknown] = 1;
    int other = entries ? notes->arcs[unknown].src : notes->arcs[unknown].dst;
    int64_t *own_left = entries ? s->entries_left : s->exits_left;
    int64_t *other_left = entries ? s->exits_left : s->entries_left;
    own_left[block]--;
    other_left[other]--;
    if (s->block_state[other] & BLOCK_KNOWN) {
        if (other_left[other] == 1 && !(s->block_state[other] & ON_VALID))
            push_valid(s, other);
    } else if (!other_left[other] && !(s->block_state[other] & ON_INVALID)) {
        push_invalid(s, other);
    }
}

/* gcov's solve_flow_graph run on the graph alone, its arithmetic recorded as steps. */
static void plan_function(struct gcov_notes *notes, const struct note_function *f,
                          struct plan_state *s)
{
    int first = f->first_block, count = f->block_count;
    for (int block = first; block < first + count; block++) {
        s->exits_left[block] = notes->blocks[block].succ_count;
        s->entries_left[block] = notes->blocks[block].pred_count;
    }
    if (count >= 2) {
        if (!s->entries_left[first])
            s->entries_left[first] = 0xffffffffLL;
        if (!s->exits_left[first + 1])
            s->exits_left[first + 1] = 0xffffffffLL;
    }
    s->invalid_count = s->valid_count = 0;
    for (int block = first; block < first + count; block++) {
        const struct note_block *bl = &notes->blocks[block];
        for (int a = bl->succ; a < bl->succ + bl->succ_count; a++) {
            s->arc_known[a] = !(notes->arc_flags[a] & ARC_ON_TREE);
            if (s->arc_known[a]) {
                s->exits_left[block]--;
                s->entries_left[notes->arcs[a].dst]--;
            }
        }
        push_invalid(s, block);
    }
    while (s->invalid_count || s->valid_count) {
        while (s->invalid_count) {
            int block = s->invalid[--s->invalid_count];
            s->block_state[block] &= (unsigned char)~ON_INVALID;
            int kind;
            if (!s->exits_left[block])
                kind = STEP_BLOCK_BY_EXITS;
            else if (!s->entries_left[block])
                kind = STEP_BLOCK_BY_ENTRIES;
            else
                continue;
            LIST_PUSH(s->steps, ((struct solve_step){kind, block, -1}));
            s->block_state[block] |= BLOCK_KNOWN;
            push_valid(s, block);
        }
        while (s->valid_count) {
            int block = s->valid[--s->valid_count];
            s->block_state[block] &= (unsigned char)~ON_VALID;
            if (s->exits_left[block] == 1)
                solve_last_arc(notes, s, block, false);
            if (s->entries_left[block] == 1)
                solve_last_arc(notes, s, block, true);
        }
    }
}

static void plan_solutions(struct gcov_notes *notes)
{
    struct plan_state s = {0};
    size_t blocks = notes->block_count;
    s.exits_left = allocate(blocks, sizeof *s.exits_left);
    s.entries_left = allocate(blocks, sizeof *s.entries_left);
    s.block_state = allocate(blocks, 1);
    s.invalid = allocate(blocks, sizeof *s.invalid);
    s.valid = allocate(blocks, sizeof *s.valid);
    s.arc_known = allocate(notes->arc_count, 1);
    for (size_t i = 0; i < notes->function_count; i++) {
        const struct note_function *f = &notes->functions[i];
        mark_arcs(notes, f);
        if (!f->artificial && f->counter_count > 0)
            plan_function(notes, f, &s);
    }
    notes->steps = s.steps.items;
    notes->step_count = s.steps.count;
    free(s.exits_left);
    free(s.entries_left);
    free(s.block_state);
    free(s.invalid);
    free(s.valid);
    free(s.arc_known);
}

/* Whether gcov shows a function's lines: it drops artificial ones and those without counters. */
static bool shown(const struct note_function *f)
{
    return !f->artificial && f->counter_count > 0 && f->block_count >= 0;
}

static int compare_starts(const void *left, const void *right, void *context)
{
    const struct note_function *functions = context;
    const struct note_function *a = &functions[*(const int *)left];
    const struct note_function *b = &functions[*(const int *)right];
    if (a->source != b->source)
        return a->source < b->source ? -1 : 1;
    if (a->start_line != b->start_line)
        return a->start_line < b->start_line ? -1 : 1;
    return 0;
}

/* Functions (not artificial) starting on the same line of the same file form a group. */
static void mark_groups(struct gcov_notes *notes)
{
    int *order = allocate(notes->function_count, sizeof *order);
    size_t count = 0;
    for (size_t i = 0; i < notes->function_count; i++)
        if (!notes->functions[i].artificial)
            order[count++] = (int)i;
    qsort_r(order, count, sizeof *order, compare_starts, notes->functions);
    for (size_t i = 0; i + 1 < count; i++)
        if (!compare_starts(&order[i], &order[i + 1], notes->functions))
            notes->functions[order[i]].group = notes->functions[order[i + 1]].group = true;
    free(order);
}

/* A fact about a line record, collected while walking the blocks. */
enum { FACT_BLOCK, FACT_BRANCH, FACT_PLAIN };
struct line_fact {
    int line, kind, value, sequence;
};

static int compare_facts(const void *left, const void *right)
{
    const struct line_fact *a = left, *b = right;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return (a->sequence > b->sequence) - (a->sequence < b->sequence);
}

static int compare_ints(const void *left, const void *right)
{
    int a = *(const int *)left, b = *(const int *)right;
    return (a > b) - (a < b);
}

struct line_tables {
    int **source_lines;  /* per source, by line number: line record or -1 */
    int *source_sizes;   /* gcov's src->lines.size() */
    int line_count;      /* records made */
    LIST(struct line_fact) facts;
};

static int *new_table(size_t size)
{
    int *table = allocate(size, sizeof *table);
    for (size_t i = 0; i < size; i++)
        table[i] = -1;
    return table;
}

/* The line record that gcov adds block counts to for line `line` of `source` in function f. */
static int line_record(struct line_tables *t, struct note_function *f, int source, int line)
{
    int *slot;
    if (f->group && f->source == source && f->start_line <= line && line <= f->end_line)
        slot = &f->group_lines[line - f->start_line];
    else if (line < t->source_sizes[source])
        slot = &t->source_lines[source][line];
    else
        return -1;
    if (*slot < 0)
        *slot = t->line_count++;
    return *slot;
}

static void add_fact(struct line_tables *t, int line, int kind, int value)
{
    LIST_PUSH(t->facts, ((struct line_fact){line, kind, value, (int)t->facts.count}));
}

/* gcov's add_line_counts for one function, as facts about line records. */
static void chain_blocks(struct gcov_notes *notes, struct builder *b, struct line_tables *t,
                         struct note_function *f, const int *location_order,
                         const int *block_locations)
{
    for (int ix = 0; ix < f->block_count; ix++) {
        int block = f->first_block + ix, line = -1;
        for (int l = block_locations[block]; l < block_locations[block + 1]; l++) {
            const struct raw_location *location = &b->locations.items[location_order[l]];
            const int *numbers = &b->lines.items[location->first_line];
            for (int j = 0; j < location->line_count; j++) {
                int record = line_record(t, f, location->source, numbers[j]);
                if (record < 0)
                    continue;
                line = record;
                add_fact(t, record, FACT_PLAIN, block);
            }
            if (ix == 0 || ix + 1 == f->block_count || line < 0)
                continue; /* entry or last block */
            add_fact(t, line, FACT_BLOCK, block);
            const struct note_block *bl = &notes->blocks[block];
            for (int a = bl->succ; a < bl->succ + bl->succ_count; a++)
                add_fact(t, line, FACT_BRANCH, a);
        }
    }
}

static bool on_blocks(const int *blocks, int count, int block)
{
    for (int i = 0; i < count; i++)
        if (blocks[i] == block)
            return true;
    return false;
}

/* The position of `block` among the first `count` of `blocks`, -1 when absent. */
static int block_position(const int *blocks, int count, int block)
{
    for (int i = 0; i < count; i++)
        if (blocks[i] == block)
            return i;
    return -1;
}

/* Whether the arcs between `blocks` (repeats allowed) close a cycle: else a line's cycle count
   is 0 whatever the counts, and the search is skipped. Blocks no other one enters are peeled
   off (Kahn's order) until none is left: no cycle. */
static bool has_cycle(const struct gcov_notes *notes, const int *blocks, int count)
{
    int *distinct = allocate((size_t)count, sizeof *distinct);
    int *entries = allocate((size_t)count, sizeof *entries), *ready = allocate((size_t)count,
                                                                               sizeof *ready);
    int size = 0, ready_count = 0, peeled = 0;
    for (int i = 0; i < count; i++)
        if (block_position(distinct, size, blocks[i]) < 0)
            distinct[size++] = blocks[i];
    for (int i = 0; i < size; i++) {
        const struct note_block *bl = &notes->blocks[distinct[i]];
        for (int a = bl->succ; a < bl->succ + bl->succ_count; a++) {
            int to = block_position(distinct, size, notes->arcs[a].dst);
            if (to >= 0)
                entries[to]++;
        }
    }
    for (int i = 0; i < size; i++)
        if (!entries[i])
            ready[ready_count++] = i;
    while (ready_count) {
        const struct note_block *bl = &notes->blocks[distinct[ready[--ready_count]]];
        peeled++;
        for (int a = bl->succ; a < bl->succ + bl->succ_count; a++) {
            int to = block_position(distinct, size, notes->arcs[a].dst);
            if (to >= 0 && !--entries[to])
                ready[ready_count++] = to;
        }
    }
    free(distinct);
    free(entries);
    free(ready);
    return peeled < size;
}

/* The line records from the facts: their blocks, entering arcs, plain blocks; and each
   record's branch arcs into `branches` (first, count per record). */
static void build_line_records(struct gcov_notes *notes, struct line_tables *t, int *branch_first,
                               int *branch_count, struct int_list *branch_arcs)
{
    qsort(t->facts.items, t->facts.count, sizeof *t->facts.items, compare_facts);
    notes->line_count = (size_t)t->line_count;
    notes->lines = allocate(notes->line_count, sizeof *notes->lines);
    notes->line_blocks = allocate(t->facts.count, sizeof(int));
    notes->line_plain = allocate(t->facts.count, sizeof(int));
    struct int_list entering = {0};
    size_t blocks = 0, plain = 0;
    for (size_t i = 0; i < t->facts.count;) {
        int record = t->facts.items[i].line;
        struct note_line *line = &notes->lines[record];
        line->blocks = (int)blocks;
        line->plain = (int)plain;
        branch_first[record] = (int)branch_arcs->count;
        for (; i < t->facts.count && t->facts.items[i].line == record; i++) {
            const struct line_fact *fact = &t->facts.items[i];
            if (fact->kind == FACT_BLOCK)
                notes->line_blocks[blocks++] = fact->value;
            else if (fact->kind == FACT_PLAIN)
                notes->line_plain[plain++] = fact->value;
            else if (!(notes->arc_flags[fact->value] & (ARC_UNCONDITIONAL | ARC_NO_RETURN)))
                LIST_PUSH(*branch_arcs, fact->value);
        }
        branch_count[record] = (int)branch_arcs->count - branch_first[record];
        line->block_count = (int)blocks - line->blocks;
        line->plain_count = (int)plain - line->plain;
        const int *own = &notes->line_blocks[line->blocks];
        line->entries = (int)entering.count;
        for (int k = 0; k < line->block_count; k++) {
            const struct note_block *bl = &notes->blocks[own[k]];
            for (int p = bl->pred; p < bl->pred + bl->pred_count; p++) {
                int arc = notes->pred_arcs[p];
                if (!on_blocks(own, line->block_count, notes->arcs[arc].src))
                    LIST_PUSH(entering, arc);
            }
        }
        line->entry_count = (int)entering.count - line->entries;
        line->cyclic = has_cycle(notes, own, line->block_count);
    }
    notes->line_arcs = entering.items;
}

static int compare_function_starts(const void *left, const void *right, void *context)
{
    const struct note_function *functions = context;
    int ia = *(const int *)left, ib = *(const int *)right;
    const struct note_function *a = &functions[ia], *b = &functions[ib];
    if (a->start_line != b->start_line)
        return a->start_line < b->start_line ? -1 : 1;
    if (a->start_column != b->start_column)
        return a->start_column < b->start_column ? -1 : 1;
    return (ia > ib) - (ia < ib);
}

struct out_entry {
    int line, record, sequence;
};

struct entry_list {
    struct out_entry *items;
    size_t count, capacity;
};

static int compare_entries(const void *left, const void *right)
{
    const struct out_entry *a = left, *b = right;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return (a->sequence > b->sequence) - (a->sequence < b->sequence);
}

/* One source's part of the output, in gcov's JSON order (group functions' lines at their
   start line, then the file's own line), then sorted by line. */
static void build_source_output(struct gcov_notes *notes, struct line_tables *t, int source,
                                const int *functions, size_t function_count,
                                const int *branch_first, const int *branch_count,
                                const int *branch_arcs, struct entry_list *entries)
{
    struct note_source *s = &notes->sources[source];
    entries->count = 0;
    size_t next = 0; /* functions[] is by start line */
    for (int line = 1; line <= t->source_sizes[source]; line++) {
        while (next < function_count && notes->functions[functions[next]].start_line < line)
            next++;
        for (size_t i = next; i < function_count; i++) {
            const struct note_function *f = &notes->functions[functions[i]];
            if (f->start_line != line)
                break;
            if (!f->group)
                continue;
            for (int k = 0; k <= f->end_line - f->start_line; k++)
                if (f->group_lines[k] >= 0)
                    LIST_PUSH(*entries, ((struct out_entry){line + k, f->group_lines[k],
                                                            (int)entries->count}));
        }
        if (line < t->source_sizes[source] && t->source_lines[source][line] >= 0)
            LIST_PUSH(*entries, ((struct out_entry){line, t->source_lines[source][line],
                                                    (int)entries->count}));
    }
    if (entries->count)
        qsort(entries->items, entries->count, sizeof *entries->items, compare_entries);
    s->first_line = (int)notes->out_line_count;
    s->line_count = (int)entries->count;
    s->first_branch = (int)notes->out_branch_count;
    for (size_t i = 0; i < entries->count; i++) {
        int record = entries->items[i].record;
        struct gcov_line *out = &notes->out_lines[notes->out_line_count];
        notes->out_objects[notes->out_line_count++] = record;
        *out = (struct gcov_line){entries->items[i].line, 0, branch_count[record],
                                  (int)notes->out_branch_count - s->first_branch};
        for (int k = 0; k < branch_count[record]; k++)
            notes->out_branch_arcs[notes->out_branch_count++] = branch_arcs[branch_first[record] + k];
    }
    s->branch_count = (int)notes->out_branch_count - s->first_branch;
    s->first_function = (int)notes->out_function_count;
    for (size_t i = 0; i < function_count; i++) {
        const struct note_function *f = &notes->functions[functions[i]];
        notes->out_functions[notes->out_function_count++] =
            (struct gcov_function){f->name, f->start_line, f->end_line};
    }
    s->function_count = (int)notes->out_function_count - s->first_function;
}

/* Locations grouped by block, in record order. */
static int *group_locations(struct builder *b, size_t blocks, int **order_out)
{
    int *starts = allocate(blocks + 2, sizeof *starts);
    int *order = allocate(b->locations.count, sizeof *order);
    for (size_t i = 0; i < b->locations.count; i++)
        starts[b->locations.items[i].block + 2]++;
    for (size_t i = 2; i < blocks + 2; i++)
        starts[i] += starts[i - 1];
    for (size_t i = 0; i < b->locations.count; i++)
        order[starts[b->locations.items[i].block + 1]++] = (int)i;
    *order_out = order;
    return starts; /* starts[block] .. starts[block + 1] */
}

/* Everything about lines: gcov's process_all_functions, add_line_counts and JSON layout. */
static void build_lines(struct gcov_notes *notes, struct builder *b)
{
    struct line_tables t = {0};
    size_t sources = notes->source_count;
    t.source_sizes = allocate(sources, sizeof *t.source_sizes);
    t.source_lines = allocate(sources, sizeof *t.source_lines);
    int *location_order;
    int *block_locations = group_locations(b, notes->block_count, &location_order);
    for (size_t i = 0; i < b->locations.count; i++) { /* gcov sorts each location's lines */
        struct raw_location *location = &b->locations.items[i];
        qsort(&b->lines.items[location->first_line], (size_t)location->line_count, sizeof(int),
              compare_ints);
    }
    for (size_t i = 0; i < notes->function_count; i++) {
        struct note_function *f = &notes->functions[i];
        if (!shown(f))
            continue;
        for (int l = block_locations[f->first_block];
             l < block_locations[f->first_block + f->block_count]; l++) {
            const struct raw_location *location = &b->locations.items[location_order[l]];
            if (location->line_count) {
                int last = b->lines.items[location->first_line + location->line_count - 1];
                if (last >= t.source_sizes[location->source])
                    t.source_sizes[location->source] = last + 1;
            }
        }
        if (f->group && f->start_line > 0 && f->end_line >= f->start_line &&
            f->end_line - f->start_line < MAX_LINE)
            f->group_lines = new_table((size_t)(f->end_line - f->start_line + 1));
        else
            f->group = false; /* gcov could not size its lines: treat as alone */
    }
    for (size_t s = 0; s < sources; s++)
        t.source_lines[s] = new_table((size_t)t.source_sizes[s] + 1);
    for (size_t i = 0; i < notes->function_count; i++)
        if (shown(&notes->functions[i]))
            chain_blocks(notes, b, &t, &notes->functions[i], location_order, block_locations);
    int *branch_first = allocate((size_t)t.line_count, sizeof(int));
    int *branch_count = allocate((size_t)t.line_count, sizeof(int));
    struct int_list branch_arcs = {0};
    build_line_records(notes, &t, branch_first, branch_count, &branch_arcs);
    /* Output, source by source. */
    size_t shown_count = 0;
    for (size_t i = 0; i < notes->function_count; i++)
        shown_count += shown(&notes->functions[i]);
    notes->out_lines = allocate((size_t)t.line_count, sizeof *notes->out_lines);
    notes->out_objects = allocate((size_t)t.line_count, sizeof *notes->out_objects);
    notes->out_branch_arcs = allocate(branch_arcs.count, sizeof(int));
    notes->out_functions = allocate(shown_count, sizeof *notes->out_functions);
    int *functions = allocate(notes->function_count, sizeof *functions);
    struct entry_list entries = {0};
    for (size_t s = 0; s < sources; s++) {
        size_t count = 0;
        for (size_t i = 0; i < notes->function_count; i++)
            if (shown(&notes->functions[i]) && notes->functions[i].source == (int)s)
                functions[count++] = (int)i;
        qsort_r(functions, count, sizeof *functions, compare_function_starts, notes->functions);
        build_source_output(notes, &t, (int)s, functions, count, branch_first, branch_count,
                            branch_arcs.items, &entries);
    }
    free(entries.items);
    free(functions);
    free(branch_arcs.items);
    free(branch_first);
    free(branch_count);
    free(t.facts.items);
    for (size_t s = 0; s < sources; s++)
        free(t.source_lines[s]);
    free(t.source_lines);
    free(t.source_sizes);
    free(block_locations);
    free(location_order);
    for (size_t i = 0; i < notes->function_count; i++) {
        free(notes->functions[i].group_lines);
        notes->functions[i].group_lines = NULL;
    }
}

static int compare_idents(const void *left, const void *right)
{
    const struct ident_entry *a = left, *b = right;
    if (a->ident != b->ident)
        return a->ident < b->ident ? -1 : 1;
    return (a->function > b->function) - (a->function < b->function);
}

/* Ident -> function, the last function of an ident winning as in gcov's map. */
static void build_idents(struct gcov_notes *notes)
{
    notes->idents = allocate(notes->function_count, sizeof *notes->idents);
    for (size_t i = 0; i < notes->function_count; i++)
        notes->idents[i] = (struct ident_entry){notes->functions[i].ident, (int)i};
    qsort(notes->idents, notes->function_count, sizeof *notes->idents, compare_idents);
    size_t kept = 0;
    for (size_t i = 0; i < notes->function_count; i++) {
        if (kept && notes->idents[kept - 1].ident == notes->idents[i].ident)
            kept--;
        notes->idents[kept++] = notes->idents[i];
    }
    notes->ident_count = kept;
}

static void free_builder(struct builder *b)
{
    for (size_t i = 0; i < b->names.count; i++)
        free(b->names.items[i].name);
    free(b->names.items);
    free(b->arcs.items);
    free(b->block_arcs.items);
    free(b->locations.items);
    free(b->lines.items);
    free(b->text);
}

static unsigned char *read_whole_file(const char *path, size_t *length, char *error,
                                      size_t error_size)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        say(error, error_size, "%s: %s", path, strerror(errno));
        return NULL;
    }
    LIST(unsigned char) bytes = {0};
    size_t got;
    do {
        reserve(&bytes.items, &bytes.capacity, bytes.count + 65536, 1);
        got = fread(bytes.items + bytes.count, 1, bytes.capacity - bytes.count, file);
        bytes.count += got;
    } while (got);
    bool failed = ferror(file);
    fclose(file);
    if (failed) {
        say(error, error_size, "%s: read error", path);
        free(bytes.items);
        return NULL;
    }
    *length = bytes.count;
    return bytes.items;
}

struct gcov_notes *gcov_notes_read(const char *path, char *error, size_t error_size)
{
    size_t length = 0;
    unsigned char *bytes = read_whole_file(path, &length, error, error_size);
    if (!bytes)
        return NULL;
    struct builder b = {0};
    struct gcov_notes *notes = allocate(1, sizeof *notes);
    struct input in = {bytes, length, 0, false, false};
    bool ok = read_notes(&b, notes, &in, path, error, error_size);
    free(bytes);
    notes->functions = b.functions.items;
    notes->function_count = b.functions.count;
    notes->sources = allocate(b.sources.count, sizeof *notes->sources);
    notes->source_count = b.sources.count;
    for (size_t i = 0; i < b.sources.count; i++)
        notes->sources[i].name = b.sources.items[i];
    free(b.sources.items);
    if (!ok) {
        free_builder(&b);
        gcov_notes_free(notes);
        return NULL;
    }
    for (size_t i = 0; i < notes->function_count; i++)
        if (notes->functions[i].block_count < 0)
            notes->functions[i].block_count = 0;
    build_arcs(notes, &b);
    plan_solutions(notes);
    mark_groups(notes);
    build_lines(notes, &b);
    build_idents(notes);
    free_builder(&b);
    return notes;
}

void gcov_notes_free(struct gcov_notes *notes)
{
    if (!notes)
        return;
    for (size_t i = 0; i < notes->function_count; i++) {
        free(notes->functions[i].name);
        free(notes->functions[i].group_lines);
    }
    for (size_t i = 0; i < notes->source_count; i++)
        free(notes->sources[i].name);
    void *arrays[] = {notes->directory, notes->functions, notes->idents, notes->blocks,
                      notes->arcs, notes->arc_flags, notes->pred_arcs, notes->counter_arcs,
                      notes->steps, notes->lines, notes->line_blocks, notes->line_arcs,
                      notes->line_plain, notes->sources, notes->out_lines, notes->out_objects,
                      notes->out_branch_arcs, notes->out_functions};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        free(arrays[i]);
    free(notes);
}

const char *gcov_notes_directory(const struct gcov_notes *notes)
{
    return notes->directory;
}

/* ---- reading a data file ---- */

/* gcov's blocked list of the circuit search: blocks, each with the blocks it holds back. */
struct blocked {
    int block;
    int *list;
    size_t length, capacity;
};

struct gcov_scratch {
    int64_t *counters, *arc_counts, *block_counts, *line_counts, *cycle_counts;
    size_t counter_capacity, arc_capacity, block_capacity, line_capacity, cycle_capacity;
    struct gcov_file *files;
    size_t file_capacity;
    struct gcov_line *lines;
    size_t lines_capacity;
    int64_t *branches;
    size_t branch_capacity;
    /* circuit search */
    int *path;
    size_t path_capacity;
    struct blocked *blocked;
    size_t blocked_count, blocked_capacity;
};

/* reserve(), but never leaving the array unallocated: what is handed out is never NULL. */
static void ensure(void *items, size_t *capacity, size_t needed, size_t size)
{
    reserve(items, capacity, needed ? needed : 1, size);
}

/* The function of a data file's FUNCTION record, -1 when the notes have none. */
static int function_of(const struct gcov_notes *notes, uint32_t ident)
{
    size_t low = 0, high = notes->ident_count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (notes->idents[middle].ident < ident)
            low = middle + 1;
        else
            high = middle;
    }
    return low < notes->ident_count && notes->idents[low].ident == ident
               ? notes->idents[low].function
               : -1;
}

/* The data's counters, summed per function into scratch->counters. */
static int read_counters(const struct gcov_notes *notes, struct input *in,
                         struct gcov_scratch *s, char *error, size_t error_size)
{
    if (!take_magic(in, DATA_MAGIC)) {
        say(error, error_size, "not a gcov data file");
        return -1;
    }
    take_word(in); /* version: gcov only warns */
    if (take_word(in) != notes->stamp || in->short_read) {
        say(error, error_size, "stamp mismatch with notes file");
        return -1;
    }
    take_word(in); /* checksum */
    memset(s->counters, 0, notes->counter_count * sizeof *s->counters);
    const struct note_function *f = NULL;
    uint32_t tag;
    while ((tag = take_word(in))) {
        int32_t length = (int32_t)take_word(in);
        size_t base = in->at;
        if (tag == TAG_FUNCTION && length == FUNCTION_LENGTH) {
            int found = function_of(notes, take_word(in));
            f = found >= 0 ? &notes->functions[found] : NULL;
            if (f && (take_word(in) != f->lineno_checksum || take_word(in) != f->cfg_checksum)) {
                say(error, error_size, "profile mismatch for '%s'", f->name);
                return -1;
            }
        } else if (tag == TAG_ARC_COUNTS && f) {
            uint32_t size = length < 0 ? (uint32_t)-(int64_t)length : (uint32_t)length;
            if (size != (uint32_t)f->counter_count * 8u) {
                say(error, error_size, "profile mismatch for '%s'", f->name);
                return -1;
            }
            if (length > 0) {
                int64_t *counter = &s->counters[f->first_counter];
                for (int i = 0; i < f->counter_count; i++)
                    counter[i] += take_counter(in);
            }
        }
        if (length < 0)
            length = 0;
        if (in->short_read || (size_t)length > in->length - base) {
            say(error, error_size, "corrupted data file");
            return -1;
        }
        in->at = base + (size_t)length;
    }
    return 0;
}

static int64_t sum_exits(const struct gcov_notes *notes, const int64_t *arcs, int block)
{
    const struct note_block *bl = &notes->blocks[block];
    int64_t total = 0;
    for (int a = bl->succ; a < bl->succ + bl->succ_count; a++)
        total += arcs[a];
    return total;
}

static int64_t sum_entries(const struct gcov_notes *notes, const int64_t *arcs, int block)
{
    const struct note_block *bl = &notes->blocks[block];
    int64_t total = 0;
    for (int i = bl->pred; i < bl->pred + bl->pred_count; i++)
        total += arcs[notes->pred_arcs[i]];
    return total;
}

/* Arc and block counts: the counters, then gcov's solution replayed. */
static void solve(const struct gcov_notes *notes, struct gcov_scratch *s)
{
    int64_t *arcs = s->arc_counts, *blocks = s->block_counts;
    memset(arcs, 0, notes->arc_count * sizeof *arcs);
    memset(blocks, 0, notes->block_count * sizeof *blocks);
    for (size_t i = 0; i < notes->counter_count; i++)
        arcs[notes->counter_arcs[i]] = s->counters[i];
    for (size_t i = 0; i < notes->step_count; i++) {
        const struct solve_step *step = &notes->steps[i];
        switch (step->kind) {
        case STEP_BLOCK_BY_EXITS:
            blocks[step->block] = sum_exits(notes, arcs, step->block);
            break;
        case STEP_BLOCK_BY_ENTRIES:
            blocks[step->block] = sum_entries(notes, arcs, step->block);
            break;
        case STEP_EXIT_ARC:
            arcs[step->arc] = blocks[step->block] - sum_exits(notes, arcs, step->block);
            break;
        default:
            arcs[step->arc] = blocks[step->block] - sum_entries(notes, arcs, step->block);
            break;
        }
    }
}

/* ---- cycles on a line: gcov's circuit search, step for step ---- */

struct cycle_search {
    const struct gcov_notes *notes;
    struct gcov_scratch *s;
    const int *blocks; /* the line's */
    int block_count;
    size_t path_length;
    int64_t total;
};

static int find_blocked(const struct cycle_search *c, int block)
{
    for (size_t i = 0; i < c->s->blocked_count; i++)
        if (c->s->blocked[i].block == block)
            return (int)i;
    return -1;
}

static void push_blocked(struct cycle_search *c, int block)
{
    struct gcov_scratch *s = c->s;
    ensure(&s->blocked, &s->blocked_capacity, s->blocked_count + 1, sizeof *s->blocked);
    struct blocked *entry = &s->blocked[s->blocked_count++];
    entry->block = block;
    entry->length = 0; /* its list buffer, if any, is reused */
}

static void unblock(struct cycle_search *c, int block)
{
    int at = find_blocked(c, block);
    if (at < 0)
        return;
    struct gcov_scratch *s = c->s;
    struct blocked entry = s->blocked[at];
    memmove(&s->blocked[at], &s->blocked[at + 1],
            (s->blocked_count - (size_t)at - 1) * sizeof entry);
    s->blocked[--s->blocked_count] = entry; /* parked past the end: its buffer stays */
    for (size_t i = 0; i < entry.length; i++)
        unblock(c, entry.list[i]);
}

static void hold_back(struct cycle_search *c, int at, int block)
{
    struct blocked *entry = &c->s->blocked[at];
    for (size_t i = 0; i < entry->length; i++)
        if (entry->list[i] == block)
            return;
    ensure(&entry->list, &entry->capacity, entry->length + 1, sizeof *entry->list);
    entry->list[entry->length++] = block;
}

/* Whether arc a leads from the line's block to another of its blocks usable from `start`. */
static bool usable(const struct cycle_search *c, int arc, int start)
{
    int w = c->notes->arcs[arc].dst;
    return w >= start && c->s->cycle_counts[arc] > 0 && on_blocks(c->blocks, c->block_count, w);
}

static void close_cycle(struct cycle_search *c)
{
    int64_t *counts = c->s->cycle_counts;
    int64_t least = INT64_MAX;
    for (size_t i = 0; i < c->path_length; i++)
        if (counts[c->s->path[i]] < least)
            least = counts[c->s->path[i]];
    c->total += least;
    for (size_t i = 0; i < c->path_length; i++)
        counts[c->s->path[i]] -= least;
}

static bool path_spent(const struct cycle_search *c)
{
    for (size_t i = 0; i < c->path_length; i++)
        if (c->s->cycle_counts[c->s->path[i]] <= 0)
            return true;
    return false;
}

static bool circuit(struct cycle_search *c, int v, int start)
{
    const struct note_block *bl = &c->notes->blocks[v];
    bool found = false;
    push_blocked(c, v);
    for (int a = bl->succ; a < bl->succ + bl->succ_count; a++) {
        if (!usable(c, a, start))
            continue;
        int w = c->notes->arcs[a].dst;
        c->s->path[c->path_length++] = a;
        if (w == start) {
            close_cycle(c);
            found = true;
        } else if (!path_spent(c) && find_blocked(c, w) < 0) {
            found |= circuit(c, w, start);
        }
        c->path_length--;
    }
    if (found) {
        unblock(c, v);
    } else {
        for (int a = bl->succ; a < bl->succ + bl->succ_count; a++) {
            if (!usable(c, a, start))
                continue;
            int at = find_blocked(c, c->notes->arcs[a].dst);
            if (at >= 0)
                hold_back(c, at, v);
        }
    }
    return found;
}

/* The counts of the cycles lying wholly on a line, as gcov's get_cycles_count finds them. */
static int64_t line_cycles(const struct gcov_notes *notes, struct gcov_scratch *s,
                           const struct note_line *line)
{
    const int *blocks = &notes->line_blocks[line->blocks];
    ensure(&s->path, &s->path_capacity, (size_t)line->block_count + 1, sizeof *s->path);
    for (int i = 0; i < line->block_count; i++) {
        const struct note_block *bl = &notes->blocks[blocks[i]];
        for (int a = bl->succ; a < bl->succ + bl->succ_count; a++)
            s->cycle_counts[a] = s->arc_counts[a];
    }
    struct cycle_search c = {notes, s, blocks, line->block_count, 0, 0};
    for (int i = 0; i < line->block_count; i++) {
        s->blocked_count = 0;
        c.path_length = 0;
        circuit(&c, blocks[i], blocks[i]);
    }
    return c.total;
}

static void count_lines(const struct gcov_notes *notes, struct gcov_scratch *s)
{
    for (size_t i = 0; i < notes->line_count; i++) {
        const struct note_line *line = &notes->lines[i];
        int64_t count = 0;
        if (line->block_count) {
            for (int k = 0; k < line->entry_count; k++)
                count += s->arc_counts[notes->line_arcs[line->entries + k]];
            if (line->cyclic)
                count += line_cycles(notes, s, line);
        } else {
            for (int k = 0; k < line->plain_count; k++)
                count += s->block_counts[notes->line_plain[line->plain + k]];
        }
        s->line_counts[i] = count;
    }
}

static void fill_output(const struct gcov_notes *notes, struct gcov_counts *counts)
{
    struct gcov_scratch *s = counts->scratch;
    for (size_t i = 0; i < notes->out_line_count; i++) {
        s->lines[i] = notes->out_lines[i];
        s->lines[i].count = s->line_counts[notes->out_objects[i]];
    }
    for (size_t i = 0; i < notes->out_branch_count; i++)
        s->branches[i] = s->arc_counts[notes->out_branch_arcs[i]];
    for (size_t i = 0; i < notes->source_count; i++) {
        const struct note_source *source = &notes->sources[i];
        s->files[i] = (struct gcov_file){
            source->name,
            s->lines + source->first_line,
            (size_t)source->line_count,
            s->branches + source->first_branch,
            (size_t)source->branch_count,
            notes->out_functions + source->first_function,
            (size_t)source->function_count,
        };
    }
    counts->files = s->files;
    counts->file_count = notes->source_count;
}

static void size_scratch(const struct gcov_notes *notes, struct gcov_scratch *s)
{
    ensure(&s->counters, &s->counter_capacity, notes->counter_count, sizeof *s->counters);
    ensure(&s->arc_counts, &s->arc_capacity, notes->arc_count, sizeof *s->arc_counts);
    ensure(&s->cycle_counts, &s->cycle_capacity, notes->arc_count, sizeof *s->cycle_counts);
    ensure(&s->block_counts, &s->block_capacity, notes->block_count, sizeof *s->block_counts);
    ensure(&s->line_counts, &s->line_capacity, notes->line_count, sizeof *s->line_counts);
    ensure(&s->files, &s->file_capacity, notes->source_count, sizeof *s->files);
    ensure(&s->lines, &s->lines_capacity, notes->out_line_count, sizeof *s->lines);
    ensure(&s->branches, &s->branch_capacity, notes->out_branch_count, sizeof *s->branches);
}

int gcov_counts_read(const struct gcov_notes *notes, const void *data, size_t length,
                     struct gcov_counts *counts, char *error, size_t error_size)
{
    if (!counts->scratch)
        counts->scratch = allocate(1, sizeof *counts->scratch);
    struct gcov_scratch *s = counts->scratch;
    counts->files = NULL;
    counts->file_count = 0;
    size_scratch(notes, s);
    struct input in = {data, length, 0, false, false};
    if (read_counters(notes, &in, s, error, error_size))
        return -1;
    solve(notes, s);
    count_lines(notes, s);
    fill_output(notes, counts);
    return 0;
}

void gcov_counts_free(struct gcov_counts *counts)
{
    struct gcov_scratch *s = counts->scratch;
    if (s) {
        for (size_t i = 0; i < s->blocked_capacity; i++)
            free(s->blocked[i].list);
        void *arrays[] = {s->counters, s->arc_counts, s->block_counts, s->line_counts,
                          s->cycle_counts, s->files, s->lines, s->branches, s->path, s->blocked};
        for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
            free(arrays[i]);
        free(s);
    }
    *counts = (struct gcov_counts){0};
}
