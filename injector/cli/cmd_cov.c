/*
 * cmd_cov.c — `failrun cov`: error-leg coverage of a campaign whose target was built with
 * --coverage. Reads each run's gcov data (coverage.c), classifies every line and branch
 * (covload.c, covanalysis.c), and prints the summary; writes an lcov tracefile and the HTML report
 * (html.c) on request. Like report.c, everything is built once as one JSON document, so the
 * text, --json, lcov and HTML outputs always agree.
 */
#include "store/campaign.h"
#include "base/jsonget.h"
#include "cli/commands.h"
#include "coverage.h"
#include "store/covquery.h"
#include "store/database.h"
#include "store/sitequery.h"
#include "html.h"
#include "store/ingest.h"
#include "kernel/kernelcov.h"
#include "verdict/policy.h"
#include "report/report.h"
#include "symbols/source.h"
#include "symbols/symbolise.h"
#include "base/util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cov_options {
    const char *database_path, *nofail_database, *lcov_path, *html_path;
    char *source_globs; /* --source: ':'-separated (source.h); NULL: the campaign's */
    char *kernel_source; /* --kernel-source, absolute: a kernel tree for failrun kernel --kcov */
    uint64_t nofail_below;
    bool json, help, quiet;
};

#define OPTIONS (*(struct cov_options *)target)
static void take_db(void *target, const char *value) { OPTIONS.database_path = value; }
static void take_nofail_db(void *target, const char *value) { OPTIONS.nofail_database = value; }
static void take_lcov(void *target, const char *value) { OPTIONS.lcov_path = value; }
static void take_html(void *target, const char *value) { OPTIONS.html_path = value; }
static void take_kernel_source(void *target, const char *value)
{
    struct stat info;
    if (stat(value, &info) != 0 || !S_ISDIR(info.st_mode))
        fatal("--kernel-source %s: not a folder; give the kernel's source tree (e.g. "
              "linux-source-6.1 extracted)", value);
    free(OPTIONS.kernel_source);
    OPTIONS.kernel_source = realpath(value, NULL);
}
static void take_json(void *target, const char *value)
{
    (void)value;
    OPTIONS.json = true;
}
static void take_quiet(void *target, const char *value)
{
    (void)value;
    OPTIONS.quiet = true;
}
static void take_source(void *target, const char *value)
{
    char *joined = source_globs_add(OPTIONS.source_globs, value);
    free(OPTIONS.source_globs);
    OPTIONS.source_globs = joined;
}
static void take_nofail_below(void *target, const char *value)
{
    char *end;
    errno = 0;
    OPTIONS.nofail_below = strtoull(value, &end, 10);
    if (*end || !*value || value[0] == '-' || errno)
        fatal("--nofail-below %s: give a size in bytes, e.g. 32768", value);
}
#undef OPTIONS

static const struct option_row cov_rows[] = {
    {"db", 0, OPTION_REQUIRED, "PATH", OPTION_INVOCATION,
     "campaign database (default .failrun/campaign.db)", take_db},
    {"nofail-below", 0, OPTION_REQUIRED, "N", OPTION_INVOCATION,
     "NOFAIL-eligible: sites whose every request is at most N bytes, and LF_NOFAIL sites "
     "(default 32768)", take_nofail_below},
    {"nofail-db", 0, OPTION_REQUIRED, "PATH", OPTION_INVOCATION,
     "a campaign of the same command run with --policy nofail: check that none of its error legs "
     "is a deletable line (exit 1 if one is)", take_nofail_db},
    {"lcov", 0, OPTION_REQUIRED, "PATH", OPTION_INVOCATION,
     "write an lcov tracefile of every run's counts summed (genhtml renders it; the classes are "
     "in --json and --html)", take_lcov},
    {"html", 0, OPTION_REQUIRED, "PATH", OPTION_INVOCATION, "write one self-contained HTML report",
     take_html},
    {"source", 0, OPTION_REQUIRED, "GLOB", OPTION_INVOCATION,
     "show only source files matching GLOB (path or base name; repeatable, comma-separated; "
     "'!GLOB' leaves out what it matches); default: the campaign's own --source", take_source},
    {"kernel-source", 0, OPTION_REQUIRED, "DIR", OPTION_INVOCATION,
     "failrun kernel --kcov: the kernel's source tree (the running kernel's version), to show "
     "each kernel error-leg line with its text (--json, --html); default: the paths vmlinux "
     "records, when they still exist", take_kernel_source},
    {"json", 0, OPTION_FLAG, NULL, OPTION_INVOCATION, "print the analysis as JSON", take_json},
    {"quiet", 'q', OPTION_FLAG, NULL, OPTION_INVOCATION,
     "no progress lines (one every few seconds on standard error)", take_quiet},
    {NULL, 0, OPTION_FLAG, NULL, OPTION_INVOCATION, NULL, NULL},
};

