/*
 * gcovnotes.c — a notes file (.gcno) read into the parsed notes (gcovint.h), then worked out once
 * (gcovplan.c).
 */
#include "gcovint.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the parsed notes ---- */

/* ---- reading the notes into a builder ---- */

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

struct gcov_notes *gcov_notes_read(const char *path, char *error, size_t error_size)
{
    size_t length = 0;
    unsigned char *bytes = gcov_read_file(path, &length, error, error_size);
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
