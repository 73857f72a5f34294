/*
 * html.c — the coverage report as one self-contained HTML page (see html.h): a summary, two
 * inline SVG charts (outcomes of the fault runs; the deletable share of the error legs), the
 * sites, and every file's source annotated line by line: error-leg lines (deletable or kept)
 * with the sites that reached them, lines no run reached, and lines holding an error-reaction
 * branch no run took. No script at all, nothing fetched:
 * the page opens the same from a mail attachment as from a CI artifact.
 */
#include "html.h"
#include "base/jsonget.h"
#include "verdict/classify.h"
#include "base/util.h"
#include "store/ingest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void html_escape(FILE *out, const char *text)
{
    for (const char *c = text ? text : ""; *c; c++) {
        switch (*c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*c, out); break;
        }
    }
}

static const char *string(json_t *object, const char *key)
{
    const char *text = json_string_value(json_object_get(object, key));
    return text ? text : "";
}

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}"
    "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left}"
    "table.summary td.n,table.sites td.n{text-align:right}"
    "table.source{font:12px/1.35 monospace;width:100%}"
    "table.source td{padding:0 6px;white-space:pre;vertical-align:top}"
    "table.source td.no,table.source td.count{color:#777;text-align:right}"
    "tr.deletable{background:#fde2c8}tr.kept{background:#d4ecd4}span.deletable{background:#fde2c8}"
    "span.kept{background:#d4ecd4}tr.unreached{background:#eeeeee}"
    "tr.untaken{background:#f6cfcf}"
    "span.key{display:inline-block;width:1em;height:1em;vertical-align:middle;margin-right:4px}"
    ".deletable-key{background:#f0a060}.kept-key{background:#60b060}.unreached-key{background:#cccccc}"
    ".untaken-key{background:#e07070}"
    "table.source td.sites{font-family:system-ui,sans-serif;color:#555;white-space:normal;min-width:24em}"
    "details{margin:0.6em 0}summary{cursor:pointer;font-weight:600}"
    "p.ok{color:#1a6a1a;font-weight:600}p.bad{color:#a01010;font-weight:600}";

static void summary_table(FILE *out, json_t *report)
{
    json_t *lines = json_object_get(report, "lines"), *branches = json_object_get(report, "branches");
    fputs("<table class=\"summary\"><tr><th></th><th>lines</th><th>branches</th></tr>", out);
    /* Branches count error reactions: the branch right after a failable call. */
    const char *rows[][3] = {{"tested", "error legs tested", "error reactions taken"},
                             {"deletable", "deletable under NOFAIL", NULL},
                             {"kept", "kept", NULL},
                             {"untaken", NULL, "error reactions no run took"},
                             {"unreached", "reached by no run", NULL},
                             {"ordinary", "run, on no error leg", NULL},
                             {"total", "instrumented", NULL}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *key = rows[i][0];
        fprintf(out, "<tr><td>%s%s%s</td>", rows[i][1] ? rows[i][1] : "",
                rows[i][1] && rows[i][2] ? " / " : "", rows[i][2] ? rows[i][2] : "");
        if (json_object_get(lines, key))
            fprintf(out, "<td class=\"n\" id=\"lines-%s\">%lld</td>", key, int_of(lines, key));
        else
            fputs("<td></td>", out);
        fprintf(out, "<td class=\"n\" id=\"branches-%s\">%lld</td></tr>", key,
                int_of(branches, key));
    }
    fputs("</table>", out);
}

