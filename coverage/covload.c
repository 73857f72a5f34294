/*
 * covload.c — a campaign's stored coverage through the analysis (see coverage.h): the layout
 * from cov_lines, cov_branches and cov_functions; each run's counts rebuilt from its own rows
 * and, for the data files it shares byte for byte with the baseline, the baseline's rows; the
 * runs fed to covanalysis.c one at a time, so memory holds two runs' counts, not all of them
 * (and, per program started alone, its reference counts: its run alone, as run -program).
 */
#include "coverage.h"
#include "store/covquery.h"
#include "base/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

struct count_entry {
    size_t index;
    uint64_t count;
};
typedef VECTOR(struct count_entry) count_list;
typedef VECTOR(int) int_list;

/* The baseline's counts, per data file (cov_data id), lines and branches apart. */
struct baseline_parts {
    size_t data_count;
    count_list *lines, *branches;
};

typedef VECTOR(long) long_list;

/* The functions named `name` that a call on a line of `file` can mean: those of the same file
   when there are any (a static function), else every one of that name. */
static void add_callees(const struct coverage_layout *layout, json_t *by_name, int64_t file,
                        const char *name, size_t length, long_list *callees)
{
    char key[128];
    if (length >= sizeof key)
        return;
    memcpy(key, name, length);
    key[length] = '\0';
    json_t *list = json_object_get(by_name, key);
    size_t index;
    json_t *function;
    bool same_file = false;
    json_array_foreach(list, index, function)
        same_file |= layout->functions[json_integer_value(function)].file == file;
    json_array_foreach(list, index, function)
        if (!same_file || layout->functions[json_integer_value(function)].file == file)
            VECTOR_PUSH(*callees, (long)json_integer_value(function));
}

static bool is_name_char(char c)
{
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Each identifier followed by `(` on the line's source text that names an instrumented
   function. Text, not a parse: a name in a comment or string counts too (harmless unless the
   named function then runs more often than in the baseline). */
static void line_callees(const struct coverage_layout *layout, json_t *by_name, int64_t file,
                         const char *text, size_t length, long_list *callees)
{
    for (size_t i = 0; i < length;) {
        if (!is_name_char(text[i]) || (text[i] >= '0' && text[i] <= '9')) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < length && is_name_char(text[i]))
            i++;
        size_t end = i;
        while (i < length && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if (i < length && text[i] == '(')
            add_callees(layout, by_name, file, text + start, end - start, callees);
    }
}

static uint64_t name_bit(const char *name, size_t length)
{
    uint64_t hash = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < length; i++)
        hash = (hash ^ (unsigned char)name[i]) * 1099511628211u;
    return (uint64_t)1 << (hash % 64);
}

/* The names a line reads and the one it assigns (coverage.h). Keywords and called names are
   not names read; a name in a comment or string is (harmless: it only widens the set). */
static void line_names(const char *text, size_t length, uint64_t *names, uint64_t *assigns)
{
    static const char *const keywords[] = {"if", "while", "for", "return", "else", "do",
                                           "switch", "case", "break", "goto", "sizeof", "NULL"};
    uint64_t last = 0;
    *names = *assigns = 0;
    for (size_t i = 0; i < length;) {
        char c = text[i];
        if (c == '=' && !*assigns && i + 1 < length && text[i + 1] != '=' &&
            (i == 0 || !strchr("=!<>+-*/%&|^", text[i - 1])))
            *assigns = last;
        if (c == '"') { /* a string: skip it */
            for (i++; i < length && text[i] != '"'; i++)
                if (text[i] == '\\')
                    i++;
            i++;
            continue;
        }
        if (!is_name_char(c) || (c >= '0' && c <= '9')) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < length && is_name_char(text[i]))
            i++;
        size_t end = i, after = i;
        while (after < length && (text[after] == ' ' || text[after] == '\t'))
            after++;
        bool keyword = false;
        for (size_t k = 0; k < sizeof keywords / sizeof *keywords && !keyword; k++)
            keyword = strlen(keywords[k]) == end - start &&
                      !memcmp(keywords[k], text + start, end - start);
        if (keyword || (after < length && text[after] == '('))
            continue;
        last = name_bit(text + start, end - start);
        *names |= last;
    }
}

/* load_callees's walk over the layout's lines, file by file. */
struct callee_walk {
    const struct coverage_layout *layout;
    json_t *by_name;
    size_t *starts;
    uint64_t *names, *assigns;
    long_list callees;
    size_t l;
};

