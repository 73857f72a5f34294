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
 * mismatch), and reads the missing counters of a cut data file as 0; here each is an error. *
 * The files: gcovread.c reads words and strings, gcovnotes.c a notes file, gcovplan.c works out
 * what depends on the notes alone, and this file reads a data file with them (gcovint.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include "gcovint.h"

#include <stdlib.h>
#include <string.h>

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