/* Horizontal bars, one per outcome some fault run had; bugs in red. */
static void outcome_chart(FILE *out, json_t *outcomes)
{
    long long largest = 1;
    const char *name;
    json_t *value;
    size_t count = 0;
    json_object_foreach(outcomes, name, value) {
        if (json_integer_value(value) > 0)
            count++;
        if (json_integer_value(value) > largest)
            largest = json_integer_value(value);
    }
    fprintf(out, "<svg id=\"outcome-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"460\""
                 " height=\"%zu\" role=\"img\"><title>Outcomes of the fault runs</title>",
            count * 24 + 8);
    size_t row = 0;
    json_object_foreach(outcomes, name, value) {
        long long n = json_integer_value(value);
        if (n == 0)
            continue;
        int outcome = outcome_from_name(name);
        double width = 300.0 * (double)n / (double)largest;
        fprintf(out, "<text x=\"0\" y=\"%zu\" font-size=\"12\">", row * 24 + 20);
        html_escape(out, name);
        fprintf(out, "</text><rect x=\"100\" y=\"%zu\" width=\"%.1f\" height=\"16\" fill=\"%s\"/>"
                     "<text x=\"%.1f\" y=\"%zu\" font-size=\"12\">%lld</text>",
                row * 24 + 8, width,
                outcome >= 0 && outcome_is_bug((enum outcome)outcome) ? "#d05050" : "#5080c0",
                104 + width, row * 24 + 20, n);
        row++;
    }
    fputs("</svg>", out);
}

/* One stacked bar: deletable and kept error-leg lines, with the deletable share written out,
   and beside it the error reactions no run took. */
static void share_chart(FILE *out, json_t *lines, json_t *branches)
{
    long long deletable = int_of(lines, "deletable"), kept = int_of(lines, "kept"),
              untaken = int_of(branches, "untaken"), unreached = int_of(lines, "unreached");
    long long tested = deletable + kept;
    double scale = tested ? 440.0 / (double)tested : 0;
    fprintf(out, "<svg id=\"share-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"460\""
                 " height=\"64\" role=\"img\"><title>Deletable share of the error legs</title>"
                 "<rect x=\"0\" y=\"4\" width=\"%.1f\" height=\"24\" fill=\"#f0a060\"/>"
                 "<rect x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"24\" fill=\"#60b060\"/>"
                 "<text x=\"0\" y=\"48\" font-size=\"12\">deletable %lld of %lld tested"
                 " error-leg lines (%.0f%%), kept %lld; %lld error reaction(s) no run took;"
                 " %lld line(s) no run reached</text></svg>",
            scale * (double)deletable, scale * (double)deletable, scale * (double)kept, deletable,
            tested, tested ? 100.0 * (double)deletable / (double)tested : 0.0, kept, untaken,
            unreached);
}

/* What the site asks for: `malloc(24)`, an I/O call (`fwrite`), or a failpoint by name. */
static void request_label(FILE *out, json_t *site)
{
    if (json_object_get(site, "name")) {
        fputs("failpoint &quot;", out);
        html_escape(out, string(site, "name"));
        fputs("&quot;", out);
    } else if (fault_kind_from_name(string(site, "kind")) == KIND_IO) {
        html_escape(out, string(site, "function"));
        fputs(" (I/O)", out);
    } else {
        html_escape(out, string(site, "function"));
        fprintf(out, "(%lld)", int_of(site, "size"));
    }
}

static void site_label(FILE *out, json_t *site, long long index)
{
    json_t *location = json_object_get(site, "location");
    fprintf(out, "#%lld ", index);
    request_label(out, site);
    if (location) {
        fputs(" in ", out);
        html_escape(out, string(location, "function"));
        const char *file = strrchr(string(location, "file"), '/');
        fputs(" at ", out);
        html_escape(out, file ? file + 1 : string(location, "file"));
        fprintf(out, ":%lld", int_of(location, "line"));
    }
}

