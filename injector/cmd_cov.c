/*
 * cmd_cov.c — `failrun cov`: error-leg coverage of a campaign whose target was built with
 * --coverage. Reads each run's gcov data (coverage.c), classifies every line and branch
 * (covanalysis.c), and prints the summary; writes an lcov tracefile and the HTML report
 * (html.c) on request. Like report.c, everything is built once as one JSON document, so the
 * text, --json, lcov and HTML outputs always agree.
 */
#include "source.h"
#include "campaign.h"
#include "commands.h"
#include "coverage.h"
#include "database.h"
#include "html.h"
#include "policy.h"
#include "report.h"
#include "symbolise.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cov_usage[] =
    "usage: failrun cov [options]\n"
    "\n"
    "Error-leg coverage of the stored campaign (its target built with --coverage): lines run\n"
    "in a fault run but never in the baseline, each credited to the sites whose failure\n"
    "reached it; which of them a NOFAIL policy makes dead code (deletable) and which it keeps;\n"
    "and lines no run executed (untested).\n"
    "\n"
    "  --db PATH          campaign database (default .failrun/campaign.db)\n"
    "  --nofail-below N   NOFAIL-eligible: sites whose every request is at most N bytes, and\n"
    "                     LF_NOFAIL sites (default 32768)\n"
    "  --nofail-db PATH   a campaign of the same command run with --policy nofail: check that\n"
    "                     it reached none of the deletable lines (exit 1 if it did)\n"
    "  --lcov PATH        write an lcov tracefile (genhtml renders it)\n"
    "  --html PATH        write one self-contained HTML report\n"
    "  --source GLOB      show only source files matching GLOB (path or base name; repeatable,\n"
    "                     comma-separated); default: the campaign's own --source\n"
    "  --json             print the analysis as JSON\n"
    "\n"
    "Exit status: 0 fine, 1 the NOFAIL check failed, 2 usage error or no coverage data.\n";

struct cov_options {
    const char *database_path, *nofail_database, *lcov_path, *html_path;
    char *source_globs; /* --source: ':'-separated (source.h); NULL: the campaign's */
    uint64_t nofail_below;
    bool json, help;
};

static void parse_options(int argc, char **argv, struct cov_options *options)
{
    static const struct option long_options[] = {
        {"db", required_argument, NULL, 'd'},   {"nofail-below", required_argument, NULL, 'B'},
        {"nofail-db", required_argument, NULL, 'n'}, {"lcov", required_argument, NULL, 'l'},
        {"html", required_argument, NULL, 'H'}, {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},       {"source", required_argument, NULL, 'g'},
        {NULL, 0, NULL, 0},
    };
    options->database_path = DEFAULT_DATABASE;
    options->nofail_below = NOFAIL_BELOW_DEFAULT;
    optind = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "+h", long_options, NULL)) != -1) {
        switch (c) {
        case 'd': options->database_path = optarg; break;
        case 'n': options->nofail_database = optarg; break;
        case 'l': options->lcov_path = optarg; break;
        case 'H': options->html_path = optarg; break;
        case 'j': options->json = true; break;
        case 'h': options->help = true; return;
        case 'g': {
            char *joined = source_globs_add(options->source_globs, optarg);
            free(options->source_globs);
            options->source_globs = joined;
            break;
        }
        case 'B':
            errno = 0;
            options->nofail_below = strtoull(optarg, &end, 10);
            if (*end || !*optarg || optarg[0] == '-' || errno)
                fatal("--nofail-below %s: give a size in bytes, e.g. 32768", optarg);
            break;
        default: fatal("unknown option; see `failrun help cov`");
        }
    }
    if (optind < argc)
        fatal("unexpected argument '%s'; see `failrun help cov`", argv[optind]);
}

/* ---- loading the campaign for the analysis ---- */

struct site_info {
    uint64_t signature;
    size_t index;
};

