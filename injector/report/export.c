/*
 * export.c — the report for other tools: JUnit XML (CI test views) and SARIF 2.1.0 (code
 * scanning views). Both are built from the report document of report.c, so they say what the
 * text and JSON reports say. Every string from the program (paths, function names) is escaped.
 */
#include "verdict/classify.h"
#include "libfail.h"
#include "report/report.h"
#include "store/ingest.h"
#include "base/util.h"

#include <errno.h>
#include <string.h>

static void xml_text(FILE *out, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        switch (*p) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            if (*p < 0x20 && *p != '\n' && *p != '\t')
                fprintf(out, "&#x%x;", 0xfffd); /* XML 1.0 forbids other control characters */
            else
                fputc(*p, out);
        }
    }
}

static const char *text_of(json_t *object, const char *key)
{
    const char *text = json_string_value(json_object_get(object, key));
    return text ? text : "";
}

static json_t *finding_by_id(json_t *report, json_int_t id)
{
    size_t index;
    json_t *finding;
    json_array_foreach(json_object_get(report, "findings"), index, finding) {
        if (json_integer_value(json_object_get(finding, "id")) == id)
            return finding;
    }
    return NULL;
}

static void junit_stack(FILE *out, const char *title, json_t *stack)
{
    size_t index;
    json_t *frame;
    fprintf(out, "%s:\n", title);
    json_array_foreach(stack, index, frame) {
        fputs("  ", out);
        xml_text(out, text_of(frame, "function"));
        if (*text_of(frame, "file")) {
            fputs(" at ", out);
            xml_text(out, text_of(frame, "file"));
            fprintf(out, ":%lld", (long long)json_integer_value(json_object_get(frame, "line")));
        }
        fputc('\n', out);
    }
}

void report_print_junit(json_t *report, FILE *out)
{
    json_t *runs = json_object_get(report, "runs");
    size_t failures = 0, index;
    double seconds = 0;
    json_t *run;
    json_array_foreach(runs, index, run) {
        failures += !json_is_null(json_object_get(run, "finding"));
        seconds += (double)json_integer_value(json_object_get(run, "wall_ms")) / 1000.0;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<testsuites name=\"failrun\" tests=\"%zu\" failures=\"%zu\" time=\"%.3f\">\n",
            json_array_size(runs), failures, seconds);
    fprintf(out, "  <testsuite name=\"allocation failures\" tests=\"%zu\" failures=\"%zu\" "
                 "errors=\"0\" skipped=\"0\" time=\"%.3f\">\n",
            json_array_size(runs), failures, seconds);
    json_array_foreach(runs, index, run) {
        /* Named by the place it failed ("f at file.c:40"); the plan when there is none, the
           chain beside the place when it fails more than one call. */
        const char *target = text_of(run, "chain"), *place = text_of(run, "site_name");
        char single[32];
        snprintf(single, sizeof single, "%s:1", text_of(run, "site"));
        fputs("    <testcase classname=\"failrun.", out);
        xml_text(out, text_of(run, "function"));
        fputs("\" name=\"", out);
        if (*place && strcmp(place, "?")) {
            xml_text(out, place);
            if (*target && strcmp(target, single)) {
                fputs(" (", out);
                xml_text(out, target);
                fputs(")", out);
            }
        } else {
            xml_text(out, *target ? target : text_of(run, "plan"));
        }
        fprintf(out, "\" time=\"%.3f\">\n",
                (double)json_integer_value(json_object_get(run, "wall_ms")) / 1000.0);
        json_t *finding = finding_by_id(report, json_integer_value(json_object_get(run, "finding")));
        if (finding) {
            json_t *location = json_object_get(finding, "location");
            fputs("      <failure type=\"", out);
            xml_text(out, text_of(finding, "outcome"));
            fputs("\" message=\"", out);
            xml_text(out, text_of(finding, "outcome"));
            fputs(" at ", out);
            xml_text(out, text_of(location, "file"));
            fprintf(out, ":%lld in ", (long long)json_integer_value(json_object_get(location, "line")));
            xml_text(out, text_of(location, "function"));
            fputs("\">", out);
            junit_stack(out, "injection stack", json_object_get(finding, "injection_stack"));
            json_t *evidence = json_object_get(finding, "crash_stack");
            if (evidence)
                junit_stack(out, "crash stack", evidence);
            else if ((evidence = json_object_get(finding, "leaked_stack")))
                junit_stack(out, "leaked block allocated at", evidence);
            fputs("replay: ", out);
            xml_text(out, text_of(finding, "replay"));
            fputs("\n</failure>\n", out);
        } else {
            fputs("      <system-out>outcome: ", out);
            xml_text(out, text_of(run, "outcome"));
            fputs("</system-out>\n", out);
        }
        fputs("    </testcase>\n", out);
    }
    fputs("  </testsuite>\n</testsuites>\n", out);
}