const struct option_table cov_options_table = {
    .synopsis =
        "usage: failrun cov [options]\n"
        "\n"
        "Error-leg coverage of the stored campaign (its target built with --coverage). An error\n"
        "leg is the program's reaction to a failure: from the branch after the failed call that a\n"
        "fault run took more often than the baseline, the lines of that function the fault run ran\n"
        "more often, and so on up through each caller that reacted too; each is credited to the\n"
        "sites whose failure reached it, and split into deletable (a NOFAIL policy makes it dead\n"
        "code) and kept. Also: lines no run reached, and error-reaction branches (the branch right\n"
        "after a failable call) no run took.\n"
        "\n",
    .rows = cov_rows,
    .epilogue = "Exit status: 0 fine, 1 the NOFAIL check failed, 2 usage error or no coverage "
                "data.\n",
};

static void parse_options(int argc, char **argv, struct cov_options *options)
{
    options->database_path = DEFAULT_DATABASE;
    options->nofail_below = NOFAIL_BELOW_DEFAULT;
    int optind = options_parse(&cov_options_table, argc, argv, options);
    if (optind < 0) {
        options->help = true;
        return;
    }
    if (optind < argc)
        fatal("unexpected argument '%s'; see `failrun help cov`", argv[optind]);
}

/* ---- the sites: NOFAIL eligibility and calling contexts as source lines ---- */

struct site_table {
    size_t count;
    char **ids;
    struct coverage_site *sites;
    struct coverage_call **calls; /* each site's, owned */
    json_t *entries;              /* the JSON of each site */
};

/* cov_files ids by path, for the source files the symboliser names. */
struct file_lookup {
    json_t *by_path; /* as the symboliser gives it -> id, or -1 */
    json_t *known;   /* canonical path -> id */
};

static int64_t lookup_file(struct file_lookup *files, const char *path)
{
    if (!path || !*path)
        return -1;
    json_t *cached = json_object_get(files->by_path, path);
    if (cached)
        return json_integer_value(cached);
    char *canonical = realpath(path, NULL);
    json_t *known = json_object_get(files->known, canonical ? canonical : path);
    int64_t id = known ? json_integer_value(known) : -1;
    json_object_set_new(files->by_path, path, json_integer(id));
    free(canonical);
    return id;
}

typedef VECTOR(struct coverage_call) call_list;

/* Every frame from the first own one outwards, inlined calls included, as (file, line). */
static void site_calls(struct symboliser *symboliser, const struct module_map *map,
                       const struct frame_list *frames, int own, struct file_lookup *files,
                       call_list *calls)
{
    for (int i = own; own >= 0 && i < frames->count; i++) {
        const char *path = module_map_path(map, frames->frames[i].module);
        struct symbol_frame symbol[8];
        int n = path && symboliser && !module_is_plumbing(path)
                    ? symboliser_lookup(symboliser, path, frames->frames[i].offset, true, symbol, 8)
                    : 0;
        if (n == 0)
            VECTOR_PUSH(*calls, ((struct coverage_call){-1, 0}));
        for (int j = 0; j < n; j++)
            VECTOR_PUSH(*calls, ((struct coverage_call){lookup_file(files, symbol[j].file),
                                                       symbol[j].line}));
    }
}

static json_t *site_entry(const struct store_cov_site *row, bool eligible)
{
    const char *name = row->name;
    json_t *site = json_pack("{s:s,s:s,s:s,s:I,s:b,s:b,s:I}",
        "id", row->id,
        "function", row->function,
        "kind", row->kind,
        "size", (json_int_t)row->max_size,
        "nofail", row->nofail, "eligible", eligible,
        "runs", (json_int_t)row->fault_runs);
    if (name)
        json_object_set_new(site, "name", json_string(name));
    return site;
}

static bool know_file(void *context, int64_t id, const char *path)
{
    json_object_set_new(context, path, json_integer(id));
    return true;
}

/* load_sites's lists as the sites come, and what it looks their stacks up with. */
struct site_load {
    uint64_t threshold;
    struct symboliser *symboliser;
    struct module_map map;
    struct file_lookup files;
    VECTOR(char *) ids;
    VECTOR(struct coverage_site) sites;
    VECTOR(struct coverage_call *) owned;
    json_t *entries;
};