static void site_table(FILE *out, json_t *sites)
{
    fputs("<table class=\"sites\" id=\"sites\"><tr><th>#</th><th>site</th><th>request</th>"
          "<th>location</th><th>fault runs</th><th>NOFAIL</th></tr>", out);
    size_t index;
    json_t *site;
    json_array_foreach(sites, index, site) {
        json_t *location = json_object_get(site, "location");
        fprintf(out, "<tr><td class=\"n\">%zu</td><td><code>", index);
        html_escape(out, string(site, "id"));
        fputs("</code></td><td>", out);
        request_label(out, site);
        fputs("</td><td>", out);
        if (location) {
            html_escape(out, string(location, "function"));
            fputs(" at ", out);
            html_escape(out, string(location, "file"));
            fprintf(out, ":%lld", int_of(location, "line"));
        }
        fprintf(out, "</td><td class=\"n\">%lld</td><td>%s</td></tr>", int_of(site, "runs"),
                json_is_true(json_object_get(site, "nofail"))     ? "LF_NOFAIL"
                : json_is_true(json_object_get(site, "eligible")) ? "eligible (size)"
                                                                  : "no");
    }
    fputs("</table>", out);
}

/* The source with each instrumented line's class, count and the sites that reached it. */
static void annotated_source(FILE *out, json_t *file, json_t *sites, size_t number)
{
    json_t *summary = json_object_get(file, "lines_summary");
    fprintf(out, "<details id=\"file-%zu\"%s><summary>", number,
            int_of(summary, "tested") ? " open" : "");
    html_escape(out, string(file, "display"));
    fprintf(out, " — tested %lld, deletable %lld, kept %lld, reached by no run %lld; error"
                 " reactions no run took %lld</summary>",
            int_of(summary, "tested"), int_of(summary, "deletable"), int_of(summary, "kept"),
            int_of(summary, "unreached"),
            int_of(json_object_get(file, "branches_summary"), "untaken"));
    char *text = read_whole_file(string(file, "path"), NULL);
    if (!text) {
        fputs("<p>source not found: ", out);
        html_escape(out, string(file, "path"));
        fputs("</p></details>", out);
        return;
    }
    json_t *lines = json_object_get(file, "lines"), *branches = json_object_get(file, "branches");
    size_t next = 0, count = json_array_size(lines);
    size_t next_branch = 0, branch_count = json_array_size(branches);
    fputs("<table class=\"source\">", out);
    char *cursor = text;
    for (long long line = 1; *cursor; line++) {
        char *end = strchr(cursor, '\n');
        if (end)
            *end = '\0';
        json_t *entry = NULL;
        while (next < count && int_of(json_array_get(lines, next), "line") < line)
            next++;
        if (next < count && int_of(json_array_get(lines, next), "line") == line)
            entry = json_array_get(lines, next);
        /* Error reactions on this line that no run took. */
        int untaken = 0;
        while (next_branch < branch_count &&
               int_of(json_array_get(branches, next_branch), "line") <= line) {
            json_t *branch = json_array_get(branches, next_branch++);
            untaken += int_of(branch, "line") == line && !strcmp(string(branch, "class"), "untaken");
        }
        const char *class = entry ? string(entry, "class") : "";
        if (untaken && (!strcmp(class, "ordinary") || !strcmp(class, "unreached")))
            class = "untaken";
        fprintf(out, "<tr class=\"%s\"><td class=\"no\">%lld</td><td class=\"count\">", class, line);
        if (entry)
            fprintf(out, "%lld", int_of(entry, "count"));
        fputs("</td><td>", out);
        html_escape(out, cursor);
        fputs("</td><td class=\"sites\">", out);
        if (untaken)
            fprintf(out, "error reaction no run took (%d branch%s)%s", untaken,
                    untaken > 1 ? "es" : "",
                    json_array_size(json_object_get(entry, "sites")) ? "; " : "");
        size_t at;
        json_t *site;
        json_array_foreach(json_object_get(entry, "sites"), at, site) {
            if (at)
                fputs("; ", out);
            site_label(out, json_array_get(sites, (size_t)json_integer_value(site)),
                       json_integer_value(site));
        }
        fputs("</td></tr>\n", out);
        if (!end)
            break;
        cursor = end + 1;
    }
    fputs("</table></details>", out);
    free(text);
}