/* The lines of one source file (cov_files, by id): their callees and names from its text. */
static bool file_callees(void *context, int64_t file, const char *path)
{
    struct callee_walk *w = context;
    const struct coverage_layout *layout = w->layout;
    size_t l = w->l;
    if (l >= layout->line_count)
        return false;
    while (l < layout->line_count && layout->lines[l].file < file)
        w->starts[++l] = w->callees.count;
    w->l = l;
    if (l >= layout->line_count || layout->lines[l].file != file)
        return true;
    char *text = read_whole_file(path, NULL);
    const char *cursor = text;
    int number = 1;
    for (; l < layout->line_count && layout->lines[l].file == file;
         w->starts[++l] = w->callees.count) {
        while (cursor && number < layout->lines[l].line) {
            cursor = strchr(cursor, '\n');
            cursor = cursor ? cursor + 1 : NULL;
            number++;
        }
        if (cursor) {
            line_callees(layout, w->by_name, file, cursor, strcspn(cursor, "\n"), &w->callees);
            line_names(cursor, strcspn(cursor, "\n"), &w->names[l], &w->assigns[l]);
        }
    }
    w->l = l;
    free(text);
    return true;
}

/* The callees of every line, and the names it reads and assigns, from the source files (a file
   that cannot be read has none). */
static void load_callees(sqlite3 *db, struct coverage_layout *layout, json_t *by_name)
{
    struct callee_walk w = {
        .layout = layout,
        .by_name = by_name,
        .starts = xcalloc(layout->line_count + 1, sizeof *w.starts),
        .names = xcalloc(layout->line_count + 1, sizeof *w.names),
        .assigns = xcalloc(layout->line_count + 1, sizeof *w.assigns),
    };
    store_cov_files_each(db, STORE_COV_FILES_BY_ID, file_callees, &w);
    while (w.l < layout->line_count)
        w.starts[++w.l] = w.callees.count;
    layout->callee_start = w.starts;
    layout->callees = w.callees.items;
    layout->line_names = w.names;
    layout->line_assigns = w.assigns;
}

/* load_layout's lists as the rows come. */
struct layout_build {
    struct coverage_layout *layout;
    VECTOR(struct coverage_line) lines;
    size_t branches;
    VECTOR(struct coverage_function) functions;
    json_t *by_name; /* function name -> [index, ...] */
};

static void add_line(void *context, int64_t file, int line)
{
    struct layout_build *build = context;
    VECTOR_PUSH(build->lines, ((struct coverage_line){.file = file, .line = line}));
}

static void add_branch(void *context, int64_t file, int line)
{
    struct layout_build *build = context;
    long at = coverage_find_line(build->layout, file, line);
    if (at >= 0 && build->lines.items[at].branch_count++ == 0)
        build->lines.items[at].first_branch = build->branches;
    build->branches++;
}

static void add_function(void *context, int64_t file, int start, int end, const char *name)
{
    struct layout_build *build = context;
    json_t *list = json_object_get(build->by_name, name);
    if (!list)
        json_object_set_new(build->by_name, name, list = json_array());
    json_array_append_new(list, json_integer((json_int_t)build->functions.count));
    VECTOR_PUSH(build->functions,
                ((struct coverage_function){.file = file, .start = start, .end = end}));
}

static void load_layout(sqlite3 *db, struct coverage_layout *layout)
{
    struct layout_build build = {.layout = layout};
    store_cov_lines_each(db, add_line, &build);
    layout->lines = build.lines.items;
    layout->line_count = build.lines.count;
    /* Branches in the same order: each line's run of them is contiguous. */
    store_cov_branches_each(db, add_branch, &build);
    layout->branch_count = build.branches;
    build.by_name = json_object();
    store_cov_functions_each(db, add_function, &build);
    layout->functions = build.functions.items;
    layout->function_count = build.functions.count;
    load_callees(db, layout, build.by_name);
    json_decref(build.by_name);
}

/* The index of a branch (file, line, branch number) in the layout: its line's first branch
   plus the number, -1 when unknown. */
static long branch_index(const struct coverage_layout *layout, int64_t file, int line, int branch)
{
    long at = coverage_find_line(layout, file, line);
    if (at < 0 || branch < 0 || (size_t)branch >= layout->lines[at].branch_count)
        return -1;
    return (long)(layout->lines[at].first_branch + (size_t)branch);
}