/* ---- SARIF ---- */

static json_t *sarif_location(json_t *frame, const char *cwd)
{
    json_t *location = json_object();
    const char *file = text_of(frame, "file");
    if (*file) {
        size_t cwd_length = strlen(cwd);
        bool inside = !strncmp(file, cwd, cwd_length) && file[cwd_length] == '/';
        json_t *artifact = inside ? json_pack("{s:s, s:s}", "uri", file + cwd_length + 1,
                                              "uriBaseId", "SRCROOT")
                                  : json_pack("{s:s}", "uri", file);
        json_t *physical = json_pack("{s:o}", "artifactLocation", artifact);
        json_int_t line = json_integer_value(json_object_get(frame, "line"));
        if (line > 0)
            json_object_set_new(physical, "region", json_pack("{s:I}", "startLine", line));
        json_object_set_new(location, "physicalLocation", physical);
    }
    char *qualified = xasprintf("%s!%s", text_of(frame, "module"), text_of(frame, "function"));
    json_object_set_new(location, "logicalLocations",
                        json_pack("[{s:s, s:s, s:s}]", "name", text_of(frame, "function"),
                                  "fullyQualifiedName", qualified, "kind", "function"));
    free(qualified);
    return location;
}

static json_t *sarif_code_flow(const char *message, json_t *stack, const char *cwd)
{
    json_t *locations = json_array();
    size_t index;
    json_t *frame;
    /* A code flow runs from the outermost call inwards: reverse the stack. */
    for (index = json_array_size(stack); index-- > 0;) {
        frame = json_array_get(stack, index);
        json_array_append_new(locations, json_pack("{s:o, s:I}", "location",
                                                   sarif_location(frame, cwd), "nestingLevel",
                                                   (json_int_t)(json_array_size(stack) - 1 - index)));
    }
    return json_pack("{s:{s:s}, s:[{s:o}]}", "message", "text", message, "threadFlows",
                     "locations", locations);
}

static json_t *sarif_rules(void)
{
    json_t *rules = json_array();
    for (int i = 0; i < OUTCOME_COUNT; i++) {
        if (!outcome_is_bug(i))
            continue;
        char *text = i == OUTCOME_KERNEL
                         ? xstrdup("A kernel allocation failure makes the kernel report a bug of its "
                                   "own (WARN, BUG, oops, lockdep)")
                         : xasprintf("An allocation failure leads to a %s", outcome_name(i));
        json_array_append_new(rules, json_pack("{s:s, s:{s:s}}", "id", outcome_name(i),
                                               "shortDescription", "text", text));
        free(text);
    }
    return rules;
}