static void add_site(void *context, const struct store_cov_site *row)
{
    struct site_load *load = context;
    struct symboliser *symboliser = load->symboliser;
    const struct module_map *map = &load->map;
    bool nofail = row->nofail;
    enum function_kind kind = fault_kind_from_name(row->kind);
    struct coverage_site site = {.eligible = site_nofail_eligible(
                                     nofail, kind, (uint64_t)row->max_size, load->threshold),
                                 .never_fails = nofail, .io = kind == KIND_IO};
    site.ends_like_eof = site.io && function_io_ends_like_input_by_name(row->function);
    json_t *entry = site_entry(row, site.eligible);
    struct frame_list frames = {0};
    frames_from_json(row->frames, &frames);
    int own = first_own_frame(map, &frames);
    const char *path = own >= 0 ? module_map_path(map, frames.frames[own].module) : NULL;
    struct symbol_frame symbol[8];
    int n = path && symboliser ? symboliser_lookup(symboliser, path, frames.frames[own].offset,
                                                   true, symbol, 8) : 0;
    if (n > 0)
        json_object_set_new(entry, "location",
            json_pack("{s:s,s:s,s:i}", "function", symbol[n - 1].function,
                      "file", symbol[0].file, "line", symbol[0].line));
    call_list calls = {0};
    site_calls(symboliser, map, &frames, own, &load->files, &calls);
    site.calls = calls.items;
    site.call_count = calls.count;
    VECTOR_PUSH(load->owned, calls.items);
    VECTOR_PUSH(load->ids, row->id ? xstrdup(row->id) : NULL);
    VECTOR_PUSH(load->sites, site);
    json_array_append_new(load->entries, entry);
}

static void load_sites(sqlite3 *db, uint64_t threshold, struct site_table *table)
{
    struct site_load load = {.threshold = threshold, .symboliser = symboliser_new()};
    module_map_load(db, &load.map);
    load.files = (struct file_lookup){json_object(), json_object()};
    store_cov_files_each(db, STORE_COV_FILES_ANY, know_file, load.files.known);
    table->entries = load.entries = json_array();
    store_cov_sites_each(db, add_site, &load);
    json_decref(load.files.by_path);
    json_decref(load.files.known);
    module_map_free(&load.map);
    symboliser_free(load.symboliser);
    table->count = load.ids.count;
    table->ids = load.ids.items;
    table->sites = load.sites.items;
    table->calls = load.owned.items;
}

static void site_table_free(struct site_table *table)
{
    for (size_t i = 0; i < table->count; i++) {
        free(table->ids[i]);
        free(table->calls[i]);
    }
    free(table->ids);
    free(table->sites);
    free(table->calls);
    json_decref(table->entries);
}

/* ---- the JSON document ---- */

static const char *const line_keys[] = {"tested", "deletable", "kept", "kept_io", "kept_plain",
                                        "unreached", "ordinary", "total"};
static const char *const branch_keys[] = {"tested", "deletable", "kept", "kept_io", "kept_plain",
                                          "untaken", "unreached", "ordinary", "total"};
#define LINE_KEYS (sizeof line_keys / sizeof *line_keys)
#define BRANCH_KEYS (sizeof branch_keys / sizeof *branch_keys)

static json_t *empty_summary(const char *const *keys, size_t count)
{
    json_t *summary = json_object();
    for (size_t i = 0; i < count; i++)
        json_object_set_new(summary, keys[i], json_integer(0));
    return summary;
}

static void count_into(json_t *summary, const struct coverage_item *item)
{
    enum line_class class = item->class;
    const char *keys[] = {line_class_name(class), "total",
                          class == LINE_DELETABLE || class == LINE_KEPT ? "tested" : NULL,
                          item->by_io ? "kept_io" : NULL,
                          item->by_plain && class == LINE_KEPT ? "kept_plain" : NULL};
    for (size_t i = 0; i < 5; i++)
        if (keys[i])
            json_object_set_new(summary, keys[i],
                                json_integer(json_integer_value(json_object_get(summary, keys[i])) + 1));
}

/* A path as the user knows it: relative to the campaign's folder when inside it. */
static const char *display_path(const char *path, const char *cwd)
{
    size_t n = cwd ? strlen(cwd) : 0;
    if (n && !strncmp(path, cwd, n) && path[n] == '/')
        return path + n + 1;
    return path;
}

static json_t *site_list(const struct coverage_item *item)
{
    json_t *list = json_array();
    for (size_t i = 0; i < item->site_count; i++)
        json_array_append_new(list, json_integer(item->sites[i]));
    return list;
}

/* The NOFAIL report's per-file lists, as "12-14" and "30": with by_io false, the deletable
   lines (error legs that exist only for small allocations); with by_io true, the lines kept
   because an I/O failure reaches them. A range runs over consecutive instrumented lines, so one
   leg is one range even with a closing brace or a blank line inside it. */
static void append_range(json_t *ranges, json_int_t first, json_int_t last)
{
    json_array_append_new(ranges, first == last
                                      ? json_sprintf("%lld", (long long)first)
                                      : json_sprintf("%lld-%lld", (long long)first, (long long)last));
}

/* The deletable lines again, each range with the sites whose failure reached any of its lines
   (indices into the report's sites): {"lines": "12-14", "first": 12, "last": 14, "sites": [..]}. */
static void close_deletable(json_t *ranges, json_t *range)
{
    json_int_t first = json_integer_value(json_object_get(range, "first"));
    json_int_t last = json_integer_value(json_object_get(range, "last"));
    json_object_set_new(range, "lines", first == last ? json_sprintf("%lld", (long long)first)
                                        : json_sprintf("%lld-%lld", (long long)first, (long long)last));
    json_array_append_new(ranges, range);
}

