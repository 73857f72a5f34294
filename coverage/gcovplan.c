/*
 * gcovplan.c — what depends on a notes file alone, worked out once: gcov's order of solving the
 * flow graph, each line's blocks and arcs, the branches, the groups of functions, the sources'
 * output (see gcovdata.c for what gcov does).
 */
#include "gcovint.h"

#include <stdlib.h>

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

/* A fact about a line record, collected while walking the blocks. */
enum { FACT_BLOCK, FACT_BRANCH, FACT_PLAIN };
struct line_fact {
    int line, kind, value, sequence;
};

struct line_tables {
    int **source_lines;  /* per source, by line number: line record or -1 */
    int *source_sizes;   /* gcov's src->lines.size() */
    int line_count;      /* records made */
    LIST(struct line_fact) facts;
};

struct out_entry {
    int line, record, sequence;
};

struct entry_list {
    struct out_entry *items;
    size_t count, capacity;
};

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
void build_arcs(struct gcov_notes *notes, struct builder *b)
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

void plan_solutions(struct gcov_notes *notes)
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
void mark_groups(struct gcov_notes *notes)
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

bool on_blocks(const int *blocks, int count, int block)
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
void build_lines(struct gcov_notes *notes, struct builder *b)
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
void build_idents(struct gcov_notes *notes)
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