/* for_each_count's rows turned into layout indexes for `each`. */
struct count_walk {
    const struct coverage_layout *layout;
    void (*each)(void *context, bool branch, size_t index, int64_t count);
    void *context;
};

static void count_line(void *context, int64_t file, int line, int64_t count)
{
    struct count_walk *walk = context;
    long index = coverage_find_line(walk->layout, file, line);
    if (index >= 0)
        walk->each(walk->context, false, (size_t)index, count);
}

static void count_branch(void *context, int64_t file, int line, int branch, int64_t count)
{
    struct count_walk *walk = context;
    long index = branch_index(walk->layout, file, line, branch);
    if (index >= 0)
        walk->each(walk->context, true, (size_t)index, count);
}

/* Calls `each` for every count row of data file `data` of `run`: lines, then branches. */
static void for_each_count(struct store_cov_reader *reader, const struct coverage_layout *layout,
                           int64_t run, int64_t data,
                           void (*each)(void *context, bool branch, size_t index, int64_t count),
                           void *context)
{
    struct count_walk walk = {layout, each, context};
    store_cov_line_hits_each(reader, run, data, count_line, &walk);
    store_cov_branch_hits_each(reader, run, data, count_branch, &walk);
}

static int compare_entries(const void *left, const void *right)
{
    size_t a = ((const struct count_entry *)left)->index;
    size_t b = ((const struct count_entry *)right)->index;
    return (a > b) - (a < b);
}

struct part_target {
    struct baseline_parts *parts;
    int64_t data;
};

static void keep_part(void *context, bool branch, size_t index, int64_t count)
{
    struct part_target *target = context;
    count_list *list = branch ? &target->parts->branches[target->data]
                              : &target->parts->lines[target->data];
    VECTOR_PUSH(*list, ((struct count_entry){index, (uint64_t)count}));
}

/* The baseline's count of an item from one data file, 0 when it has none. */
static uint64_t part_count(const count_list *list, size_t index)
{
    struct count_entry key = {index, 0};
    const struct count_entry *found =
        bsearch(&key, list->items, list->count, sizeof key, compare_entries);
    return found ? found->count : 0;
}

struct run_counts {
    uint64_t *lines, *branches;
};

static void add_part(struct run_counts *counts, const struct baseline_parts *parts, int64_t data)
{
    for (size_t i = 0; i < parts->lines[data].count; i++)
        counts->lines[parts->lines[data].items[i].index] += parts->lines[data].items[i].count;
    for (size_t i = 0; i < parts->branches[data].count; i++)
        counts->branches[parts->branches[data].items[i].index] +=
            parts->branches[data].items[i].count;
}

struct patch_target {
    struct run_counts *counts;
    const struct baseline_parts *parts;
    int64_t data;
    bool delta;
};

/* A row of a data file stored whole adds its count; one stored as a difference from the
   baseline's copy (added beforehand) replaces the baseline's count by its own. */
static void apply_row(void *context, bool branch, size_t index, int64_t count)
{
    struct patch_target *target = context;
    uint64_t *slot = branch ? &target->counts->branches[index] : &target->counts->lines[index];
    uint64_t replaced = 0;
    if (target->delta)
        replaced = part_count(branch ? &target->parts->branches[target->data]
                                     : &target->parts->lines[target->data], index);
    *slot += (uint64_t)count - replaced;
}

/* A run's counts, data file by data file: the baseline's copy from memory; a copy stored as a
   difference, the baseline's patched by its rows; another, its rows. A data file whose bytes
   were another run's uses that run's. */
struct run_load {
    struct store_cov_reader *reader;
    const struct coverage_layout *layout;
    const struct baseline_parts *parts;
    int64_t baseline;
    struct run_counts *counts;
};

static void load_copy(void *context, int64_t data, int64_t source, bool delta)
{
    struct run_load *load = context;
    if (data < 0 || (size_t)data >= load->parts->data_count)
        return;
    if (source == load->baseline || delta)
        add_part(load->counts, load->parts, data);
    if (source == load->baseline)
        return;
    struct patch_target target = {load->counts, load->parts, data, delta};
    for_each_count(load->reader, load->layout, source, data, apply_row, &target);
}