struct campaign_data {
    size_t site_count;
    char **site_ids;
    bool *eligible;
    bool *io; /* an I/O site (--faults io) */
    struct site_info *by_signature; /* sorted */
    size_t run_count;
    int64_t *run_ids; /* ascending */
    struct coverage_run *runs;
};

static int compare_signatures(const void *a, const void *b)
{
    uint64_t left = ((const struct site_info *)a)->signature;
    uint64_t right = ((const struct site_info *)b)->signature;
    return (left > right) - (left < right);
}

static int site_index(const struct campaign_data *data, const char *id)
{
    struct site_info key = {0};
    char head[17] = {0};
    strncpy(head, id, 16);
    if (!parse_hex16(head, &key.signature))
        return -1;
    struct site_info *found = bsearch(&key, data->by_signature, data->site_count,
                                      sizeof key, compare_signatures);
    return found ? (int)found->index : -1;
}

static void load_sites(sqlite3 *db, struct campaign_data *data, uint64_t threshold)
{
    sqlite3_stmt *statement =
        database_prepare(db, "SELECT id, nofail, kind, max_size FROM sites ORDER BY rowid");
    VECTOR(char *) ids = {0};
    VECTOR(bool) eligible = {0}, io = {0};
    while (sqlite3_step(statement) == SQLITE_ROW) {
        VECTOR_PUSH(ids, column_text(statement, 0));
        VECTOR_PUSH(io, !strcmp((const char *)sqlite3_column_text(statement, 2), "io"));
        VECTOR_PUSH(eligible, site_nofail_eligible(
                                  sqlite3_column_int(statement, 1),
                                  (const char *)sqlite3_column_text(statement, 2),
                                  (uint64_t)sqlite3_column_int64(statement, 3), threshold));
    }
    database_finalize(statement);
    data->site_count = ids.count;
    data->site_ids = ids.items;
    data->eligible = eligible.items;
    data->io = io.items;
    data->by_signature = xcalloc(ids.count + 1, sizeof *data->by_signature);
    for (size_t i = 0; i < ids.count; i++) {
        parse_hex16(ids.items[i], &data->by_signature[i].signature);
        data->by_signature[i].index = i;
    }
    qsort(data->by_signature, ids.count, sizeof *data->by_signature, compare_signatures);
}

static void load_runs(sqlite3 *db, struct campaign_data *data)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT id, kind = 'baseline', site, chain, outcome IS 'not-reached' FROM runs"
            " WHERE state = 'done' ORDER BY id");
    VECTOR(int64_t) ids = {0};
    VECTOR(struct coverage_run) runs = {0};
    while (sqlite3_step(statement) == SQLITE_ROW) {
        struct coverage_run run = {.baseline = sqlite3_column_int(statement, 1), .site = -1};
        const char *site = (const char *)sqlite3_column_text(statement, 2);
        if (!run.baseline && site && !sqlite3_column_int(statement, 4))
            run.site = site_index(data, site);
        const char *chain = (const char *)sqlite3_column_text(statement, 3);
        if (chain && run.site >= 0) {
            VECTOR(int) members = {0};
            for (const char *at = chain; at && *at; at = strchr(at, ',') ? strchr(at, ',') + 1 : NULL)
                VECTOR_PUSH(members, site_index(data, at));
            run.chain = members.items;
            run.chain_count = members.count;
        }
        VECTOR_PUSH(ids, sqlite3_column_int64(statement, 0));
        VECTOR_PUSH(runs, run);
    }
    database_finalize(statement);
    data->run_count = runs.count;
    data->run_ids = ids.items;
    data->runs = runs.items;
}

static int run_index(const struct campaign_data *data, int64_t id)
{
    size_t low = 0, high = data->run_count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (data->run_ids[middle] < id)
            low = middle + 1;
        else
            high = middle;
    }
    return low < data->run_count && data->run_ids[low] == id ? (int)low : -1;
}

/* Analyse one kind of item: `items` is the temp table (rowid - 1 = index), `hits_sql` returns
   (run, index) rows. */