static json_t *deletable_ranges(json_t *lines)
{
    json_t *ranges = json_array(), *range = NULL;
    size_t index, at;
    json_t *line, *site;
    json_array_foreach(lines, index, line) {
        if (strcmp(json_string_value(json_object_get(line, "class")), "deletable")) {
            if (range)
                close_deletable(ranges, range);
            range = NULL;
            continue;
        }
        json_t *number = json_object_get(line, "line");
        if (!range)
            range = json_pack("{s:O,s:O,s:[]}", "first", number, "last", number, "sites");
        json_object_set(range, "last", number);
        json_t *sites = json_object_get(range, "sites");
        json_array_foreach(json_object_get(line, "sites"), at, site) {
            size_t i = 0;
            while (i < json_array_size(sites) &&
                   json_integer_value(json_array_get(sites, i)) < json_integer_value(site))
                i++;
            if (i == json_array_size(sites) ||
                json_integer_value(json_array_get(sites, i)) != json_integer_value(site))
                json_array_insert(sites, i, site);
        }
    }
    if (range)
        close_deletable(ranges, range);
    return ranges;
}

static json_t *line_ranges(json_t *lines, bool by_io)
{
    json_t *ranges = json_array();
    json_int_t first = 0, last = 0;
    size_t index;
    json_t *line;
    json_array_foreach(lines, index, line) {
        bool wanted = by_io ? json_is_true(json_object_get(line, "io"))
                            : !strcmp(json_string_value(json_object_get(line, "class")), "deletable");
        if (!wanted) {
            if (first)
                append_range(ranges, first, last);
            first = 0;
            continue;
        }
        last = json_integer_value(json_object_get(line, "line"));
        if (!first)
            first = last;
    }
    if (first)
        append_range(ranges, first, last);
    return ranges;
}

/* One file's lines (layout lines first .. end-1) and branches, with their classes. */
static json_t *file_entry(const struct coverage_result *result, const char *path, const char *cwd,
                          size_t first, size_t end, json_t *line_total, json_t *branch_total)
{
    json_t *file = json_pack("{s:s,s:s}", "path", path, "display", display_path(path, cwd));
    json_t *summary = empty_summary(line_keys, LINE_KEYS);
    json_t *branch_summary = empty_summary(branch_keys, BRANCH_KEYS);
    json_t *line_list = json_array(), *branch_list = json_array();
    for (size_t l = first; l < end; l++) {
        const struct coverage_line *line = &result->layout.lines[l];
        const struct coverage_item *item = &result->lines[l];
        count_into(summary, item);
        count_into(line_total, item);
        json_array_append_new(line_list, json_pack("{s:i,s:s,s:I,s:o,s:b}", "line", line->line,
            "class", line_class_name(item->class), "count", (json_int_t)result->line_totals[l],
            "sites", site_list(item), "io", item->by_io));
        if (item->class == LINE_KEPT && item->by_plain)
            json_object_set_new(json_array_get(line_list, json_array_size(line_list) - 1),
                                "plain", json_true());
        for (size_t b = line->first_branch; b < line->first_branch + line->branch_count; b++) {
            const struct coverage_item *branch = &result->branches[b];
            count_into(branch_summary, branch);
            count_into(branch_total, branch);
            json_array_append_new(branch_list, json_pack("{s:i,s:I,s:s,s:I,s:o}",
                "line", line->line, "branch", (json_int_t)(b - line->first_branch),
                "class", line_class_name(branch->class),
                "count", (json_int_t)result->branch_totals[b], "sites", site_list(branch)));
        }
    }
    json_object_set_new(file, "only_small_allocations", line_ranges(line_list, false));
    json_object_set_new(file, "deletable", deletable_ranges(line_list));
    json_object_set_new(file, "kept_by_io", line_ranges(line_list, true));
    json_object_set_new(file, "lines_summary", summary);
    json_object_set_new(file, "branches_summary", branch_summary);
    json_object_set_new(file, "lines", line_list);
    json_object_set_new(file, "branches", branch_list);
    return file;
}

/* file_entries's walk over the source files, by path. */
struct file_walk {
    const struct coverage_result *result;
    const char *cwd, *source_globs;
    json_t *line_total, *branch_total;
    json_t *ranges; /* file id -> [first, end) of its lines */
    json_t *files;
};

static bool add_file_entry(void *context, int64_t id, const char *path)
{
    struct file_walk *walk = context;
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)id);
    json_t *range = json_object_get(walk->ranges, key);
    if (!range || !source_matches(walk->source_globs, path))
        return true; /* no lines; or --source: not a file of the code under test */
    json_array_append_new(walk->files, file_entry(walk->result, path, walk->cwd,
        (size_t)json_integer_value(json_array_get(range, 0)),
        (size_t)json_integer_value(json_array_get(range, 1)), walk->line_total,
        walk->branch_total));
    return true;
}