void report_print_sarif(json_t *report, FILE *out)
{
    const char *cwd = text_of(json_object_get(report, "campaign"), "cwd");
    json_t *results = json_array();
    size_t index;
    json_t *finding;
    json_array_foreach(json_object_get(report, "findings"), index, finding) {
        json_t *location = json_object_get(finding, "location");
        json_t *evidence = json_object_get(finding, "crash_stack");
        if (!evidence)
            evidence = json_object_get(finding, "leaked_stack");
        /* "malloc(24)", or for an I/O site "fwrite (ENOSPC)" */
        char *request = fault_kind_from_name(text_of(finding, "kind")) == KIND_IO
                            ? xasprintf("%s (%s)", text_of(finding, "function"),
                                        text_of(finding, "errno"))
                            : xasprintf("%s(%lld)", text_of(finding, "function"),
                                        (long long)json_integer_value(
                                            json_object_get(finding, "size")));
        char *message = xasprintf("%s%s%s in %s when %s fails at site %s. Replay: %s",
                                  text_of(finding, "outcome"),
                                  *text_of(finding, "sanitizer") ? ": " : "",
                                  text_of(finding, "sanitizer"), text_of(location, "function"),
                                  request, text_of(finding, "site"), text_of(finding, "replay"));
        free(request);
        /* A run that went on wrongly ended nowhere in particular: its one flow is the
           injection's. */
        json_t *flows = json_array();
        json_array_append_new(flows, sarif_code_flow("where the allocation failed",
                                                     json_object_get(finding, "injection_stack"),
                                                     cwd));
        if (evidence)
            json_array_append_new(flows, sarif_code_flow("where it ended", evidence, cwd));
        json_t *result = json_pack(
            "{s:s, s:s, s:{s:s}, s:[o], s:o, s:{s:s}}", "ruleId", text_of(finding, "outcome"),
            "level", "error", "message", "text", message, "locations",
            sarif_location(location, cwd), "codeFlows", flows, "partialFingerprints",
            "failrunSite/v1", text_of(finding, "site"));
        free(message);
        json_array_append_new(results, result);
    }
    char *root = xasprintf("file://%s/", cwd);
    json_t *sarif = json_pack(
        "{s:s, s:s, s:[{s:{s:{s:s, s:s, s:s, s:o}}, s:{s:{s:s}}, s:o}]}", "$schema",
        "https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0", "runs", "tool",
        "driver", "name", "failrun", "version", LIBFAIL_VERSION, "informationUri",
        "https://example.invalid/libfail", "rules", sarif_rules(), "originalUriBaseIds", "SRCROOT",
        "uri", root, "results", results);
    free(root);
    json_dumpf(sarif, out, JSON_INDENT(2));
    fputc('\n', out);
    json_decref(sarif);
}

static void write_with(const char *path, void (*writer)(json_t *, FILE *), json_t *report)
{
    FILE *out = fopen(path, "w");
    if (!out)
        fatal("cannot write %s: %s; check the path", path, strerror(errno));
    writer(report, out);
    if (fclose(out) != 0)
        fatal("cannot write %s: %s; is the disk full?", path, strerror(errno));
}

void report_print_json(json_t *report, FILE *out)
{
    json_dumpf(report, out, JSON_INDENT(2));
    fputc('\n', out);
}

/* Each format's name and writer, from formats.def. */
static const struct {
    const char *name;
    void (*writer)(json_t *, FILE *);
    enum report_where where;
} formats[REPORT_FORMATS] = {
    [REPORT_TEXT] = {"text", report_print_text, REPORT_STANDARD_OUTPUT},
#define REPORT_FORMAT(name, writer, where, help) [REPORT_FORMAT_##name] = {#name, writer, where},
#include "report/formats.def"
#undef REPORT_FORMAT
};

void report_outputs_take(struct report_outputs *outputs, enum report_format format,
                         const char *path)
{
    if (formats[format].where == REPORT_FILE) {
        outputs->paths[format] = path;
        return;
    }
    if (outputs->standard != REPORT_TEXT && outputs->standard != format)
        fatal("--%s and --%s: give one (both print on standard output)",
              formats[outputs->standard].name, formats[format].name);
    outputs->standard = format;
}

void report_emit(json_t *report, const struct report_outputs *outputs, FILE *out)
{
    for (int format = 0; format < REPORT_FORMATS; format++)
        if (formats[format].where == REPORT_FILE && outputs->paths[format])
            write_with(outputs->paths[format], formats[format].writer, report);
    formats[outputs->standard].writer(report, out);
}