static struct coverage_item *analyse(sqlite3 *db, struct campaign_data *data, const char *count_sql,
                                     const char *hits_sql, size_t *count)
{
    sqlite3_stmt *statement = database_prepare(db, count_sql);
    *count = sqlite3_step(statement) == SQLITE_ROW ? (size_t)sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    VECTOR(size_t) *hits = xcalloc(data->run_count + 1, sizeof *hits);
    statement = database_prepare(db, hits_sql);
    while (sqlite3_step(statement) == SQLITE_ROW) {
        int run = run_index(data, sqlite3_column_int64(statement, 0));
        if (run >= 0)
            VECTOR_PUSH(hits[run], (size_t)sqlite3_column_int64(statement, 1));
    }
    database_finalize(statement);
    for (size_t r = 0; r < data->run_count; r++) {
        data->runs[r].hits = hits[r].items;
        data->runs[r].hit_count = hits[r].count;
    }
    struct coverage_input input = {.item_count = *count, .site_count = data->site_count,
                                   .site_eligible = data->eligible, .site_io = data->io,
                                   .run_count = data->run_count, .runs = data->runs};
    struct coverage_item *items = xcalloc(*count + 1, sizeof *items);
    coverage_analyse(&input, items);
    for (size_t r = 0; r < data->run_count; r++) {
        free(hits[r].items);
        data->runs[r].hits = NULL;
        data->runs[r].hit_count = 0;
    }
    free(hits);
    return items;
}

static void campaign_data_free(struct campaign_data *data)
{
    for (size_t i = 0; i < data->site_count; i++)
        free(data->site_ids[i]);
    for (size_t i = 0; i < data->run_count; i++)
        free((void *)data->runs[i].chain);
    free(data->site_ids);
    free(data->eligible);
    free(data->io);
    free(data->by_signature);
    free(data->run_ids);
    free(data->runs);
}

/* ---- the JSON document ---- */

static json_t *empty_summary(void)
{
    return json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "tested", 0, "deletable", 0, "kept", 0,
                     "kept_io", 0, "untested", 0, "baseline", 0, "total", 0);
}