static void load_run_counts(struct store_cov_reader *reader, const struct coverage_layout *layout,
                            const struct baseline_parts *parts, int64_t baseline, int64_t run,
                            struct run_counts *counts)
{
    memset(counts->lines, 0, (layout->line_count + 1) * sizeof *counts->lines);
    memset(counts->branches, 0, (layout->branch_count + 1) * sizeof *counts->branches);
    struct run_load load = {reader, layout, parts, baseline, counts};
    store_cov_copies_each(reader, run, load_copy, &load);
}

/* The reference counts of the runs that started a program alone: that program's run alone
   without a fault (stored as run -program), loaded once per program. */
struct owner_reference {
    int64_t owner;
    bool present; /* the program's run alone left coverage data */
    struct run_counts counts;
};
typedef VECTOR(struct owner_reference) reference_list;

static const struct owner_reference *owner_reference(sqlite3 *db, struct store_cov_reader *reader,
                                                     const struct coverage_layout *layout,
                                                     const struct baseline_parts *parts,
                                                     int64_t baseline, int64_t owner,
                                                     reference_list *known)
{
    for (size_t i = 0; i < known->count; i++)
        if (known->items[i].owner == owner)
            return &known->items[i];
    struct owner_reference reference = {.owner = owner};
    reference.present = store_cov_run_has_data(db, -owner);
    if (reference.present) {
        reference.counts.lines = xcalloc(layout->line_count + 1, sizeof(uint64_t));
        reference.counts.branches = xcalloc(layout->branch_count + 1, sizeof(uint64_t));
        load_run_counts(reader, layout, parts, baseline, -owner, &reference.counts);
    }
    VECTOR_PUSH(*known, reference);
    return &known->items[known->count - 1];
}

/* Site ids by the 16 hex digits of their signature (a chain names sites as SIGNATURE:K). */
static json_t *site_map(char *const *site_ids, size_t site_count)
{
    json_t *map = json_object();
    for (size_t i = 0; i < site_count; i++) {
        char head[17] = {0};
        strncpy(head, site_ids[i], 16);
        json_object_set_new(map, head, json_integer((json_int_t)i));
    }
    return map;
}

static int site_index(json_t *map, const char *id)
{
    char head[17] = {0};
    strncpy(head, id, 16);
    json_t *index = json_object_get(map, head);
    return index ? (int)json_integer_value(index) : -1;
}

static void parse_chain(json_t *map, const char *chain, int_list *members)
{
    for (const char *at = chain; at && *at; at = strchr(at, ',') ? strchr(at, ',') + 1 : NULL)
        VECTOR_PUSH(*members, site_index(map, at));
}

static void load_baseline_parts(sqlite3 *db, struct store_cov_reader *reader,
                                const struct coverage_layout *layout, int64_t run,
                                struct baseline_parts *parts)
{
    parts->data_count = (size_t)store_cov_data_max_id(db) + 1;
    parts->lines = xcalloc(parts->data_count, sizeof *parts->lines);
    parts->branches = xcalloc(parts->data_count, sizeof *parts->branches);
    for (size_t data = 0; data < parts->data_count; data++) {
        struct part_target target = {parts, (int64_t)data};
        for_each_count(reader, layout, run, (int64_t)data, keep_part, &target);
        if (parts->lines[data].count > 1)
            qsort(parts->lines[data].items, parts->lines[data].count,
                  sizeof *parts->lines[data].items, compare_entries);
        if (parts->branches[data].count > 1)
            qsort(parts->branches[data].items, parts->branches[data].count,
                  sizeof *parts->branches[data].items, compare_entries);
    }
}

static void baseline_parts_free(struct baseline_parts *parts)
{
    for (size_t i = 0; i < parts->data_count; i++) {
        free(parts->lines[i].items);
        free(parts->branches[i].items);
    }
    free(parts->lines);
    free(parts->branches);
}

/* What coverage_analyse_database feeds each run with, and where its totals go. */
struct run_feed {
    sqlite3 *db;
    struct store_cov_reader *reader;
    const struct coverage_layout *layout;
    const struct baseline_parts *parts;
    int64_t baseline;
    json_t *map;
    reference_list *references;
    struct run_counts *counts;
    struct coverage_analysis *analysis;
    struct coverage_progress *progress;
    size_t total;
    struct coverage_result *out;
};