/* Every file with its lines and branches, by path; the summaries per file and in total. */
static json_t *file_entries(sqlite3 *db, const struct coverage_result *result, const char *cwd,
                            const char *source_globs, json_t *line_total, json_t *branch_total)
{
    json_t *files = json_array();
    const struct coverage_layout *layout = &result->layout;
    json_t *ranges = json_object(); /* file id -> [first, end) of its lines (sorted by file) */
    for (size_t l = 0, first = 0; l < layout->line_count; l++) {
        if (l + 1 < layout->line_count && layout->lines[l + 1].file == layout->lines[l].file)
            continue;
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)layout->lines[l].file);
        json_object_set_new(ranges, key, json_pack("[I,I]", (json_int_t)first, (json_int_t)l + 1));
        first = l + 1;
    }
    struct file_walk walk = {result, cwd, source_globs, line_total, branch_total, ranges, files};
    store_cov_files_each(db, STORE_COV_FILES_BY_PATH, add_file_entry, &walk);
    json_decref(ranges);
    return files;
}

/* Data files the baseline wrote that a crashing run did not: the modules that did not dump
   their coverage when the run died (stripped, with no exported __gcov_dump). A run that started
   one program of a suite alone (runs.owner) writes only that program's files: for it, only the
   files another, not crashing, run of that program wrote count (none known: none counts).
   The (program, data file) pairs of those runs are listed once, up front: asked afresh for every
   crashing run and file, the question scanned all of a program's runs each time (12 s of 76 on
   json-c's suite). */
static json_t *crash_missing(sqlite3 *db)
{
    return store_cov_crash_missing(db);
}

static json_t *run_counts(sqlite3 *db)
{
    json_t *runs = store_cov_run_totals(db);
    json_object_set_new(runs, "crash_missing", crash_missing(db));
    return runs;
}

/* The whole analysis as JSON, its files those of `source_globs` (NULL: the campaign's own
   --source); NULL when the baseline left no coverage data. */
static json_t *build(sqlite3 *db, uint64_t nofail_below, const char *database_path,
                     const char *source_globs, struct coverage_progress *progress)
{
    struct site_table sites = {0};
    load_sites(db, nofail_below, &sites);
    struct coverage_result result;
    if (!coverage_analyse_database(db, sites.ids, sites.sites, sites.count, progress, &result)) {
        site_table_free(&sites);
        return NULL;
    }
    struct campaign_settings settings = {0};
    campaign_load(db, &settings);
    json_t *line_total = empty_summary(line_keys, LINE_KEYS);
    json_t *branch_total = empty_summary(branch_keys, BRANCH_KEYS);
    json_t *report = json_object();
    json_object_set_new(report, "database", json_string(database_path));
    json_object_set_new(report, "policy", json_string(settings.policy_nofail ? "nofail" : "all"));
    if (settings.cwd)
        json_object_set_new(report, "cwd", json_string(settings.cwd));
    json_object_set_new(report, "nofail_below", json_integer((json_int_t)nofail_below));
    json_object_set_new(report, "sites", json_incref(sites.entries));
    json_object_set_new(report, "outcomes", report_outcome_counts(db));
    json_object_set_new(report, "files",
                        file_entries(db, &result, settings.cwd,
                                     source_globs ? source_globs : settings.source_globs,
                                     line_total, branch_total));
    json_object_set_new(report, "lines", line_total);
    json_object_set_new(report, "branches", branch_total);
    json_object_set_new(report, "runs", run_counts(db));
    coverage_result_free(&result);
    site_table_free(&sites);
    campaign_settings_free(&settings);
    return report;
}

/* The other campaign (--policy nofail): which deletable lines are error legs of its fault runs?
   Its legs are found by the same rule against its own baseline. */