static void count_into(json_t *summary, const struct coverage_item *item)
{
    enum line_class class = item->class;
    const char *keys[] = {line_class_name(class), "total",
                          class == LINE_DELETABLE || class == LINE_KEPT ? "tested" : NULL,
                          item->by_io ? "kept_io" : NULL};
    for (size_t i = 0; i < 4; i++)
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

static json_t *site_entries(sqlite3 *db, const struct campaign_data *data)
{
    struct symboliser *symboliser = symboliser_new();
    struct module_map map;
    module_map_load(db, &map);
    json_t *sites = json_array();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT id, function, max_size, nofail, name, frames,"
            " (SELECT count(*) FROM runs r WHERE r.site = s.id AND r.kind = 'fault'), kind"
            " FROM sites s ORDER BY rowid");
    for (size_t i = 0; sqlite3_step(statement) == SQLITE_ROW && i < data->site_count; i++) {
        const char *name = (const char *)sqlite3_column_text(statement, 4);
        json_t *site = json_pack("{s:s,s:s,s:s,s:I,s:b,s:b,s:I}",
            "id", (const char *)sqlite3_column_text(statement, 0),
            "function", (const char *)sqlite3_column_text(statement, 1),
            "kind", (const char *)sqlite3_column_text(statement, 7),
            "size", (json_int_t)sqlite3_column_int64(statement, 2),
            "nofail", sqlite3_column_int(statement, 3), "eligible", data->eligible[i],
            "runs", (json_int_t)sqlite3_column_int64(statement, 6));
        if (name)
            json_object_set_new(site, "name", json_string(name));
        struct frame_list frames = {0};
        frames_from_json((const char *)sqlite3_column_text(statement, 5), &frames);
        int own = first_own_frame(&map, &frames);
        const char *path = own >= 0 ? module_map_path(&map, frames.frames[own].module) : NULL;
        struct symbol_frame symbol[8];
        int n = path && symboliser ? symboliser_lookup(symboliser, path, frames.frames[own].offset,
                                                       true, symbol, 8) : 0;
        if (n > 0)
            json_object_set_new(site, "instrumentation",
                                json_boolean(!strncmp(symbol[n - 1].function, "gcov_", 5) ||
                                             !strncmp(symbol[n - 1].function, "__gcov_", 7)));
        if (n > 0)
            json_object_set_new(site, "location",
                json_pack("{s:s,s:s,s:i}", "function", symbol[n - 1].function,
                          "file", symbol[0].file, "line", symbol[0].line));
        json_array_append_new(sites, site);
    }
    database_finalize(statement);
    module_map_free(&map);
    symboliser_free(symboliser);
    return sites;
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

/* Every file with its lines (and branches) and their classes; the summaries per file and in
   total. The temp tables give each line and branch its analysis index. */
static json_t *file_entries(sqlite3 *db, const struct coverage_item *lines,
                            const struct coverage_item *branches, const char *cwd,
                            const char *source_globs,
                            json_t *line_total, json_t *branch_total)
{
    json_t *files = json_array();
    sqlite3_stmt *file_rows = database_prepare(db, "SELECT id, path FROM cov_files ORDER BY path");
    sqlite3_stmt *line_rows = database_prepare(
        db, "SELECT i.rowid - 1, i.line, coalesce(t.count, 0) FROM temp.line_items i"
            " LEFT JOIN temp.line_totals t ON t.file = i.file AND t.line = i.line"
            " WHERE i.file = ? ORDER BY i.line");
    sqlite3_stmt *branch_rows = database_prepare(
        db, "SELECT i.rowid - 1, i.line, i.branch, coalesce(t.count, 0) FROM temp.branch_items i"
            " LEFT JOIN temp.branch_totals t ON t.file = i.file AND t.line = i.line"
            "  AND t.branch = i.branch"
            " WHERE i.file = ? ORDER BY i.line, i.branch");
    while (sqlite3_step(file_rows) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(file_rows, 0);
        const char *path = (const char *)sqlite3_column_text(file_rows, 1);
        if (!source_matches(source_globs, path))
            continue; /* --source: not a file of the code under test */
        json_t *file = json_pack("{s:s,s:s}", "path", path, "display", display_path(path, cwd));
        json_t *summary = empty_summary(), *branch_summary = empty_summary();
        json_t *line_list = json_array(), *branch_list = json_array();
        sqlite3_bind_int64(line_rows, 1, id);
        while (sqlite3_step(line_rows) == SQLITE_ROW) {
            const struct coverage_item *item = &lines[sqlite3_column_int64(line_rows, 0)];
            count_into(summary, item);
            count_into(line_total, item);
            json_array_append_new(line_list, json_pack("{s:I,s:s,s:I,s:o,s:b}",
                "line", (json_int_t)sqlite3_column_int64(line_rows, 1),
                "class", line_class_name(item->class),
                "count", (json_int_t)sqlite3_column_int64(line_rows, 2), "sites", site_list(item),
                "io", item->by_io));
        }
        sqlite3_reset(line_rows);
        sqlite3_bind_int64(branch_rows, 1, id);
        while (sqlite3_step(branch_rows) == SQLITE_ROW) {
            const struct coverage_item *item = &branches[sqlite3_column_int64(branch_rows, 0)];
            count_into(branch_summary, item);
            count_into(branch_total, item);
            json_array_append_new(branch_list, json_pack("{s:I,s:I,s:s,s:I}",
                "line", (json_int_t)sqlite3_column_int64(branch_rows, 1),
                "branch", (json_int_t)sqlite3_column_int64(branch_rows, 2),
                "class", line_class_name(item->class),
                "count", (json_int_t)sqlite3_column_int64(branch_rows, 3)));
        }
        sqlite3_reset(branch_rows);
        json_object_set_new(file, "only_small_allocations", line_ranges(line_list, false));
        json_object_set_new(file, "kept_by_io", line_ranges(line_list, true));
        json_object_set_new(file, "lines_summary", summary);
        json_object_set_new(file, "branches_summary", branch_summary);
        json_object_set_new(file, "lines", line_list);
        json_object_set_new(file, "branches", branch_list);
        json_array_append_new(files, file);
    }
    database_finalize(file_rows);
    database_finalize(line_rows);
    database_finalize(branch_rows);
    return files;
}

static json_t *build(sqlite3 *db, const struct cov_options *options)
{
    database_exec(db, "DROP TABLE IF EXISTS temp.line_items; DROP TABLE IF EXISTS temp.branch_items;"
                      "CREATE TEMP TABLE line_items AS SELECT file, line FROM cov_lines"
                      " ORDER BY file, line;"
                      "CREATE INDEX temp.line_items_key ON line_items(file, line);"
                      "CREATE TEMP TABLE branch_items AS SELECT file, line, branch FROM cov_branches"
                      " ORDER BY file, line, branch;"
                      "CREATE INDEX temp.branch_items_key ON branch_items(file, line, branch);"
                      /* Counts summed over runs once: the hits tables are keyed by run first. */
                      "DROP TABLE IF EXISTS temp.line_totals; DROP TABLE IF EXISTS temp.branch_totals;"
                      "CREATE TEMP TABLE line_totals(file, line, count, PRIMARY KEY(file, line));"
                      "INSERT INTO line_totals SELECT file, line, sum(count) FROM cov_line_hits"
                      " GROUP BY file, line;"
                      "CREATE TEMP TABLE branch_totals(file, line, branch, count,"
                      " PRIMARY KEY(file, line, branch));"
                      "INSERT INTO branch_totals SELECT file, line, branch, sum(count)"
                      " FROM cov_branch_hits GROUP BY file, line, branch;");
    struct campaign_data data = {0};
    load_sites(db, &data, options->nofail_below);
    load_runs(db, &data);
    size_t line_count = 0, branch_count = 0;
    struct coverage_item *lines = analyse(
        db, &data, "SELECT count(*) FROM temp.line_items",
        "SELECT h.run, i.rowid - 1 FROM cov_line_hits h JOIN temp.line_items i"
        " ON i.file = h.file AND i.line = h.line", &line_count);
    struct coverage_item *branches = analyse(
        db, &data, "SELECT count(*) FROM temp.branch_items",
        "SELECT h.run, i.rowid - 1 FROM cov_branch_hits h JOIN temp.branch_items i"
        " ON i.file = h.file AND i.line = h.line AND i.branch = h.branch", &branch_count);
    struct campaign_settings settings = {0};
    campaign_load(db, &settings);
    json_t *line_total = empty_summary(), *branch_total = empty_summary();
    json_t *report = json_object();
    json_object_set_new(report, "database", json_string(options->database_path));
    json_object_set_new(report, "policy", json_string(settings.policy_nofail ? "nofail" : "all"));
    json_object_set_new(report, "nofail_below", json_integer((json_int_t)options->nofail_below));
    json_object_set_new(report, "sites", site_entries(db, &data));
    json_object_set_new(report, "outcomes", report_outcome_counts(db));
    json_object_set_new(report, "files", file_entries(db, lines, branches, settings.cwd,
                                                      options->source_globs
                                                          ? options->source_globs
                                                          : settings.source_globs,
                                                      line_total, branch_total));
    json_object_set_new(report, "lines", line_total);
    json_object_set_new(report, "branches", branch_total);
    int baseline = 0;
    for (size_t i = 0; i < data.run_count; i++)
        baseline += data.runs[i].baseline;
    sqlite3_stmt *empty = database_prepare(
        db, "SELECT count(*) FROM cov_runs c JOIN runs r ON r.id = c.run WHERE c.data_files = 0");
    json_int_t without = sqlite3_step(empty) == SQLITE_ROW ? sqlite3_column_int64(empty, 0) : 0;
    database_finalize(empty);
    json_object_set_new(report, "runs", json_pack("{s:i,s:i,s:I}", "baseline", baseline,
                                                  "fault", (int)data.run_count - baseline,
                                                  "without_data", without));
    coverage_items_free(lines, line_count);
    coverage_items_free(branches, branch_count);
    free(lines);
    free(branches);
    campaign_data_free(&data);
    campaign_settings_free(&settings);
    return report;
}

/* The other campaign (--policy nofail): which deletable lines did any of its runs execute? */
static json_t *nofail_check(sqlite3 *db, json_t *report, const char *other_path)
{
    sqlite3 *other = database_open(other_path, false);
    struct coverage_read_stats stats;
    coverage_read(other, &stats);
    struct campaign_settings settings = {0};
    campaign_load(other, &settings);
    database_close(other);
    char *attach = sqlite3_mprintf("ATTACH %Q AS other", other_path);
    database_exec(db, attach);
    sqlite3_free(attach);
    database_exec(db, "CREATE TEMP TABLE deletable(path TEXT, line INTEGER)");
    sqlite3_stmt *insert = database_prepare(db, "INSERT INTO temp.deletable VALUES (?, ?)");
    size_t index;
    json_t *file;
    json_array_foreach(json_object_get(report, "files"), index, file) {
        size_t at;
        json_t *line;
        json_array_foreach(json_object_get(file, "lines"), at, line) {
            if (strcmp(json_string_value(json_object_get(line, "class")), "deletable"))
                continue;
            sqlite3_bind_text(insert, 1, json_string_value(json_object_get(file, "path")), -1,
                              SQLITE_TRANSIENT);
            sqlite3_bind_int64(insert, 2, json_integer_value(json_object_get(line, "line")));
            database_step_done(insert);
        }
    }
    database_finalize(insert);
    json_t *reached = json_array();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT DISTINCT d.path, d.line FROM temp.deletable d"
            " JOIN other.cov_files f ON f.path = d.path"
            " JOIN other.cov_line_hits h ON h.file = f.id AND h.line = d.line"
            " ORDER BY d.path, d.line");
    while (sqlite3_step(statement) == SQLITE_ROW)
        json_array_append_new(reached, json_pack("{s:s,s:I}",
            "path", (const char *)sqlite3_column_text(statement, 0),
            "line", (json_int_t)sqlite3_column_int64(statement, 1)));
    database_finalize(statement);
    statement = database_prepare(db, "SELECT count(*) FROM other.runs WHERE kind = 'fault'"
                                     " AND state = 'done'");
    json_int_t runs = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    database_finalize(statement);
    database_exec(db, "DETACH other");
    json_int_t threshold = json_integer_value(json_object_get(report, "nofail_below"));
    bool same_threshold = (json_int_t)settings.nofail_below == threshold;
    json_t *check = json_pack("{s:s,s:s,s:I,s:I,s:b,s:b,s:I,s:o}", "database", other_path,
        "policy", settings.policy_nofail ? "nofail" : "all", "fault_runs", runs,
        "deletable", json_integer_value(json_object_get(json_object_get(report, "lines"),
                                                        "deletable")),
        "ok", json_array_size(reached) == 0 && settings.policy_nofail && same_threshold &&
                  runs > 0,
        "checked", runs > 0, "campaign_nofail_below", (json_int_t)settings.nofail_below,
        "deletable_reached", reached);
    if (!settings.policy_nofail)
        warn("%s was not run with --policy nofail; the check cannot pass", other_path);
    else if (!same_threshold)
        warn("%s exempted requests up to %llu bytes, this analysis %lld; run both with the same "
             "--nofail-below", other_path, (unsigned long long)settings.nofail_below,
             (long long)threshold);
    else if (runs == 0)
        warn("%s made no fault run (every site is NOFAIL-eligible): it checks nothing", other_path);
    campaign_settings_free(&settings);
    return check;
}