/* One run through the analysis: its sites, its counts, and its own reference's. */
static void feed_run(void *context, const struct store_cov_run *row)
{
    struct run_feed *feed = context;
    const struct coverage_layout *layout = feed->layout;
    struct run_counts *counts = feed->counts;
    struct coverage_result *out = feed->out;
    struct coverage_run run = {.baseline = row->baseline, .site = -1};
    if (!run.baseline && row->site && !row->not_reached)
        run.site = site_index(feed->map, row->site);
    int_list chain = {0};
    if (run.site >= 0)
        parse_chain(feed->map, row->chain, &chain);
    run.chain = chain.items;
    run.chain_count = chain.count;
    load_run_counts(feed->reader, layout, feed->parts, feed->baseline, row->id, counts);
    run.line_counts = counts->lines;
    run.branch_counts = counts->branches;
    if (!run.baseline && row->has_owner) {
        const struct owner_reference *own =
            owner_reference(feed->db, feed->reader, layout, feed->parts, feed->baseline,
                            row->owner, feed->references);
        if (own->present) {
            run.reference_lines = own->counts.lines;
            run.reference_branches = own->counts.branches;
        }
    }
    coverage_analysis_add_run(feed->analysis, &run);
    for (size_t l = 0; l < layout->line_count; l++)
        out->line_totals[l] += counts->lines[l];
    for (size_t b = 0; b < layout->branch_count; b++)
        out->branch_totals[b] += counts->branches[b];
    if (run.baseline)
        out->baseline_runs++;
    else
        out->fault_runs++;
    free(chain.items);
    coverage_progress(feed->progress, "analysed", out->baseline_runs + out->fault_runs,
                      feed->total);
}

bool coverage_analyse_database(sqlite3 *db, char *const *site_ids,
                               const struct coverage_site *sites, size_t site_count,
                               struct coverage_progress *progress, struct coverage_result *out)
{
    memset(out, 0, sizeof *out);
    int64_t baseline = store_cov_baseline_with_data(db);
    if (!baseline)
        return false;
    load_layout(db, &out->layout);
    const struct coverage_layout *layout = &out->layout;
    size_t lines = layout->line_count + 1, branches = layout->branch_count + 1;
    struct store_cov_reader *reader = store_cov_reader_open(db);
    struct baseline_parts parts = {0};
    load_baseline_parts(db, reader, layout, baseline, &parts);
    struct run_counts reference = {xcalloc(lines, sizeof(uint64_t)),
                                   xcalloc(branches, sizeof(uint64_t))};
    struct run_counts counts = {xcalloc(lines, sizeof(uint64_t)), xcalloc(branches, sizeof(uint64_t))};
    load_run_counts(reader, layout, &parts, baseline, baseline, &reference);
    out->line_totals = xcalloc(lines, sizeof(uint64_t));
    out->branch_totals = xcalloc(branches, sizeof(uint64_t));
    struct coverage_analysis *analysis =
        coverage_analysis_new(layout, sites, site_count, reference.lines, reference.branches);
    json_t *map = site_map(site_ids, site_count);
    reference_list references = {0};
    struct run_feed feed = {db, reader, layout, &parts, baseline, map, &references, &counts,
                            analysis, progress, store_cov_runs_with_data_count(db), out};
    store_cov_runs_with_data_each(db, feed_run, &feed);
    out->lines = xcalloc(lines, sizeof *out->lines);
    out->branches = xcalloc(branches, sizeof *out->branches);
    coverage_analysis_finish(analysis, out->lines, out->branches);
    json_decref(map);
    for (size_t i = 0; i < references.count; i++) {
        free(references.items[i].counts.lines);
        free(references.items[i].counts.branches);
    }
    free(references.items);
    free(reference.lines);
    free(reference.branches);
    free(counts.lines);
    free(counts.branches);
    baseline_parts_free(&parts);
    store_cov_reader_close(reader);
    return true;
}

void coverage_result_free(struct coverage_result *result)
{
    coverage_items_free(result->lines, result->layout.line_count);
    coverage_items_free(result->branches, result->layout.branch_count);
    free(result->lines);
    free(result->branches);
    free(result->line_totals);
    free(result->branch_totals);
    free((void *)result->layout.lines);
    free((void *)result->layout.functions);
    free((void *)result->layout.callee_start);
    free((void *)result->layout.callees);
    free((void *)result->layout.line_names);
    free((void *)result->layout.line_assigns);
    memset(result, 0, sizeof *result);
}