static void nofail_section(FILE *out, json_t *check)
{
    if (!check)
        return;
    fputs("<h2>NOFAIL check</h2>", out);
    bool ok = json_is_true(json_object_get(check, "ok"));
    fprintf(out, "<p id=\"nofail-check\" class=\"%s\">", ok ? "ok" : "bad");
    fprintf(out, "The campaign in ");
    html_escape(out, string(check, "database"));
    fprintf(out, " (policy %s, %lld fault runs) ", strcmp(string(check, "policy"), "nofail") ? "all" : "nofail",
            int_of(check, "fault_runs"));
    if (ok)
        fputs("reached none of the deletable lines.", out);
    else
        fprintf(out, "reached %zu deletable line(s).",
                json_array_size(json_object_get(check, "deletable_reached")));
    fputs("</p>", out);
}

/* One kernel file's error-leg lines in its source (failrun cov --kernel-source, or the paths
   vmlinux records): each leg line with two lines of context either side, a gap row between
   stretches, as a reader of a patch sees it. */
static void kernel_source(FILE *out, json_t *file)
{
    char *text = read_whole_file(string(file, "source"), NULL);
    if (!text)
        return;
    VECTOR(char *) rows = {0};
    for (char *cursor = text; cursor && *cursor;) {
        char *end = strchr(cursor, '\n');
        if (end)
            *end = '\0';
        VECTOR_PUSH(rows, cursor);
        cursor = end ? end + 1 : NULL;
    }
    json_t *lines = json_object_get(file, "lines");
    fputs("<details><summary>", out);
    html_escape(out, string(file, "path"));
    fprintf(out, " — %lld error-leg line(s), %lld of them only too small to fail</summary>"
                 "<table class=\"source\">", int_of(file, "legs"), int_of(file, "only_too_small"));
    long long shown = 0; /* the last line printed */
    size_t count = json_array_size(lines);
    for (size_t at = 0; at < count; at++) {
        long long leg = int_of(json_array_get(lines, at), "line");
        long long from = leg - 2 > shown ? leg - 2 : shown + 1;
        if (from > shown + 1 && shown)
            fputs("<tr><td class=\"no\">⋯</td><td></td><td></td><td></td></tr>", out);
        for (long long number = from; number <= leg + 2 && number <= (long long)rows.count;
             number++) {
            json_t *entry = NULL; /* the leg on this line, if any */
            for (size_t k = at; k < count && int_of(json_array_get(lines, k), "line") <= number;
                 k++)
                if (int_of(json_array_get(lines, k), "line") == number)
                    entry = json_array_get(lines, k);
            bool small = entry && json_is_true(json_object_get(entry, "only_too_small"));
            fprintf(out, "<tr class=\"%s\"><td class=\"no\">%lld</td><td class=\"count\">",
                    entry ? (small ? "deletable" : "kept") : "", number);
            if (entry)
                fprintf(out, "%lld", int_of(entry, "runs"));
            fputs("</td><td>", out);
            html_escape(out, rows.items[number - 1]);
            fputs("</td><td class=\"sites\">", out);
            if (entry && json_is_string(json_object_get(entry, "function")))
                html_escape(out, string(entry, "function"));
            fputs("</td></tr>", out);
            shown = number;
        }
    }
    fputs("</table></details>", out);
    free(rows.items);
    free(text);
}

/* failrun kernel --kcov: the kernel's error-leg lines by file, each line with its function and
   the number of fault runs that reached it; marked deletable when every one of them failed an
   allocation too small to fail. Then, for the files whose source was found, the lines in it. */