static void print_summary_line(FILE *out, const char *what, json_t *summary)
{
    json_int_t kept_io = json_integer_value(json_object_get(summary, "kept_io"));
    fprintf(out, "%s: %lld tested (deletable %lld, kept %lld", what,
            json_integer_value(json_object_get(summary, "tested")),
            json_integer_value(json_object_get(summary, "deletable")),
            json_integer_value(json_object_get(summary, "kept")));
    if (kept_io)
        fprintf(out, ", of them %lld by an I/O failure", (long long)kept_io);
    fprintf(out, "); untested %lld; %lld of %lld run without a fault\n",
            json_integer_value(json_object_get(summary, "untested")),
            json_integer_value(json_object_get(summary, "baseline")),
            json_integer_value(json_object_get(summary, "total")));
}

/* "title, per file (lines):" and "  file: 12-14, 30" for each file with any. */
static void print_ranges(FILE *out, json_t *files, const char *key, const char *title)
{
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
    }
}

static void print_text(json_t *report, FILE *out)
{
    json_t *runs = json_object_get(report, "runs");
    fprintf(out, "coverage of %lld run(s): %lld baseline, %lld fault; failrun cov took %.2f s"
                 " (%.1f ms per run)\n",
            json_integer_value(json_object_get(runs, "baseline")) +
                json_integer_value(json_object_get(runs, "fault")),
            json_integer_value(json_object_get(runs, "baseline")),
            json_integer_value(json_object_get(runs, "fault")),
            json_real_value(json_object_get(report, "seconds")),
            json_real_value(json_object_get(report, "ms_per_run")));
    if (json_integer_value(json_object_get(runs, "without_data")))
        fprintf(out, "%lld run(s) left no coverage data (a crash, with __gcov_dump not exported?)\n",
                json_integer_value(json_object_get(runs, "without_data")));
    print_summary_line(out, "error-leg lines", json_object_get(report, "lines"));
    print_summary_line(out, "error-leg branches", json_object_get(report, "branches"));
    fprintf(out, "NOFAIL-eligible: LF_NOFAIL sites and sites requesting at most %lld bytes\n",
            json_integer_value(json_object_get(report, "nofail_below")));
    size_t index;
    json_t *file;
    int width = 16;
    json_array_foreach(json_object_get(report, "files"), index, file)
        if ((int)strlen(json_string_value(json_object_get(file, "display"))) > width)
            width = (int)strlen(json_string_value(json_object_get(file, "display")));
    fprintf(out, "per file (lines):\n  %-*s  tested deletable  kept untested\n", width, "");
    json_array_foreach(json_object_get(report, "files"), index, file) {
        json_t *s = json_object_get(file, "lines_summary");
        fprintf(out, "  %-*s %7lld %9lld %5lld %8lld\n", width,
                json_string_value(json_object_get(file, "display")),
                json_integer_value(json_object_get(s, "tested")),
                json_integer_value(json_object_get(s, "deletable")),
                json_integer_value(json_object_get(s, "kept")),
                json_integer_value(json_object_get(s, "untested")));
    }
    print_ranges(out, json_object_get(report, "files"), "only_small_allocations",
                 "error legs that exist only for small allocations (deletable under NOFAIL)");
    print_ranges(out, json_object_get(report, "files"), "kept_by_io",
                 "error legs kept because an I/O failure reaches them (--faults io)");
    json_t *check = json_object_get(report, "nofail_check");
    if (check) {
        size_t reached = json_array_size(json_object_get(check, "deletable_reached"));
        fprintf(out, "NOFAIL check (%s, policy %s, %lld fault runs): %s\n",
                json_string_value(json_object_get(check, "database")),
                json_string_value(json_object_get(check, "policy")),
                json_integer_value(json_object_get(check, "fault_runs")),
                json_is_true(json_object_get(check, "ok")) ? "reached none of the deletable lines"
                : reached ? "REACHED deletable lines"
                : !json_is_true(json_object_get(check, "checked"))
                    ? "nothing checked: no fault run (every site NOFAIL-eligible)"
                : !strcmp(json_string_value(json_object_get(check, "policy")), "nofail")
                    ? "a different --nofail-below: not comparable"
                    : "not a --policy nofail campaign");
        json_array_foreach(json_object_get(check, "deletable_reached"), index, file)
            fprintf(out, "  reached: %s:%lld\n", json_string_value(json_object_get(file, "path")),
                    json_integer_value(json_object_get(file, "line")));
    }
}