static json_t *nofail_check(json_t *report, const char *other_path,
                            struct coverage_progress *progress)
{
    sqlite3 *other = database_open(other_path, false);
    struct coverage_read_stats stats;
    coverage_read(other, progress, &stats);
    struct campaign_settings settings = {0};
    campaign_load(other, &settings);
    json_int_t threshold = json_integer_value(json_object_get(report, "nofail_below"));
    json_t *theirs = build(other, (uint64_t)threshold, other_path, NULL, progress);
    json_int_t runs = store_cov_fault_runs_done(other);
    database_close(other);
    json_t *legs = json_object(); /* "path:line" of every error-leg line of the other campaign */
    size_t index, at;
    json_t *file, *line;
    json_array_foreach(theirs ? json_object_get(theirs, "files") : NULL, index, file)
        json_array_foreach(json_object_get(file, "lines"), at, line) {
            const char *class = json_string_value(json_object_get(line, "class"));
            if (strcmp(class, "deletable") && strcmp(class, "kept"))
                continue;
            char *key = xasprintf("%s:%lld", json_string_value(json_object_get(file, "path")),
                                  json_integer_value(json_object_get(line, "line")));
            json_object_set_new(legs, key, json_true());
            free(key);
        }
    json_t *reached = json_array();
    json_array_foreach(json_object_get(report, "files"), index, file)
        json_array_foreach(json_object_get(file, "lines"), at, line) {
            if (strcmp(json_string_value(json_object_get(line, "class")), "deletable"))
                continue;
            const char *path = json_string_value(json_object_get(file, "path"));
            json_int_t number = json_integer_value(json_object_get(line, "line"));
            char *key = xasprintf("%s:%lld", path, (long long)number);
            if (json_object_get(legs, key))
                json_array_append_new(reached, json_pack("{s:s,s:I}", "path", path, "line", number));
            free(key);
        }
    json_decref(legs);
    bool same_threshold = (json_int_t)settings.nofail_below == threshold;
    bool checked = runs > 0 && theirs;
    json_t *check = json_pack("{s:s,s:s,s:I,s:I,s:b,s:b,s:I,s:o}", "database", other_path,
        "policy", settings.policy_nofail ? "nofail" : "all", "fault_runs", runs,
        "deletable", json_integer_value(json_object_get(json_object_get(report, "lines"),
                                                        "deletable")),
        "ok", json_array_size(reached) == 0 && settings.policy_nofail && same_threshold && checked,
        "checked", checked, "campaign_nofail_below", (json_int_t)settings.nofail_below,
        "deletable_reached", reached);
    if (!settings.policy_nofail)
        warn("%s was not run with --policy nofail; the check cannot pass", other_path);
    else if (!same_threshold)
        warn("%s exempted requests up to %llu bytes, this analysis %lld; run both with the same "
             "--nofail-below", other_path, (unsigned long long)settings.nofail_below,
             (long long)threshold);
    else if (runs == 0)
        warn("%s made no fault run (every site is NOFAIL-eligible): it checks nothing", other_path);
    else if (!theirs)
        warn("the baseline of %s left no coverage data: it checks nothing", other_path);
    json_decref(theirs);
    campaign_settings_free(&settings);
    return check;
}

static void print_warnings(json_t *runs)
{
    if (int_of(runs, "without_data"))
        warn("%lld run(s) left no coverage data (killed, or exited with _exit: gcov writes at "
             "exit)", int_of(runs, "without_data"));
    json_t *missing = json_object_get(runs, "crash_missing");
    if (json_array_size(missing)) {
        json_t *first = json_array_get(missing, 0);
        warn("crashing runs did not write %zu data file(s) the baseline wrote (e.g. %s, missing "
             "in %lld run(s)): its module did not dump its coverage on the crash; keep its "
             "symbol table (do not strip it) or link it with -Wl,--undefined=__gcov_dump",
             json_array_size(missing), json_string_value(json_object_get(first, "data_file")),
             int_of(first, "runs"));
    }
}

/* ", of them N by an I/O failure, N run without a fault" inside a summary's parentheses, when
   there are any. */
static void print_kept_io(FILE *out, json_t *summary)
{
    if (int_of(summary, "kept_io"))
        fprintf(out, ", of them %lld by an I/O failure", int_of(summary, "kept_io"));
    if (int_of(summary, "kept_plain"))
        fprintf(out, "%s %lld run without a fault too", int_of(summary, "kept_io") ? "," : ", of them",
                int_of(summary, "kept_plain"));
}

/* Under each file of the deletable list, each range with the small allocations that reach it:
   "    42-44: malloc (6 bytes) in list at tests/programs/plainleg.c:41". */
#define NAMED_SITES 4
static void print_deletable_sites(FILE *out, json_t *report, json_t *file, const char *cwd)
{
    json_t *sites = json_object_get(report, "sites");
    size_t index, at;
    json_t *range, *site;
    json_array_foreach(json_object_get(file, "deletable"), index, range) {
        fprintf(out, "    %s:", json_string_value(json_object_get(range, "lines")));
        json_t *list = json_object_get(range, "sites");
        json_array_foreach(list, at, site) {
            if (at == NAMED_SITES) {
                fprintf(out, " and %zu more (--json lists them)", json_array_size(list) - at);
                break;
            }
            json_t *entry = json_array_get(sites, (size_t)json_integer_value(site));
            json_t *location = json_object_get(entry, "location");
            fprintf(out, "%s %s (%lld bytes)", at ? ";" : "",
                    json_string_value(json_object_get(entry, "function")), int_of(entry, "size"));
            if (location)
                fprintf(out, " in %s at %s:%lld",
                        json_string_value(json_object_get(location, "function")),
                        display_path(json_string_value(json_object_get(location, "file")), cwd),
                        int_of(location, "line"));
            else
                fprintf(out, " site %s", json_string_value(json_object_get(entry, "id")));
        }
        fputc('\n', out);
    }
}