static void kernel_section(FILE *out, json_t *files)
{
    if (!json_array_size(files))
        return;
    fputs("<h2 id=\"kernel\">Kernel error legs</h2><p>Kernel lines an armed system call ran only"
          " with its injected failure (KCOV, against the same call unfailed), symbolised against"
          " vmlinux. <span class=\"key deletable-key\"></span>reached only through failures too"
          " small to fail (direct reclaim, no NORETRY or RETRY_MAYFAIL, at most 32 KiB).</p>"
          "<table class=\"kernel\"><tr><th>file</th><th>error-leg lines</th><th>only too small"
          " to fail</th><th>lines (function, runs)</th></tr>", out);
    size_t index, with_source = 0;
    json_t *file;
    json_array_foreach(files, index, file) {
        with_source += json_is_string(json_object_get(file, "source"));
        fputs("<tr><td>", out);
        html_escape(out, string(file, "path"));
        fprintf(out, "</td><td>%lld</td><td>%lld</td><td>", int_of(file, "legs"),
                int_of(file, "only_too_small"));
        size_t at;
        json_t *line;
        json_array_foreach(json_object_get(file, "lines"), at, line) {
            bool small = json_is_true(json_object_get(line, "only_too_small"));
            fprintf(out, "%s<span class=\"%s\">%lld", at ? ", " : "", small ? "deletable" : "kept",
                    int_of(line, "line"));
            if (json_is_string(json_object_get(line, "function"))) {
                fputs(" (", out);
                html_escape(out, string(line, "function"));
                fprintf(out, ", %lld)", int_of(line, "runs"));
            }
            fputs("</span>", out);
        }
        fputs("</td></tr>", out);
    }
    fputs("</table>", out);
    if (!with_source) {
        fputs("<p>The kernel's source was not found at the paths vmlinux records: give it with"
              " <code>failrun cov --kernel-source DIR</code> to see these lines in it.</p>", out);
        return;
    }
    fputs("<h3 id=\"kernel-source\">In the source</h3><p>Each error-leg line with two lines"
          " either side; the count is the fault runs that reached it, the last column its"
          " function.</p>", out);
    json_array_foreach(files, index, file) {
        if (json_is_string(json_object_get(file, "source")))
            kernel_source(out, file);
    }
}

void html_write_report(json_t *report, const char *path)
{
    FILE *out = fopen(path, "w");
    if (!out)
        fatal("cannot write %s: %s; check the path", path, strerror(errno));
    fputs("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"
          " style-src 'unsafe-inline'\"><title>failrun coverage</title><style>", out);
    fputs(style, out);
    fputs("</style></head><body><h1>Error-leg coverage</h1><p>Campaign ", out);
    html_escape(out, string(report, "database"));
    json_t *runs = json_object_get(report, "runs");
    fprintf(out, ": <span id=\"fault-runs\">%lld</span> fault run(s), %lld baseline. NOFAIL-eligible:"
                 " LF_NOFAIL sites and sites whose every request is at most %lld bytes.</p>",
            int_of(runs, "fault"), int_of(runs, "baseline"), int_of(report, "nofail_below"));
    fputs("<p>An error leg is the program's reaction to a failure: from the branch after the"
          " failed call that the fault run took more often than the baseline, the lines that"
          " followed, up through each caller that reacted too.</p>"
          "<p><span class=\"key deletable-key\"></span>error leg, deletable (reached only through"
          " NOFAIL-eligible failures) <span class=\"key kept-key\"></span>error leg, kept"
          " <span class=\"key untaken-key\"></span>holds an error reaction no run took"
          " <span class=\"key unreached-key\"></span>reached by no run</p>", out);
    summary_table(out, report);
    nofail_section(out, json_object_get(report, "nofail_check"));
    fputs("<h2>Deletable share</h2>", out);
    share_chart(out, json_object_get(report, "lines"), json_object_get(report, "branches"));
    fputs("<h2>Outcomes of the fault runs</h2>", out);
    outcome_chart(out, json_object_get(report, "outcomes"));
    fputs("<h2>Sites</h2>", out);
    json_t *sites = json_object_get(report, "sites");
    site_table(out, sites);
    fputs("<h2>Files</h2>", out);
    size_t index;
    json_t *file;
    json_array_foreach(json_object_get(report, "files"), index, file)
        annotated_source(out, file, sites, index);
    kernel_section(out, json_object_get(report, "kernel_files"));
    fputs("</body></html>\n", out);
    if (fclose(out) != 0)
        fatal("cannot write %s: %s; is the disk full?", path, strerror(errno));
}