/* lcov's tracefile format (geninfo(1)): the campaign's summed counts, per file. */
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
            fprintf(out, "BRDA:%lld,0,%lld,%lld\n",
                    json_integer_value(json_object_get(item, "line")),
                    json_integer_value(json_object_get(item, "branch")), count);
            found++;
            hit += count > 0;
        }
        fprintf(out, "BRF:%zu\nBRH:%zu\n", found, hit);
        found = hit = 0;
        json_array_foreach(json_object_get(file, "lines"), at, item) {
            json_int_t count = json_integer_value(json_object_get(item, "count"));
            fprintf(out, "DA:%lld,%lld\n", json_integer_value(json_object_get(item, "line")), count);
            found++;
            hit += count > 0;
        }
        fprintf(out, "LF:%zu\nLH:%zu\nend_of_record\n", found, hit);
    }
    if (fclose(out) != 0)
        fatal("cannot write %s: %s; is the disk full?", path, strerror(errno));
}

int cmd_cov(int argc, char **argv)
{
    struct cov_options options = {0};
    parse_options(argc, argv, &options);
    if (options.help) {
        fputs(cov_usage, stdout);
        return 0;
    }
    int64_t started = now_ms();
    sqlite3 *db = database_open(options.database_path, false);
    struct coverage_read_stats stats;
    if (!coverage_read(db, &stats))
        fatal("no coverage data in the runs of %s: build the target with --coverage (see "
              "`failrun help cov`) and run the campaign again", options.database_path);
    if (stats.missing)
        warn("%d .gcda file(s) had no .gcno (rebuilt since?); their runs count without them",
             stats.missing);
    /* Without the baseline's data every line a fault run reached would look like an error leg. */
    sqlite3_stmt *baseline = database_prepare(
        db, "SELECT count(*) FROM cov_runs c JOIN runs r ON r.id = c.run"
            " WHERE r.kind = 'baseline' AND c.data_files > 0");
    bool baseline_read = sqlite3_step(baseline) == SQLITE_ROW && sqlite3_column_int64(baseline, 0) > 0;
    database_finalize(baseline);
    if (!baseline_read)
        fatal("the baseline run of %s left no coverage data (its .gcov folder is missing or "
              "unreadable): error legs cannot be told from ordinary lines; run the campaign again",
              options.database_path);
    json_t *report = build(db, &options);
    if (options.nofail_database)
        json_object_set_new(report, "nofail_check", nofail_check(db, report, options.nofail_database));
    int64_t runs = json_integer_value(json_object_get(json_object_get(report, "runs"), "baseline")) +
                   json_integer_value(json_object_get(json_object_get(report, "runs"), "fault"));
    double elapsed = (double)(now_ms() - started);
    json_object_set_new(report, "seconds", json_real(elapsed / 1000));
    json_object_set_new(report, "ms_per_run", json_real(runs ? elapsed / (double)runs : 0));
    json_object_set_new(report, "runs_read_now", json_integer(stats.runs));
    if (options.lcov_path)
        write_lcov(report, options.lcov_path);
    if (options.html_path)
        html_write_report(report, options.html_path);
    if (options.json)
        json_dumpf(report, stdout, JSON_INDENT(2)), fputc('\n', stdout);
    else
        print_text(report, stdout);
    json_t *check = json_object_get(report, "nofail_check");
    int status = check && !json_is_true(json_object_get(check, "ok")) ? EXIT_BUGS : 0;
    json_decref(report);
    database_close(db);
    return status;
}