/* "title, per file (lines):" and "  file: 12-14, 30" for each file with any; for the deletable
   list, each range then on a line of its own with the small allocations that reach it. */
static void print_ranges(FILE *out, json_t *report, const char *key, const char *title)
{
    json_t *files = json_object_get(report, "files");
    size_t index, at;
    json_t *file, *range;
    bool any = false;
    json_array_foreach(files, index, file) {
        json_t *ranges = json_object_get(file, key);
        if (!json_array_size(ranges))
            continue;
        if (!any)
            fprintf(out, "%s, per file (lines):\n", title);
        any = true;
        fprintf(out, "  %s:", json_string_value(json_object_get(file, "display")));
        json_array_foreach(ranges, at, range)
            fprintf(out, "%s %s", at ? "," : "", json_string_value(range));
        fputc('\n', out);
        if (!strcmp(key, "only_small_allocations"))
            print_deletable_sites(out, report, file,
                                  json_string_value(json_object_get(report, "cwd")));
    }
}

static void print_text(json_t *report, FILE *out)
{
    json_t *runs = json_object_get(report, "runs");
    fprintf(out, "coverage of %lld run(s): %lld baseline, %lld fault; failrun cov took %.2f s"
                 " (%.1f ms per run); %lld of %lld data files read, the others were byte"
                 " for byte a copy read before\n",
            int_of(runs, "baseline") + int_of(runs, "fault"), int_of(runs, "baseline"),
            int_of(runs, "fault"), json_real_value(json_object_get(report, "seconds")),
            json_real_value(json_object_get(report, "ms_per_run")), int_of(runs, "gcov_files"),
            int_of(runs, "data_files"));
    json_t *lines = json_object_get(report, "lines"), *branches = json_object_get(report, "branches");
    fprintf(out, "error-leg lines: %lld tested (deletable %lld, kept %lld", int_of(lines, "tested"),
            int_of(lines, "deletable"), int_of(lines, "kept"));
    print_kept_io(out, lines);
    fprintf(out, "); %lld line(s) no run reached; %lld ordinary, of %lld instrumented\n",
            int_of(lines, "unreached"), int_of(lines, "ordinary"), int_of(lines, "total"));
    fprintf(out, "error-reaction branches: %lld taken (deletable %lld, kept %lld",
            int_of(branches, "tested"), int_of(branches, "deletable"), int_of(branches, "kept"));
    print_kept_io(out, branches);
    fprintf(out, "); %lld never taken by any run; of %lld branches\n", int_of(branches, "untaken"),
            int_of(branches, "total"));
    fprintf(out, "NOFAIL-eligible: LF_NOFAIL sites and sites requesting at most %lld bytes\n",
            int_of(report, "nofail_below"));
    size_t index;
    json_t *file;
    int width = 16;
    json_array_foreach(json_object_get(report, "files"), index, file)
        if ((int)strlen(json_string_value(json_object_get(file, "display"))) > width)
            width = (int)strlen(json_string_value(json_object_get(file, "display")));
    fprintf(out, "per file (lines; untaken: error-reaction branches):\n"
                 "  %-*s  tested deletable  kept unreached untaken\n", width, "");
    json_array_foreach(json_object_get(report, "files"), index, file) {
        json_t *s = json_object_get(file, "lines_summary");
        fprintf(out, "  %-*s %7lld %9lld %5lld %9lld %7lld\n", width,
                json_string_value(json_object_get(file, "display")), int_of(s, "tested"),
                int_of(s, "deletable"), int_of(s, "kept"), int_of(s, "unreached"),
                int_of(json_object_get(file, "branches_summary"), "untaken"));
    }
    print_ranges(out, report, "only_small_allocations",
                 "error legs that exist only for small allocations (deletable under NOFAIL)");
    print_ranges(out, report, "kept_by_io",
                 "error legs kept because an I/O failure reaches them (--faults io)");
    json_t *check = json_object_get(report, "nofail_check");
    if (check) {
        size_t reached = json_array_size(json_object_get(check, "deletable_reached"));
        fprintf(out, "NOFAIL check (%s, policy %s, %lld fault runs): %s\n",
                json_string_value(json_object_get(check, "database")),
                json_string_value(json_object_get(check, "policy")), int_of(check, "fault_runs"),
                json_is_true(json_object_get(check, "ok")) ? "reached none of the deletable lines"
                : reached ? "REACHED deletable lines"
                : !json_is_true(json_object_get(check, "checked"))
                    ? "nothing checked: no fault run (every site NOFAIL-eligible) or no coverage"
                : !strcmp(json_string_value(json_object_get(check, "policy")), "nofail")
                    ? "a different --nofail-below: not comparable"
                    : "not a --policy nofail campaign");
        json_array_foreach(json_object_get(check, "deletable_reached"), index, file)
            fprintf(out, "  reached: %s:%lld\n", json_string_value(json_object_get(file, "path")),
                    int_of(file, "line"));
    }
}

/* lcov's tracefile format (geninfo(1)): every run's counts summed, per file. The error-leg
   classes have no place in it: they are in --json and --html. */
static void write_lcov(json_t *report, const char *path)
{
    FILE *out = fopen(path, "w");
    if (!out)
        fatal("cannot write %s: %s; check the path", path, strerror(errno));
    fprintf(out, "TN:failrun\n");
    size_t index;
    json_t *file;
    json_array_foreach(json_object_get(report, "files"), index, file) {
        fprintf(out, "SF:%s\n", json_string_value(json_object_get(file, "path")));
        size_t at, found = 0, hit = 0;
        json_t *item;
        json_array_foreach(json_object_get(file, "branches"), at, item) {
            json_int_t count = json_integer_value(json_object_get(item, "count"));
            fprintf(out, "BRDA:%lld,0,%lld,%lld\n", int_of(item, "line"), int_of(item, "branch"),
                    (long long)count);
            found++;
            hit += count > 0;
        }
        fprintf(out, "BRF:%zu\nBRH:%zu\n", found, hit);
        found = hit = 0;
        json_array_foreach(json_object_get(file, "lines"), at, item) {
            json_int_t count = json_integer_value(json_object_get(item, "count"));
            fprintf(out, "DA:%lld,%lld\n", int_of(item, "line"), (long long)count);
            found++;
            hit += count > 0;
        }
        fprintf(out, "LF:%zu\nLH:%zu\nend_of_record\n", found, hit);
    }
    kernelcov_write_lcov(json_object_get(report, "kernel_files"), out);
    if (fclose(out) != 0)
        fatal("cannot write %s: %s; is the disk full?", path, strerror(errno));
}

int cmd_cov(int argc, char **argv)
{
    struct cov_options options = {0};
    parse_options(argc, argv, &options);
    if (options.help) {
        options_usage(&cov_options_table, stdout);
        return 0;
    }
    int64_t started = now_ms();
    struct coverage_progress progress = {.quiet = options.quiet, .started_ms = started};
    sqlite3 *db = database_open(options.database_path, false);
    struct coverage_read_stats stats = {0};
    kernelcov_prepare_report(db);
    json_t *kernel_files = kernelcov_files(db);
    kernelcov_attach_sources(kernel_files, options.kernel_source);
    bool kernel_only = false;
    if (!coverage_read(db, &progress, &stats)) {
        if (!json_array_size(kernel_files))
            fatal("no coverage data in the runs of %s: build the target with --coverage (see "
                  "`failrun help cov`) and run the campaign again", options.database_path);
        kernel_only = true; /* failrun kernel --kcov of programs built without --coverage */
    }
    if (stats.missing)
        warn("%d .gcda file(s) had no .gcno (rebuilt since?); their runs count without them",
             stats.missing);
    /* Without the baseline's data every line a fault run reached would look like an error leg. */
    json_t *report = kernel_only ? json_pack("{s:s, s:{}, s:{}, s:[], s:[]}", "database",
                                             options.database_path, "lines", "runs", "files",
                                             "sites")
                                 : build(db, options.nofail_below, options.database_path,
                                         options.source_globs, &progress);
    if (report)
        json_object_set_new(report, "kernel_files", kernel_files);
    else
        json_decref(kernel_files);
    if (!report)
        fatal("the baseline run of %s left no coverage data (its .gcov folder is missing or "
              "unreadable): error legs cannot be told from ordinary lines; run the campaign again",
              options.database_path);
    if (options.nofail_database)
        json_object_set_new(report, "nofail_check", nofail_check(report, options.nofail_database, &progress));
    json_t *runs = json_object_get(report, "runs");
    int64_t run_count = int_of(runs, "baseline") + int_of(runs, "fault");
    double elapsed = (double)(now_ms() - started);
    json_object_set_new(report, "seconds", json_real(elapsed / 1000));
    json_object_set_new(report, "ms_per_run", json_real(run_count ? elapsed / (double)run_count : 0));
    json_object_set_new(report, "runs_read_now", json_integer(stats.runs));
    print_warnings(runs);
    if (options.lcov_path)
        write_lcov(report, options.lcov_path);
    if (options.html_path)
        html_write_report(report, options.html_path);
    if (options.json)
        json_dumpf(report, stdout, JSON_INDENT(2)), fputc('\n', stdout);
    else if (kernel_only)
        kernelcov_print(json_object_get(report, "kernel_files"), stdout);
    else {
        print_text(report, stdout);
        kernelcov_print(json_object_get(report, "kernel_files"), stdout);
    }
    json_t *check = json_object_get(report, "nofail_check");
    int status = check && !json_is_true(json_object_get(check, "ok")) ? EXIT_BUGS : 0;
    json_decref(report);
    database_close(db);
    free(options.source_globs);
    free(options.kernel_source);
    return status;
}
