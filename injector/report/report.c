/*
 * report.c — findings (deduplicated bugs) with symbolised injection and crash stacks, the replay
 * command of each, and counts per outcome. Symbolisation happens here, once per frame shown.
 */
#include "report/report.h"
#include "verdict/boundary.h"
#include "kernel/kernelcov.h"
#include "kernel/kmem.h"
#include "store/campaign.h"
#include "symbols/source.h"
#include "verdict/suppress.h"
#include "verdict/classify.h"
#include "store/database.h"
#include "symbols/symbolise.h"
#include "base/util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static json_t *symbolise_stack(struct symboliser *symboliser, const struct module_map *map,
                               const struct frame_list *frames)
{
    json_t *stack = json_array();
    for (int i = 0; i < frames->count; i++) {
        const struct record_frame *frame = &frames->frames[i];
        const char *path = module_map_path(map, frame->module);
        struct symbol_frame symbols[16];
        int n = path ? symboliser_lookup(symboliser, path, frame->offset, true, symbols, 16) : 0;
        char module[17];
        hex16(module, frame->module);
        for (int j = 0; j < (n ? n : 1); j++) {
            json_t *entry = json_object();
            json_object_set_new(entry, "function", json_string(n ? symbols[j].function : "??"));
            json_object_set_new(entry, "file", json_string(n ? symbols[j].file : ""));
            json_object_set_new(entry, "line", json_integer(n ? symbols[j].line : 0));
            json_object_set_new(entry, "inlined", json_boolean(n && symbols[j].inlined));
            json_object_set_new(entry, "module", json_string(path ? path : "?"));
            json_object_set_new(entry, "offset", json_integer((json_int_t)frame->offset));
            json_object_set_new(entry, "plumbing", json_boolean(module_is_plumbing(path)));
            json_object_set_new(entry, "tool", json_boolean(module_is_tool(path)));
            json_object_set_new(entry, "system", json_boolean(module_is_system(path)));
            json_array_append_new(stack, entry);
        }
    }
    return stack;
}

/* The first frame whose `flag` ("plumbing", "tool") is not set, copied; `fallback` first frame
   when every one has it. */
static json_t *first_frame_without(json_t *stack, const char *flag, bool fallback)
{
    size_t index;
    json_t *entry;
    json_array_foreach(stack, index, entry) {
        if (!json_is_true(json_object_get(entry, flag)))
            return json_deep_copy(entry);
    }
    return fallback && json_array_size(stack) ? json_deep_copy(json_array_get(stack, 0))
                                              : json_null();
}

static const char *string_of(json_t *object, const char *key)
{
    const char *text = json_string_value(json_object_get(object, key));
    return text ? text : "?";
}

/* The first frame of the program's own code: where a reader should look. */
static json_t *stack_location(json_t *stack)
{
    return first_frame_without(stack, "plumbing", true);
}

/* Where it went wrong: the first frame that is not failrun's or a sanitizer's runtime, even when
   it lies in the C library (a fault inside a system library is headlined there). */
static json_t *fault_frame(json_t *stack)
{
    return first_frame_without(stack, "tool", false);
}

/* Is this one of the C library's functions that do only what their arguments say: string and
   memory functions (strlen, __strlen_evex, memcpy, strdup, wcslen, stpcpy), free and realloc of
   a pointer (regfree of a regex), formatting into a buffer (sprintf)? */
static bool leaf_function(const char *function)
{
    static const char *const prefixes[] = {"str", "mem", "wcs", "stp", "free", "libc_free",
                                           "realloc", "libc_realloc", "sprintf", "vsprintf",
                                           "snprintf", "vsnprintf", "regfree"};
    if (!function)
        return false;
    while (*function == '_')
        function++;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(function, prefixes[i], strlen(prefixes[i])))
            return true;
    return false;
}

/* Does the fault lie in the program's use of the library rather than in the library? It does
   when the program called the faulting function itself or through one or two more library
   calls (fputs of a NULL stream, strdup of a NULL that faults in strlen, regfree that frees a
   pointer it never got), or only through functions that do just what their arguments say.
   Deeper inside the library (the NSS code under getpwuid), the fault is the library's. */
static bool fault_in_caller(json_t *stack)
{
    size_t index;
    json_t *entry;
    int depth = 0;
    bool leaves_only = true;
    json_array_foreach(stack, index, entry) {
        if (json_is_true(json_object_get(entry, "tool")) ||
            json_is_true(json_object_get(entry, "inlined")))
            continue;
        if (!json_is_true(json_object_get(entry, "plumbing")))
            return depth > 0 && (depth < 3 || leaves_only);
        depth++;
        leaves_only &= leaf_function(json_string_value(json_object_get(entry, "function")));
    }
    return false;
}

static char *frame_identity(json_t *frame)
{
    const char *module = json_string_value(json_object_get(frame, "module"));
    const char *function = json_string_value(json_object_get(frame, "function"));
    const char *base = module ? strrchr(module, '/') : NULL;
    return xasprintf("%s!%s", base ? base + 1 : module ? module : "?", function ? function : "??");
}

/* The rule that hides a finding with this stack, or NULL. */
static const char *suppressed_by(const struct suppressions *rules, const char *outcome,
                                 json_t *stack)
{
    size_t count = json_array_size(stack), index;
    struct suppress_frame *frames = xcalloc(count ? count : 1, sizeof *frames);
    json_t *entry;
    json_array_foreach(stack, index, entry) {
        frames[index].function = json_string_value(json_object_get(entry, "function"));
        frames[index].module = json_string_value(json_object_get(entry, "module"));
        frames[index].file = json_string_value(json_object_get(entry, "file"));
    }
    const char *rule = suppressions_match(rules, outcome, frames, count);
    free(frames);
    return rule;
}

/* A line saying how to get debug info for the module of a headline frame that has none, once per
   module. */
static void add_debug_hint(struct symboliser *symboliser, json_t *frame, json_t *hints)
{
    const char *module = json_string_value(json_object_get(frame, "module"));
    if (!module || !*module || *module == '?' || symboliser_has_debug_info(symboliser, module))
        return;
    size_t index;
    json_t *hint;
    json_array_foreach(hints, index, hint)
        if (!strcmp(json_string_value(json_object_get(hint, "module")), module))
            return;
    char *text = symboliser_debug_hint(module);
    if (text)
        json_array_append_new(hints, json_pack("{s:s, s:s}", "module", module, "hint", text));
    free(text);
}

/* Programs the fault runs started alone (owner.c), and those that had to stay within the whole
   command, each with why. */
static json_t *program_summary(sqlite3 *db)
{
    json_t *programs = json_object(), *whole = json_array();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT exe, argv, alone FROM programs WHERE alone IS NOT NULL ORDER BY id");
    json_int_t alone = 0;
    while (sqlite3_step(statement) == SQLITE_ROW) {
        const char *verdict = (const char *)sqlite3_column_text(statement, 2);
        if (!strcmp(verdict, "yes")) {
            alone++;
            continue;
        }
        char **argv = strings_from_blob(sqlite3_column_blob(statement, 1),
                                        sqlite3_column_bytes(statement, 1));
        char *name = program_title((const char *)sqlite3_column_text(statement, 0), argv);
        json_array_append_new(whole, json_pack("{s:s, s:s}", "program", name, "reason", verdict));
        free(name);
        environment_free(argv);
    }
    database_finalize(statement);
    json_object_set_new(programs, "alone", json_integer(alone));
    json_object_set_new(programs, "whole_command", whole);
    return programs;
}

/* The programs the baseline started without libfail's preload, with why and how often: the
   campaign covers none of their sites (libfail/execenv.c). */
static json_t *unpreloaded_programs(sqlite3 *db)
{
    json_t *list = json_array();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT program, reason, count FROM unpreloaded"
            " WHERE run = (SELECT min(id) FROM runs WHERE kind = 'baseline')"
            " ORDER BY program, reason");
    while (sqlite3_step(statement) == SQLITE_ROW)
        json_array_append_new(list, json_pack("{s:s, s:s, s:I}",
                                              "program", sqlite3_column_text(statement, 0),
                                              "reason", sqlite3_column_text(statement, 1),
                                              "count", (json_int_t)sqlite3_column_int64(statement, 2)));
    database_finalize(statement);
    return list;
}

/* The suite's fixtures left out of the default scope (campaign.c, fixture_reason). */
static json_t *fixture_list(sqlite3 *db)
{
    json_t *list = json_array();
    sqlite3_stmt *statement = database_prepare(db, "SELECT exe, why FROM fixtures ORDER BY exe");
    while (sqlite3_step(statement) == SQLITE_ROW)
        json_array_append_new(list, json_pack("{s:s, s:s}", "exe", sqlite3_column_text(statement, 0),
                                              "why", sqlite3_column_text(statement, 1)));
    database_finalize(statement);
    return list;
}

/* The executables whose sites the campaign fails, with how many each: [{"exe", "sites"}]. */
static json_t *programs_under_test(sqlite3 *db)
{
    json_t *list = json_array();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT exe, count(*) FROM sites GROUP BY exe ORDER BY count(*) DESC, exe");
    while (sqlite3_step(statement) == SQLITE_ROW)
        json_array_append_new(list, json_pack("{s:s, s:I}", "exe", sqlite3_column_text(statement, 0),
                                              "sites", (json_int_t)sqlite3_column_int64(statement, 1)));
    database_finalize(statement);
    return list;
}

/* Which processes forked at their sites and why (forkrun.c), and the fork runs that ended with
   their test case (libfail/testcase.c): {"notes": [...], "test_cases": {"passed": N, "failed": N,
   "functions": [...]}}. */
static json_t *fork_summary(sqlite3 *db)
{
    json_t *notes = json_array();
    sqlite3_stmt *statement = database_prepare(db, "SELECT fork_note FROM campaign");
    if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0)) {
        char *text = xstrdup((const char *)sqlite3_column_text(statement, 0));
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            json_array_append_new(notes, json_string(line));
        free(text);
    }
    database_finalize(statement);
    json_t *cases = json_object(), *functions = json_array();
    json_object_set_new(cases, "passed", json_integer(0));
    json_object_set_new(cases, "failed", json_integer(0));
    statement = database_prepare(
        db, "SELECT substr(test_case, 1, 6), substr(test_case, 8), count(*) FROM runs"
            " WHERE test_case IS NOT NULL GROUP BY 1, 2 ORDER BY 2, 1");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        const char *verdict = (const char *)sqlite3_column_text(statement, 0);
        const char *function = (const char *)sqlite3_column_text(statement, 1);
        json_t *count = json_object_get(cases, verdict);
        if (count)
            json_integer_set(count, json_integer_value(count) + sqlite3_column_int64(statement, 2));
        size_t size = json_array_size(functions);
        if (!size || strcmp(json_string_value(json_array_get(functions, size - 1)), function))
            json_array_append_new(functions, json_string(function));
    }
    database_finalize(statement);
    json_object_set_new(cases, "functions", functions);
    return json_pack("{s:o, s:o}", "notes", notes, "test_cases", cases);
}


static json_t *campaign_summary(sqlite3 *db, struct campaign_settings *settings)
{
    json_t *campaign = json_object();
    json_t *command = json_array();
    for (size_t i = 0; settings->argv[i]; i++)
        json_array_append_new(command, json_string(settings->argv[i]));
    json_object_set_new(campaign, "command", command);
    json_object_set_new(campaign, "cwd", json_string(settings->cwd));
    if (settings->stdin_path)
        json_object_set_new(campaign, "stdin", json_string(settings->stdin_path));
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT (SELECT count(*) FROM sites WHERE NOT outside_source AND first_run IN"
            "   (SELECT id FROM runs WHERE kind = 'baseline')),"
            " (SELECT count(*) FROM runs), (SELECT count(*) FROM runs WHERE state = 'planned'),"
            " wall_ms, baseline_exit, (SELECT count(*) FROM sites WHERE NOT outside_source"
            "   AND first_run NOT IN"
            "   (SELECT id FROM runs WHERE kind = 'baseline')),"
            " (SELECT count(*) FROM sites WHERE kind = 'io' AND first_run IN"
            "   (SELECT id FROM runs WHERE kind = 'baseline')), faults,"
            " (SELECT count(*) FROM sites WHERE outside_source), source"
            " FROM campaign");
    if (sqlite3_step(statement) == SQLITE_ROW) {
        json_object_set_new(campaign, "sites", json_integer(sqlite3_column_int64(statement, 0)));
        json_object_set_new(campaign, "runs", json_integer(sqlite3_column_int64(statement, 1)));
        json_object_set_new(campaign, "runs_pending",
                            json_integer(sqlite3_column_int64(statement, 2)));
        json_object_set_new(campaign, "wall_ms",
                            sqlite3_column_type(statement, 3) == SQLITE_NULL
                                ? json_null()
                                : json_integer(sqlite3_column_int64(statement, 3)));
        json_object_set_new(campaign, "baseline_exit",
                            json_integer(sqlite3_column_int64(statement, 4)));
        json_object_set_new(campaign, "error_path_sites",
                            json_integer(sqlite3_column_int64(statement, 5)));
        json_object_set_new(campaign, "io_sites", json_integer(sqlite3_column_int64(statement, 6)));
        json_object_set_new(campaign, "faults",
                            json_string((const char *)sqlite3_column_text(statement, 7)));
        /* --source: sites recorded but left out of the campaign (source.c) */
        json_object_set_new(campaign, "source",
                            json_string((const char *)sqlite3_column_text(statement, 9)));
        json_object_set_new(campaign, "outside_source_sites",
                            json_integer(sqlite3_column_int64(statement, 8)));
    }
    database_finalize(statement);
    /* Error-path sites that got no run of their own, by reason (scheduler.c). */
    json_t *unexplored = json_object();
    statement = database_prepare(
        db, "SELECT unexplored, count(*) FROM sites WHERE unexplored IS NOT NULL GROUP BY 1 ORDER BY 1");
    while (sqlite3_step(statement) == SQLITE_ROW)
        json_object_set_new(unexplored, (const char *)sqlite3_column_text(statement, 0),
                            json_integer(sqlite3_column_int64(statement, 1)));
    database_finalize(statement);
    json_object_set_new(campaign, "unexplored", unexplored);
    /* First runs of a site the baseline reached, whose fault never fired: the runs disturbed
       each other (two at once sharing files or ports) or the command does other things from
       run to run. Such a run says nothing of its site; the campaign is not to be trusted as is.
       Under --policy nofail a site too small to fail is never failed by design, and a kernel
       campaign's run whose fail-nth counter never reached 0 ends the site's sweep. */
    statement = database_prepare(
        db, "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site"
            " WHERE r.kind = 'fault' AND r.outcome = 'not-reached' AND r.chain NOT LIKE '%,%'"
            " AND s.first_run IN (SELECT id FROM runs WHERE kind = 'baseline')"
            " AND (SELECT policy FROM campaign) = 'all' AND (SELECT kernel FROM campaign) = 0");
    json_object_set_new(campaign, "unreached",
                        json_integer(sqlite3_step(statement) == SQLITE_ROW
                                         ? sqlite3_column_int64(statement, 0) : 0));
    database_finalize(statement);
    json_object_set_new(campaign, "programs", program_summary(db));
    json_object_set_new(campaign, "unpreloaded", unpreloaded_programs(db));
    json_object_set_new(campaign, "fixtures", fixture_list(db));
    json_object_set_new(campaign, "under_test", programs_under_test(db));
    json_object_set_new(campaign, "forks", fork_summary(db));
    return campaign;
}

/* The program a run started alone (runs.owner): `failrun replay --cwd CWD -- EXE ARGS < IN`
   repeats it, in its folder, with its arguments, input and (found by failrun replay in the
   database) its environment. NULL when the run was the whole command's. */
static char *program_words(sqlite3 *db, int64_t owner, char **input, char **folder)
{
    sqlite3_stmt *statement =
        database_prepare(db, "SELECT exe, cwd, argv, stdin FROM programs WHERE id = ?");
    sqlite3_bind_int64(statement, 1, owner);
    char *words = NULL;
    if (owner && sqlite3_step(statement) == SQLITE_ROW) {
        char **argv = strings_from_blob(sqlite3_column_blob(statement, 2),
                                        sqlite3_column_bytes(statement, 2));
        if (!argv[0]) { /* no arguments at all: not a start failrun can repeat */
            environment_free(argv);
            database_finalize(statement);
            return NULL;
        }
        free(argv[0]); /* the executable itself: argv[0] may name it through PATH or a link */
        argv[0] = column_text(statement, 0);
        char *cwd = shell_quote((const char *)sqlite3_column_text(statement, 1));
        char *command = shell_join(argv);
        words = xstrdup(command);
        *folder = xasprintf(" --cwd %s", cwd);
        const char *path = (const char *)sqlite3_column_text(statement, 3);
        char *quoted = path ? shell_quote(path) : NULL;
        *input = quoted ? xasprintf(" < %s", quoted) : xstrdup("");
        free(quoted);
        free(command);
        free(cwd);
        environment_free(argv);
    }
    database_finalize(statement);
    return words;
}

/* The command that repeats a finding's earliest run: its chain of sites, or its exact plan;
   the program it started alone when it did (`owner`), else the campaign's command. */
static char *replay_command(sqlite3 *db, const struct campaign_settings *settings,
                            const char *chain, const char *plan, const char *database_path,
                            int64_t owner)
{
    char *input = NULL, *folder = NULL;
    char *command = program_words(db, owner, &input, &folder);
    if (!command) {
        command = shell_join(settings->argv);
        input = settings->stdin_path ? xasprintf(" < %s", settings->stdin_path) : xstrdup("");
        folder = xstrdup("");
    }
    /* A replay that moves to the program's folder (--cwd) is run from anywhere: it names the
       database by its full path, or it would miss the environment the campaign recorded. */
    char *absolute = *folder ? realpath(database_path, NULL) : NULL;
    char *quoted_path = shell_quote(absolute ? absolute : database_path);
    char *database = absolute || strcmp(database_path, DEFAULT_DATABASE)
                         ? xasprintf(" --db %s", quoted_path) : xstrdup("");
    free(quoted_path);
    free(absolute);
    char *quoted = shell_quote(plan ? plan : "");
    char *what = chain ? xasprintf("%s%s", settings->persistent ? "--persistent " : "", chain)
                       : xasprintf("--plan %s", quoted);
    char *replay = xasprintf("failrun replay%s%s %s -- %s%s", database, folder, what, command,
                             input);
    free(folder);
    free(quoted);
    free(what);
    free(command);
    free(database);
    free(input);
    return replay;
}

static json_t *site_stack(sqlite3 *db, struct symboliser *symboliser,
                          const struct module_map *map, const char *site, json_t **function,
                          json_t **max_size)
{
    sqlite3_stmt *statement =
        database_prepare(db, "SELECT frames, function, max_size FROM sites WHERE id = ?");
    sqlite3_bind_text(statement, 1, site, -1, SQLITE_TRANSIENT);
    struct frame_list frames = {0};
    *function = json_string("?");
    *max_size = json_integer(0);
    if (sqlite3_step(statement) == SQLITE_ROW) {
        frames_from_json((const char *)sqlite3_column_text(statement, 0), &frames);
        json_decref(*function);
        json_decref(*max_size);
        *function = json_string((const char *)sqlite3_column_text(statement, 1));
        *max_size = json_integer(sqlite3_column_int64(statement, 2));
    }
    database_finalize(statement);
    return symbolise_stack(symboliser, map, &frames);
}

/* The stored frames of a site (none when unknown). */
static void site_frames(sqlite3 *db, const char *site, struct frame_list *frames)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT frames FROM sites WHERE id = ?");
    sqlite3_bind_text(statement, 1, site, -1, SQLITE_TRANSIENT);
    frames->count = 0;
    if (sqlite3_step(statement) == SQLITE_ROW)
        frames_from_json((const char *)sqlite3_column_text(statement, 0), frames);
    database_finalize(statement);
}

/* A leak lost inside a system library (system_leak_frame, source.h): that library's function,
   symbolised (its out-of-line frame); NULL otherwise. */
static json_t *system_leak_fault(sqlite3 *db, struct symboliser *symboliser,
                                 const struct module_map *map, const char *site,
                                 const struct frame_list *leaked)
{
    struct frame_list injection = {0};
    site_frames(db, site, &injection);
    int library = system_leak_frame(symboliser, map, leaked, &injection);
    if (library < 0)
        return NULL;
    struct frame_list one = {.count = 1};
    one.frames[0] = leaked->frames[library];
    json_t *stack = symbolise_stack(symboliser, map, &one);
    json_t *fault = json_deep_copy(json_array_get(stack, json_array_size(stack) - 1));
    json_decref(stack);
    return fault;
}

/* failrun kernel: the kernel allocation the injected failure of `run` hit (kmem.c), into `into`
   as "allocation"; nothing when the run's trace named none. */
static void kernel_allocation(sqlite3 *db, int64_t run, json_t *into)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT kind, call_site, frames, bytes_req, bytes_alloc, gfp, via_page, too_small,"
            " can_fail FROM kernel_allocs WHERE run = ?");
    sqlite3_bind_int64(statement, 1, run);
    if (sqlite3_step(statement) == SQLITE_ROW) {
        json_t *allocation = json_object();
        uint32_t gfp = (uint32_t)sqlite3_column_int64(statement, 5);
        char flags[256];
        kmem_gfp_format(gfp, flags, sizeof flags);
        const char *frames = (const char *)sqlite3_column_text(statement, 2);
        const char *reason = (const char *)sqlite3_column_text(statement, 8);
        json_object_set_new(allocation, "kind", json_string((const char *)sqlite3_column_text(statement, 0)));
        json_object_set_new(allocation, "call_site", json_string((const char *)sqlite3_column_text(statement, 1)));
        json_object_set_new(allocation, "stack", frames && *frames ? json_string(frames) : json_null());
        json_object_set_new(allocation, "bytes_req", json_integer(sqlite3_column_int64(statement, 3)));
        json_object_set_new(allocation, "bytes_alloc", json_integer(sqlite3_column_int64(statement, 4)));
        json_object_set_new(allocation, "gfp", json_integer(gfp));
        json_object_set_new(allocation, "gfp_flags", json_string(flags));
        json_object_set_new(allocation, "via_page", json_boolean(sqlite3_column_int(statement, 6)));
        json_object_set_new(allocation, "too_small_to_fail", json_boolean(sqlite3_column_int(statement, 7)));
        json_object_set_new(allocation, "can_fail", reason ? json_string(reason) : json_null());
        json_object_set_new(into, "allocation", allocation);
    }
    database_finalize(statement);
}

/* failrun kernel --kcov: per system call, its kernel error-leg lines (kernelcov.c) and how many
   of them only failures too small to fail reached: no run anywhere in the campaign whose
   failure can really happen (or whose allocation was not named) reached that line. Into
   `legs` and `small` by system call; false when the campaign has no analysed KCOV data. */
static bool kernel_leg_counts(sqlite3 *db, json_t *legs, json_t *small)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT 1 FROM kernel_cov_done LIMIT 1");
    bool present = sqlite3_step(statement) == SQLITE_ROW;
    database_finalize(statement);
    if (!present)
        return false;
    statement = database_prepare(
        db, "SELECT s.function, COUNT(DISTINCT l.file || ':' || l.line),"
            " COUNT(DISTINCT CASE WHEN NOT EXISTS (SELECT 1 FROM kernel_legs o"
            "   LEFT JOIN kernel_allocs oa ON oa.run = o.run"
            "   WHERE o.file = l.file AND o.line = l.line AND COALESCE(oa.too_small, 0) = 0)"
            "  THEN l.file || ':' || l.line END)"
            " FROM kernel_legs l JOIN runs r ON r.id = l.run JOIN sites s ON s.id = r.site"
            " GROUP BY s.function");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(statement, 0);
        json_object_set_new(legs, name, json_integer(sqlite3_column_int64(statement, 1)));
        json_object_set_new(small, name, json_integer(sqlite3_column_int64(statement, 2)));
    }
    database_finalize(statement);
    return true;
}

/* failrun kernel: one row per system call: its sites, the fault points that failed (injected
   failures), how many of them the trace named and how many were too small to fail, the kernel
   error-leg lines (with --kcov; null without) and of them those only too-small-to-fail
   failures reached, and the findings of its sites, the program's and the kernel's. */
static json_t *kernel_table(sqlite3 *db)
{
    json_t *rows = json_array();
    json_t *legs = json_object(), *small = json_object();
    bool covered = kernel_leg_counts(db, legs, small);
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT s.function, COUNT(DISTINCT r.site), COALESCE(SUM(k.fired), 0),"
            " COALESCE(SUM(k.fired AND a.run IS NOT NULL), 0), COALESCE(SUM(k.fired AND a.too_small), 0),"
            " (SELECT COUNT(*) FROM findings f JOIN sites fs ON fs.id = f.site"
            "   WHERE fs.function = s.function AND f.outcome != 'kernel'),"
            " (SELECT COUNT(*) FROM findings f JOIN sites fs ON fs.id = f.site"
            "   WHERE fs.function = s.function AND f.outcome = 'kernel')"
            " FROM runs r JOIN kernel_faults k ON k.run = r.id JOIN sites s ON s.id = r.site"
            " LEFT JOIN kernel_allocs a ON a.run = r.id GROUP BY s.function ORDER BY s.function");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        json_t *row = json_object();
        const char *name = (const char *)sqlite3_column_text(statement, 0);
        json_object_set_new(row, "system_call", json_string(name));
        json_object_set_new(row, "sites", json_integer(sqlite3_column_int64(statement, 1)));
        json_object_set_new(row, "fault_points", json_integer(sqlite3_column_int64(statement, 2)));
        json_object_set_new(row, "allocations_named", json_integer(sqlite3_column_int64(statement, 3)));
        json_object_set_new(row, "too_small_to_fail", json_integer(sqlite3_column_int64(statement, 4)));
        json_t *leg_count = json_object_get(legs, name), *small_count = json_object_get(small, name);
        json_object_set_new(row, "kernel_error_leg_lines",
                            !covered ? json_null() : leg_count ? json_incref(leg_count) : json_integer(0));
        json_object_set_new(row, "error_leg_lines_only_too_small",
                            !covered ? json_null() : small_count ? json_incref(small_count) : json_integer(0));
        json_object_set_new(row, "userspace_findings", json_integer(sqlite3_column_int64(statement, 5)));
        json_object_set_new(row, "kernel_findings", json_integer(sqlite3_column_int64(statement, 6)));
        json_array_append_new(rows, row);
    }
    database_finalize(statement);
    json_decref(legs);
    json_decref(small);
    return rows;
}

/* failrun kernel: what the armed system call of `run` did, into `into`. */
static void kernel_detail(sqlite3 *db, int64_t run, json_t *into)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT nth, fired, call_failed, errno FROM kernel_faults WHERE run = ?");
    sqlite3_bind_int64(statement, 1, run);
    if (sqlite3_step(statement) == SQLITE_ROW) {
        json_object_set_new(into, "kernel_nth", json_integer(sqlite3_column_int64(statement, 0)));
        json_object_set_new(into, "kernel_fired", json_boolean(sqlite3_column_int(statement, 1)));
        bool failed = sqlite3_column_int(statement, 2);
        int error = sqlite3_column_int(statement, 3);
        const char *name = failed ? strerrorname_np(error) : NULL;
        json_object_set_new(into, "errno", failed ? json_string(name ? name : "?") : json_null());
    }
    database_finalize(statement);
    kernel_allocation(db, run, into);
}

/* Is `function` (a C library symbol: write, __write, __libc_write, __GI___libc_write) the
   wrapper of the system call `name` itself? */
static bool wrapper_of(const char *function, const char *name)
{
    static const char *const prefixes[] = {"__GI_", "__libc_", "__"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(function, prefixes[i], strlen(prefixes[i])))
            function += strlen(prefixes[i]);
    size_t length = strlen(name);
    return !strncmp(function, name, length) &&
           (!function[length] || !strcmp(function + length, "64") ||
            !strcmp(function + length, "_nocancel"));
}

/* The system library function a trapped system call was made in for the program: "fopen" for
   the openat inside fopen. The name the program called, read from its call instruction (the
   PLT's symbol), else the last library frame's. Null when the program called the system call's
   own wrapper, or no library stands between. */
static json_t *syscall_via(struct symboliser *symboliser, json_t *stack, const char *name)
{
    size_t index = 0;
    const char *via = NULL;
    for (; index < json_array_size(stack); index++) {
        json_t *frame = json_array_get(stack, index);
        if (!json_is_true(json_object_get(frame, "plumbing")))
            break;
        via = json_string_value(json_object_get(frame, "function"));
    }
    if (!via || index >= json_array_size(stack))
        return json_null();
    json_t *entry = json_array_get(stack, index); /* the program's frame: its call instruction */
    char called[256];
    if (symboliser_call_target(symboliser, json_string_value(json_object_get(entry, "module")),
                               (uint64_t)json_integer_value(json_object_get(entry, "offset")),
                               called, sizeof called))
        via = called;
    return !wrapper_of(via, name) ? json_string(via) : json_null();
}

/* failrun kernel: per system-call site, what each N did, in order (the sweep). */
static json_t *kernel_sweeps(sqlite3 *db)
{
    struct symboliser *symboliser = symboliser_new();
    struct module_map map;
    module_map_load(db, &map);
    json_t *list = json_array();
    sqlite3_stmt *sites = database_prepare(
        db, "SELECT DISTINCT r.site FROM runs r JOIN kernel_faults k ON k.run = r.id"
            " ORDER BY r.id");
    while (sqlite3_step(sites) == SQLITE_ROW) {
        const char *site = (const char *)sqlite3_column_text(sites, 0);
        json_t *sweep = json_object(), *function, *size;
        json_t *stack = site_stack(db, symboliser, &map, site, &function, &size);
        json_object_set_new(sweep, "site", json_string(site));
        json_object_set_new(sweep, "function", function);
        json_object_set_new(sweep, "location", stack_location(stack));
        json_object_set_new(sweep, "via",
                            syscall_via(symboliser, stack, json_string_value(function)));
        json_decref(stack);
        json_decref(size);
        json_t *calls = json_array();
        sqlite3_stmt *runs = database_prepare(
            db, "SELECT r.id, r.outcome FROM runs r JOIN kernel_faults k ON k.run = r.id"
                " WHERE r.site = ? ORDER BY k.nth");
        sqlite3_bind_text(runs, 1, site, -1, SQLITE_TRANSIENT);
        while (sqlite3_step(runs) == SQLITE_ROW) {
            json_t *call = json_object();
            kernel_detail(db, sqlite3_column_int64(runs, 0), call);
            const char *outcome = (const char *)sqlite3_column_text(runs, 1);
            json_object_set_new(call, "outcome", json_string(outcome ? outcome : "?"));
            json_array_append_new(calls, call);
        }
        database_finalize(runs);
        json_object_set_new(sweep, "calls", calls);
        json_array_append_new(list, sweep);
    }
    database_finalize(sites);
    module_map_free(&map);
    symboliser_free(symboliser);
    return list;
}

/* An I/O site's failure: the errno its function fails with (interpose_io.def), by name. */
static void set_io_errno(json_t *into, const char *function)
{
    int error = function_io_errno_by_name(function);
    const char *name = error ? strerrorname_np(error) : NULL;
    json_object_set_new(into, "errno", json_string(name ? name : "?"));
}

/* Index of the first entry of a symbolised stack outside plumbing, or -1. */
static int first_own_entry(json_t *stack)
{
    for (size_t i = 0; i < json_array_size(stack); i++)
        if (!json_is_true(json_object_get(json_array_get(stack, i), "plumbing")))
            return (int)i;
    return -1;
}

/* The entry a site is named after: the first own one, or its caller's when the first own one
   is in an allocation wrapper (source.h); *through names that wrapper (NULL when none). */
static int named_entry(json_t *stack, const char *wrappers, const char **through)
{
    int own = first_own_entry(stack);
    *through = NULL;
    if (own < 0 || (size_t)own + 1 >= json_array_size(stack))
        return own;
    const char *function = json_string_value(json_object_get(json_array_get(stack, own), "function"));
    if (!wrapper_named(function, wrappers))
        return own;
    *through = function;
    return own + 1;
}

/* "json_object_new at json.c:40 (through jsonp_malloc)": where a site's allocation is made. */
static json_t *site_title(json_t *stack, const char *wrappers)
{
    const char *through;
    int index = named_entry(stack, wrappers, &through);
    if (index < 0)
        return json_string("?");
    json_t *entry = json_array_get(stack, (size_t)index);
    const char *file = json_string_value(json_object_get(entry, "file"));
    const char *base = file ? strrchr(file, '/') : NULL;
    char *title = file && *file
                      ? xasprintf("%s at %s:%lld", json_string_value(json_object_get(entry, "function")),
                                  base ? base + 1 : file,
                                  (long long)json_integer_value(json_object_get(entry, "line")))
                      : xstrdup(json_string_value(json_object_get(entry, "function")));
    char *full = through ? xasprintf("%s (through %s)", title, through) : xstrdup(title);
    json_t *result = json_string(full);
    free(title);
    free(full);
    return result;
}

static json_t *findings(sqlite3 *db, const struct campaign_settings *settings,
                        const char *database_path, const struct suppressions *rules,
                        json_t *suppressed, json_t *hints)
{
    struct symboliser *symboliser = symboliser_new();
    struct module_map map;
    module_map_load(db, &map);
    json_t *list = json_array();
    char *wrappers = wrappers_find(db, symboliser, settings->wrappers);
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT f.id, f.outcome, f.signal, f.site, f.frames, f.runs, r.chain, r.plan, f.detail,"
            " f.first_run, f.bytes, r.owner FROM findings f LEFT JOIN runs r ON r.id = f.first_run"
            " ORDER BY f.first_run");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        json_t *finding = json_object();
        const char *outcome = (const char *)sqlite3_column_text(statement, 1);
        const char *site = (const char *)sqlite3_column_text(statement, 3);
        int signal = sqlite3_column_int(statement, 2);
        json_object_set_new(finding, "id", json_integer(sqlite3_column_int64(statement, 0)));
        json_object_set_new(finding, "outcome", json_string(outcome));
        if (signal) {
            json_object_set_new(finding, "signal", json_integer(signal));
            json_object_set_new(finding, "signal_name", json_string(sigabbrev_np(signal)));
        }
        json_object_set_new(finding, "site", json_string(site));
        json_t *function, *max_size;
        json_t *injection = site_stack(db, symboliser, &map, site, &function, &max_size);
        json_object_set_new(finding, "function", function);
        json_object_set_new(finding, "size", max_size);
        json_object_set_new(finding, "site_name", site_title(injection, wrappers));
        sqlite3_stmt *named = database_prepare(db, "SELECT name, kind FROM sites WHERE id = ?");
        sqlite3_bind_text(named, 1, site, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(named) == SQLITE_ROW) {
            if (sqlite3_column_text(named, 0))
                json_object_set_new(finding, "failpoint",
                                    json_string((const char *)sqlite3_column_text(named, 0)));
            const char *kind = (const char *)sqlite3_column_text(named, 1);
            json_object_set_new(finding, "kind", json_string(kind ? kind : "alloc"));
            if (kind && !strcmp(kind, "io"))
                set_io_errno(finding, json_string_value(json_object_get(finding, "function")));
        }
        database_finalize(named);
        struct frame_list frames = {0};
        frames_from_json((const char *)sqlite3_column_text(statement, 4), &frames);
        json_t *evidence = symbolise_stack(symboliser, &map, &frames);
        /* A leak is located at the allocation that leaked, and a run that went on wrongly
           (silent, swallowed, a hang) at its failed call: both in a wrapper's caller, since
           curl_dbg_malloc or xmalloc only passed the failure on. A crash where it ended. */
        bool leak = !strcmp(outcome, "leak");
        bool crashed = !strcmp(outcome, "crash") || !strcmp(outcome, "sanitizer");
        const char *through = NULL;
        int named_at = !crashed && strcmp(outcome, "kernel") ? named_entry(evidence, wrappers, &through)
                                                             : -1;
        json_object_set_new(finding, "location",
                            named_at >= 0 ? json_deep_copy(json_array_get(evidence, (size_t)named_at))
                                          : stack_location(evidence));
        if (through)
            json_object_set_new(finding, "through", json_string(through));
        /* A leak whose allocation, failed call and loss lie inside a system library is that
           library's, headlined at its function that lost the block. */
        json_t *library = leak && site ? system_leak_fault(db, symboliser, &map, site, &frames)
                                       : NULL;
        json_t *fault = library ? library
                        : leak  ? json_deep_copy(json_object_get(finding, "location"))
                                : fault_frame(evidence);
        /* Only a crash stack says where it went wrong (a silent run or a hang is located at the
           injection), and an abort is deliberate: glibc's assertion or heap check, raised for
           its caller's bug. */
        bool system = library || (crashed && signal != SIGABRT &&
                                  json_is_true(json_object_get(fault, "system")) &&
                                  !fault_in_caller(evidence));
        json_object_set_new(finding, "system_library", json_boolean(system));
        /* "module!function", and for a fault in a system library also where it was reached
           from: "libc.so.6!strlen<-prog!parse". */
        char *own = frame_identity(json_object_get(finding, "location"));
        char *where = system ? frame_identity(fault) : NULL;
        char *identity = where ? xasprintf("%s<-%s", where, own) : xstrdup(own);
        json_object_set_new(finding, "identity", json_string(identity));
        free(identity);
        free(where);
        free(own);
        if (system)
            json_object_set_new(finding, "fault", fault);
        else
            json_decref(fault);
        /* A call through a pointer that holds no code: the preload unwound from the call's
           return address, frame 0 is the address called (stored plus one, as every frame 0). */
        json_t *top = json_array_get(evidence, 0);
        if (crashed && top && !strcmp(string_of(top, "module"), "?") &&
            json_array_size(evidence) > 1) {
            json_int_t address = json_integer_value(json_object_get(top, "offset")) - 1;
            json_object_set_new(finding, "non_code_address", json_integer(address));
            json_object_set_new(top, "no_code", json_true());
            json_object_set_new(top, "offset", json_integer(address));
        }
        json_object_set_new(finding, "injection_stack", injection);
        /* A run that went on (silent, swallowed, a hang) has no stack of its own: its
           evidence is the injection stack, shown once. */
        if (leak)
            json_object_set_new(finding, "leaked_stack", evidence);
        else if (crashed || !strcmp(outcome, "kernel"))
            json_object_set_new(finding, "crash_stack", evidence);
        else
            json_decref(evidence);
        json_object_set_new(finding, "runs", json_integer(sqlite3_column_int64(statement, 5)));
        const char *detail = (const char *)sqlite3_column_text(statement, 8);
        if (detail && !strcmp(outcome, "kernel")) {
            /* The kernel's own report: its first line, then the log of the armed call. */
            char *headline = kernel_report_headline(detail);
            json_object_set_new(finding, "kernel_report", json_string(headline ? headline : "?"));
            json_object_set_new(finding, "kernel_log", json_string(detail));
            free(headline);
        } else if (detail) {
            json_object_set_new(finding, strcmp(outcome, "leak") ? "sanitizer" : "leaked",
                                json_string(detail));
        }
        if (sqlite3_column_type(statement, 10) != SQLITE_NULL)
            json_object_set_new(finding, "bytes", json_integer(sqlite3_column_int64(statement, 10)));
        const char *chain = (const char *)sqlite3_column_text(statement, 6);
        const char *plan = (const char *)sqlite3_column_text(statement, 7);
        if (chain && strchr(chain, ','))
            json_object_set_new(finding, "chain", json_string(chain));
        if (settings->kernel) {
            /* The exact N matters: replay the run's plan, and say what the call returned. */
            chain = NULL;
            kernel_detail(db, sqlite3_column_int64(statement, 9), finding);
            json_object_set_new(finding, "via",
                                syscall_via(symboliser, injection,
                                            json_string_value(json_object_get(finding, "function"))));
        }
        char *replay = replay_command(db, settings, chain, plan, database_path,
                                      sqlite3_column_int64(statement, 11));
        json_object_set_new(finding, "replay", json_string(replay));
        free(replay);
        const char *rule = suppressed_by(rules, outcome, evidence);
        if (rule) {
            json_object_set_new(finding, "suppressed_by", json_string(rule));
            json_array_append_new(suppressed, finding);
        } else {
            add_debug_hint(symboliser, json_object_get(finding, "location"), hints);
            if (json_object_get(finding, "fault"))
                add_debug_hint(symboliser, json_object_get(finding, "fault"), hints);
            json_array_append_new(list, finding);
        }
    }
    database_finalize(statement);
    module_map_free(&map);
    symboliser_free(symboliser);
    free(wrappers);
    return list;
}

json_t *report_outcome_counts(sqlite3 *db)
{
    json_t *counts = json_object();
    for (int i = 0; i < OUTCOME_COUNT; i++)
        if (i != OUTCOME_LEAK && i != OUTCOME_KERNEL) /* findings' kinds, not runs' outcomes */
            json_object_set_new(counts, outcome_name(i), json_integer(0));
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT outcome, count(*) FROM runs WHERE kind = 'fault' AND state = 'done'"
            " GROUP BY outcome");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(statement, 0);
        if (name && outcome_from_name(name) >= 0)
            json_object_set_new(counts, name, json_integer(sqlite3_column_int64(statement, 1)));
    }
    database_finalize(statement);
    return counts;
}

/* Runs whose leak LeakSanitizer's scan confirmed, and the bytes they leaked. */
static json_t *report_leaks(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT count(*), coalesce(sum(leak_bytes), 0) FROM runs"
            " WHERE kind = 'fault' AND state = 'done' AND leak_bytes > 0");
    json_t *leaks = json_object();
    if (sqlite3_step(statement) == SQLITE_ROW) {
        json_object_set_new(leaks, "runs", json_integer(sqlite3_column_int64(statement, 0)));
        json_object_set_new(leaks, "bytes", json_integer(sqlite3_column_int64(statement, 1)));
    }
    database_finalize(statement);
    return leaks;
}

/* The library boundary (judge.c): per function of the code under test that a fault fired in,
   the error report its convention implies, and what the runs' calls returned: reported (with the
   callers' reactions by kind) or swallowed. */
static json_t *boundary_summary(sqlite3 *db, const char *rules)
{
    json_t *functions = json_array();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT r.api, coalesce((SELECT c.classes FROM conventions c WHERE c.function = r.api"
            "  ORDER BY c.classes DESC LIMIT 1), 0),"
            " sum(r.api_verdict = 'reported'), sum(r.api_verdict = 'swallowed'),"
            " sum(r.api_verdict = 'unknown'), json_group_array(r.reaction)"
            " FROM runs r WHERE r.api IS NOT NULL GROUP BY r.api ORDER BY r.api");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        const char *function = (const char *)sqlite3_column_text(statement, 0);
        uint64_t seen = (uint64_t)sqlite3_column_int64(statement, 1);
        json_t *reactions = json_object();
        json_t *list = json_loads((const char *)sqlite3_column_text(statement, 5), 0, NULL);
        size_t index;
        json_t *reaction;
        json_array_foreach(list, index, reaction) {
            if (!json_is_string(reaction))
                continue;
            const char *kind = json_string_value(reaction);
            json_object_set_new(reactions, kind,
                                json_integer(json_integer_value(json_object_get(reactions, kind)) + 1));
        }
        json_decref(list);
        json_array_append_new(
            functions,
            json_pack("{s:s, s:s, s:b, s:I, s:I, s:I, s:o}", "function", function, "error",
                      api_convention(rules, function, seen), "learned",
                      !api_convention_is_rule(rules, function), "reported",
                      (json_int_t)sqlite3_column_int64(statement, 2), "swallowed",
                      (json_int_t)sqlite3_column_int64(statement, 3), "unknown",
                      (json_int_t)sqlite3_column_int64(statement, 4), "reactions", reactions));
    }
    database_finalize(statement);
    return functions;
}

/* Runs that crashed in code outside the campaign's --source (judge.c: a caller using what the
   library returned), grouped by where: [{location, runs, site}], most runs first. Not findings,
   but shown, so a reader can check the callers' code (and the judgement). */
static json_t *caller_crashes(sqlite3 *db)
{
    json_t *groups = json_object(), *list = json_array();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT crash_frames, site FROM runs WHERE kind = 'fault' AND state = 'done'"
            " AND outcome = 'caller-crash' ORDER BY id");
    struct symboliser *symboliser = NULL;
    struct module_map map = {0};
    while (sqlite3_step(statement) == SQLITE_ROW) {
        if (!symboliser) {
            symboliser = symboliser_new();
            module_map_load(db, &map);
        }
        struct frame_list frames = {0};
        frames_from_json((const char *)sqlite3_column_text(statement, 0), &frames);
        json_t *stack = symbolise_stack(symboliser, &map, &frames);
        json_t *location = stack_location(stack);
        json_decref(stack);
        char *key = xasprintf("%s %s:%lld", string_of(location, "function"),
                              string_of(location, "file"),
                              (long long)json_integer_value(json_object_get(location, "line")));
        json_t *group = json_object_get(groups, key);
        if (!group) {
            const char *site = (const char *)sqlite3_column_text(statement, 1);
            group = json_pack("{s:O, s:i, s:s}", "location", location, "runs", 0, "site",
                              site ? site : "");
            json_object_set_new(groups, key, group);
            json_array_append(list, group);
        }
        json_object_set_new(group, "runs",
                            json_integer(json_integer_value(json_object_get(group, "runs")) + 1));
        json_decref(location);
        free(key);
    }
    database_finalize(statement);
    if (symboliser) {
        module_map_free(&map);
        symboliser_free(symboliser);
    }
    json_decref(groups);
    /* Most runs first; equal counts keep the order of their first run. */
    size_t count = json_array_size(list);
    for (size_t i = 1; i < count; i++)
        for (size_t j = i; j > 0; j--) {
            json_t *a = json_array_get(list, j - 1), *b = json_array_get(list, j);
            if (json_integer_value(json_object_get(a, "runs")) >=
                json_integer_value(json_object_get(b, "runs")))
                break;
            json_incref(a);
            json_array_set(list, j - 1, b);
            json_array_set_new(list, j, a);
        }
    return list;
}

/* One entry per fault run: what it failed and what came of it (JUnit's test cases). */
/* Each failed site's name ("f at file.c:40"), by site id: what a run tests, in words. */
static json_t *site_names(sqlite3 *db, const struct campaign_settings *settings)
{
    struct symboliser *symboliser = symboliser_new();
    struct module_map map;
    module_map_load(db, &map);
    char *wrappers = wrappers_find(db, symboliser, settings->wrappers);
    json_t *names = json_object();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT DISTINCT site FROM runs WHERE kind = 'fault' AND site IS NOT NULL");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        const char *site = (const char *)sqlite3_column_text(statement, 0);
        json_t *function, *max_size;
        json_t *stack = site_stack(db, symboliser, &map, site, &function, &max_size);
        json_object_set_new(names, site, site_title(stack, wrappers));
        json_decref(stack);
        json_decref(function);
        json_decref(max_size);
    }
    database_finalize(statement);
    free(wrappers);
    module_map_free(&map);
    symboliser_free(symboliser);
    return names;
}

static json_t *run_list(sqlite3 *db, json_t *names)
{
    json_t *list = json_array();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT r.id, r.site, r.chain, r.plan, r.outcome, r.wall_ms, r.exit_code, r.signal,"
            " r.finding, s.function, s.max_size, s.kind FROM runs r LEFT JOIN sites s ON s.id = r.site"
            " WHERE r.kind = 'fault' AND r.state = 'done' ORDER BY r.id");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        json_t *run = json_object();
        json_object_set_new(run, "id", json_integer(sqlite3_column_int64(statement, 0)));
        const char *columns[] = {"site", "chain", "plan", "outcome"};
        for (int i = 0; i < 4; i++) {
            const char *text = (const char *)sqlite3_column_text(statement, i + 1);
            json_object_set_new(run, columns[i], text ? json_string(text) : json_null());
        }
        json_t *name = json_object_get(names, string_of(run, "site"));
        json_object_set(run, "site_name", name ? name : json_null());
        json_object_set_new(run, "wall_ms", json_integer(sqlite3_column_int64(statement, 5)));
        json_object_set_new(run, "exit_code", json_integer(sqlite3_column_int(statement, 6)));
        json_object_set_new(run, "signal", json_integer(sqlite3_column_int(statement, 7)));
        json_object_set_new(run, "finding", sqlite3_column_type(statement, 8) == SQLITE_NULL
                                                ? json_null()
                                                : json_integer(sqlite3_column_int64(statement, 8)));
        const char *function = (const char *)sqlite3_column_text(statement, 9);
        json_object_set_new(run, "function", json_string(function ? function : "?"));
        json_object_set_new(run, "size", json_integer(sqlite3_column_int64(statement, 10)));
        const char *kind = (const char *)sqlite3_column_text(statement, 11);
        json_object_set_new(run, "kind", kind ? json_string(kind) : json_null());
        if (kind && !strcmp(kind, "io"))
            set_io_errno(run, function);
        json_array_append_new(list, run);
    }
    database_finalize(statement);
    return list;
}

json_t *report_build(sqlite3 *db, const char *database_path,
                     const struct suppressions *rules)
{
    struct campaign_settings settings = {0};
    if (!campaign_load(db, &settings))
        fatal("%s holds no campaign yet; run `failrun run -- CMD` first", database_path);
    json_t *report = json_object();
    json_object_set_new(report, "campaign", campaign_summary(db, &settings));
    json_t *suppressed = json_array(), *hints = json_array();
    json_object_set_new(report, "findings",
                        findings(db, &settings, database_path, rules, suppressed, hints));
    json_object_set_new(report, "debug_info", hints);
    json_object_set_new(report, "suppressed", json_integer((json_int_t)json_array_size(suppressed)));
    json_object_set_new(report, "suppressed_findings", suppressed);
    json_object_set_new(report, "outcomes", report_outcome_counts(db));
    json_object_set_new(report, "leaks", report_leaks(db));
    json_object_set_new(report, "caller_crashes", caller_crashes(db));
    json_object_set_new(report, "boundary", boundary_summary(db, settings.returns));
    json_t *names = site_names(db, &settings);
    json_object_set_new(report, "runs", run_list(db, names));
    json_decref(names);
    if (settings.kernel) {
        kernelcov_prepare_report(db);
        json_object_set_new(report, "kernel", kernel_sweeps(db));
        json_object_set_new(report, "kernel_table", kernel_table(db));
    }
    campaign_settings_free(&settings);
    return report;
}

size_t report_bug_count(json_t *report)
{
    return json_array_size(json_object_get(report, "findings"));
}

static void print_stack(FILE *out, const char *title, json_t *stack)
{
    size_t index;
    json_t *entry;
    int number = 0;
    fprintf(out, "  %s:\n", title);
    json_array_foreach(stack, index, entry) {
        const char *function = json_string_value(json_object_get(entry, "function"));
        /* The dynamic linker's trampoline of the LD_AUDIT module (scoped campaigns) between the
           program and the library it called: not the program's own frame. */
        if (function && !strncmp(function, "_dl_runtime_profile", 19))
            continue;
        const char *file = json_string_value(json_object_get(entry, "file"));
        const char *module = json_string_value(json_object_get(entry, "module"));
        json_int_t line = json_integer_value(json_object_get(entry, "line"));
        bool inlined = json_is_true(json_object_get(entry, "inlined"));
        if (json_is_true(json_object_get(entry, "no_code"))) {
            fprintf(out, "    #%-2d no code at 0x%llx: called through a pointer that holds none\n",
                    number++, (unsigned long long)json_integer_value(json_object_get(entry, "offset")));
            continue;
        }
        fprintf(out, "    #%-2d %s%s", number, function, inlined ? " (inlined)" : "");
        if (file && *file)
            fprintf(out, " at %s:%lld\n", file, (long long)line);
        else
            fprintf(out, " in %s+0x%llx\n", module,
                    (unsigned long long)json_integer_value(json_object_get(entry, "offset")));
        if (!inlined)
            number++;
    }
}

/* "function at file:line", or "function (module+0xoffset)" without debug info. */
static void print_frame_place(FILE *out, json_t *frame)
{
    const char *file = json_string_value(json_object_get(frame, "file"));
    fprintf(out, "%s", string_of(frame, "function"));
    if (file && *file)
        fprintf(out, " at %s:%lld", file, (long long)json_integer_value(json_object_get(frame, "line")));
    else
        fprintf(out, " (%s+0x%llx)", string_of(frame, "module"),
                (unsigned long long)json_integer_value(json_object_get(frame, "offset")));
}

/* failrun kernel: "injected: kernel fail-nth 1 in pipe2() via pipe() -> ENFILE", or for a call
   armed past its last fault point (a finding of the kernel's own) "armed: ... beyond its fault
   points (nothing failed)". */
static void print_kernel_injection(FILE *out, json_t *finding)
{
    bool fired = json_is_true(json_object_get(finding, "kernel_fired"));
    fprintf(out, "  %s: kernel fail-nth %lld in %s()", fired ? "injected" : "armed",
            (long long)json_integer_value(json_object_get(finding, "kernel_nth")),
            string_of(finding, "function"));
    if (json_is_string(json_object_get(finding, "via")))
        fprintf(out, " via %s()", string_of(finding, "via"));
    if (!fired)
        fputs(", beyond its fault points (nothing failed)", out);
    else
        fprintf(out, " -> %s", json_is_string(json_object_get(finding, "errno"))
                                   ? string_of(finding, "errno") : "succeeded anyway");
}

static void print_finding(FILE *out, json_t *finding)
{
    json_t *location = json_object_get(finding, "location");
    const char *outcome = json_string_value(json_object_get(finding, "outcome"));
    const char *signal = json_string_value(json_object_get(finding, "signal_name"));
    const char *file = json_string_value(json_object_get(location, "file"));
    const char *sanitizer = json_string_value(json_object_get(finding, "sanitizer"));
    fprintf(out, "\nBUG %lld: %s%s%s%s", (long long)json_integer_value(json_object_get(finding, "id")),
            outcome, signal ? " (SIG" : "", signal ? signal : "", signal ? ")" : "");
    if (sanitizer)
        fprintf(out, ": %s", sanitizer);
    if (json_object_get(finding, "kernel_report"))
        fprintf(out, ": %s, during the armed call", string_of(finding, "kernel_report"));
    json_t *fault = json_object_get(finding, "fault");
    if (fault) { /* "in libc.so.6 (system library): f at file:line, reached from g at ..." */
        const char *module = string_of(fault, "module"), *base = strrchr(module, '/');
        fprintf(out, " in %s (system library): ", base ? base + 1 : module);
        print_frame_place(out, fault);
        fputs(", reached from ", out);
        print_frame_place(out, location);
        fputc('\n', out);
    } else {
        fputs(" at ", out);
        if (file && *file)
            fprintf(out, "%s:%lld", file, (long long)json_integer_value(json_object_get(location, "line")));
        else
            fprintf(out, "%s+0x%llx", string_of(location, "module"),
                    (unsigned long long)json_integer_value(json_object_get(location, "offset")));
        fprintf(out, " in %s\n", string_of(location, "function"));
    }
    if (json_object_get(finding, "leaked"))
        fprintf(out, "  leaked: %s\n", string_of(finding, "leaked"));
    bool armed_only = json_object_get(finding, "kernel_nth") &&
                      !json_is_true(json_object_get(finding, "kernel_fired"));
    if (json_object_get(finding, "kernel_nth"))
        print_kernel_injection(out, finding);
    else if (json_object_get(finding, "failpoint"))
        fprintf(out, "  injected: failpoint \"%s\"", string_of(finding, "failpoint"));
    else if (!strcmp(string_of(finding, "kind"), "io"))
        fprintf(out, "  injected: %s failed (%s)", string_of(finding, "function"),
                string_of(finding, "errno"));
    else
        fprintf(out, "  injected: %s(%lld)", string_of(finding, "function"),
                (long long)json_integer_value(json_object_get(finding, "size")));
    fprintf(out, " %s site %s", armed_only ? "at" : "failing at", string_of(finding, "site"));
    if (json_is_string(json_object_get(finding, "site_name")))
        fprintf(out, " (%s)", string_of(finding, "site_name"));
    fprintf(out, ", seen in %lld run(s)\n", (long long)json_integer_value(json_object_get(finding, "runs")));
    print_stack(out, "injection stack", json_object_get(finding, "injection_stack"));
    const char *kernel_log = json_string_value(json_object_get(finding, "kernel_log"));
    if (kernel_log) { /* the kernel's stack is in its own report */
        fputs("  kernel log while the call was armed:\n", out);
        for (const char *line = kernel_log; *line;) {
            const char *end = strchr(line, '\n');
            int length = end ? (int)(end - line) : (int)strlen(line);
            fprintf(out, "    %.*s\n", length, line);
            line = end ? end + 1 : line + length;
        }
    } else if (json_object_get(finding, "crash_stack")) {
        print_stack(out, "crash stack", json_object_get(finding, "crash_stack"));
    } else if (json_object_get(finding, "leaked_stack")) {
        print_stack(out, "leaked block allocated at", json_object_get(finding, "leaked_stack"));
    }
    fprintf(out, "  replay: %s\n", string_of(finding, "replay"));
}

static void print_kernel_allocation(FILE *out, json_t *call);

/* One line per system-call site: N -> errno (or "ok": the kernel absorbed it), outcome. */
static void print_kernel_sweeps(FILE *out, json_t *sweeps)
{
    if (!json_array_size(sweeps))
        return;
    fprintf(out, "\nkernel fail-nth, per system-call site (N: what the call returned, the run's outcome):\n");
    size_t index, n;
    json_t *sweep, *call;
    json_array_foreach(sweeps, index, sweep) {
        json_t *location = json_object_get(sweep, "location");
        const char *file = json_string_value(json_object_get(location, "file"));
        fprintf(out, "  %s()", string_of(sweep, "function"));
        if (json_is_string(json_object_get(sweep, "via")))
            fprintf(out, " via %s()", string_of(sweep, "via"));
        fputs(" at ", out);
        if (file && *file)
            fprintf(out, "%s:%lld", file, (long long)json_integer_value(json_object_get(location, "line")));
        else
            fprintf(out, "%s", string_of(location, "module"));
        fprintf(out, " [%s]:", string_of(sweep, "site"));
        json_array_foreach(json_object_get(sweep, "calls"), n, call) {
            long long nth = (long long)json_integer_value(json_object_get(call, "kernel_nth"));
            if (!json_is_true(json_object_get(call, "kernel_fired")))
                fprintf(out, " %lld beyond its fault points", nth);
            else
                fprintf(out, " %lld %s %s,", nth,
                        json_is_string(json_object_get(call, "errno")) ? string_of(call, "errno")
                                                                        : "ok",
                        string_of(call, "outcome"));
        }
        fputc('\n', out);
        json_array_foreach(json_object_get(sweep, "calls"), n, call)
            print_kernel_allocation(out, call);
    }
}

/* "    N=1: kmalloc at alloc_pipe_info+0x4d/0x150, 640 bytes (1024), GFP_KERNEL_ACCOUNT|__GFP_ZERO:
   too small to fail -> ENFILE" under its site's sweep. */
static void print_kernel_allocation(FILE *out, json_t *call)
{
    json_t *allocation = json_object_get(call, "allocation");
    if (!allocation)
        return;
    fprintf(out, "    N=%lld: %s at %s, %lld bytes (%lld), %s", 
            (long long)json_integer_value(json_object_get(call, "kernel_nth")),
            string_of(allocation, "kind"), string_of(allocation, "call_site"),
            (long long)json_integer_value(json_object_get(allocation, "bytes_req")),
            (long long)json_integer_value(json_object_get(allocation, "bytes_alloc")),
            string_of(allocation, "gfp_flags"));
    if (json_is_true(json_object_get(allocation, "via_page")))
        fputs(", its slab's pages failed", out);
    if (json_is_true(json_object_get(allocation, "too_small_to_fail")))
        fputs(": too small to fail", out);
    else
        fprintf(out, ": can fail (%s)", string_of(allocation, "can_fail"));
    fprintf(out, " -> %s\n", json_is_string(json_object_get(call, "errno")) ? string_of(call, "errno")
                                                                          : "ok");
}

/* The table of issue 14, one row per system call. */
static void print_kernel_table(FILE *out, json_t *rows)
{
    if (!json_array_size(rows))
        return;
    fprintf(out, "\nkernel fail-nth, per system call (too small to fail: Linux 6.1's page allocator "
                 "never returns that failure):\n"
                 "  system call | sites | fault points | named | too small to fail | kernel error-leg "
                 "lines | of them only via too-small-to-fail | userspace findings | kernel findings\n");
    size_t index;
    json_t *row;
    json_array_foreach(rows, index, row) {
        json_t *legs = json_object_get(row, "kernel_error_leg_lines");
        json_t *small = json_object_get(row, "error_leg_lines_only_too_small");
        char leg_text[32] = "needs KCOV", small_text[32] = "needs KCOV";
        if (json_is_integer(legs))
            snprintf(leg_text, sizeof leg_text, "%lld", (long long)json_integer_value(legs));
        if (json_is_integer(small))
            snprintf(small_text, sizeof small_text, "%lld", (long long)json_integer_value(small));
        fprintf(out, "  %s | %lld | %lld | %lld | %lld | %s | %s | %lld | %lld\n",
                string_of(row, "system_call"),
                (long long)json_integer_value(json_object_get(row, "sites")),
                (long long)json_integer_value(json_object_get(row, "fault_points")),
                (long long)json_integer_value(json_object_get(row, "allocations_named")),
                (long long)json_integer_value(json_object_get(row, "too_small_to_fail")),
                leg_text, small_text,
                (long long)json_integer_value(json_object_get(row, "userspace_findings")),
                (long long)json_integer_value(json_object_get(row, "kernel_findings")));
    }
}

/* "3 programs run alone for their sites; 1 program re-run within the whole command: t: why" */
static void print_programs(FILE *out, json_t *programs)
{
    json_int_t alone = json_integer_value(json_object_get(programs, "alone"));
    json_t *whole = json_object_get(programs, "whole_command");
    size_t count = json_array_size(whole), index;
    if (alone)
        fprintf(out, "  %lld program%s run alone for the sites %s own%s\n", (long long)alone,
                alone == 1 ? "" : "s", alone == 1 ? "it" : "they", alone == 1 ? "s" : "");
    if (!count)
        return;
    fprintf(out, "  %zu program%s re-run within the whole command:", count, count == 1 ? "" : "s");
    json_t *entry;
    json_array_foreach(whole, index, entry)
        fprintf(out, "%s %s: %s", index ? ";" : "", string_of(entry, "program"),
                string_of(entry, "reason"));
    fputc('\n', out);
}

/* "runtests forks at its sites: ...", "3,260 fork runs ended with their test case (srunner_run_all):
   38 passed, 3,222 failed" */
static void print_forks(FILE *out, json_t *forks)
{
    size_t index;
    json_t *note;
    json_array_foreach(json_object_get(forks, "notes"), index, note)
        fprintf(out, "  %s\n", json_string_value(note));
    json_t *cases = json_object_get(forks, "test_cases");
    json_int_t passed = json_integer_value(json_object_get(cases, "passed"));
    json_int_t failed = json_integer_value(json_object_get(cases, "failed"));
    if (!passed && !failed)
        return;
    fprintf(out, "  %lld fork run%s ended with %s test case (", (long long)(passed + failed),
            passed + failed == 1 ? "" : "s", passed + failed == 1 ? "its" : "their");
    json_array_foreach(json_object_get(cases, "functions"), index, note)
        fprintf(out, "%s%s", index ? ", " : "", json_string_value(note));
    fprintf(out, "): %lld passed, %lld failed\n", (long long)passed, (long long)failed);
}

/* "2 programs ran without libfail's preload, not covered: /bin/x (LD_PRELOAD cleared, 3 times)" */
static void print_unpreloaded(FILE *out, json_t *list)
{
    size_t count = json_array_size(list), index;
    if (!count)
        return;
    fprintf(out, "  %zu program%s ran without libfail's preload, so no run covers %s:", count,
            count == 1 ? "" : "s", count == 1 ? "it" : "them");
    json_t *entry;
    json_array_foreach(list, index, entry) {
        json_int_t times = json_integer_value(json_object_get(entry, "count"));
        fprintf(out, "%s %s (%s; %lld time%s)", index ? "," : "", string_of(entry, "program"),
                unpreloaded_reason_words(string_of(entry, "reason")), (long long)times,
                times == 1 ? "" : "s");
    }
    fputc('\n', out);
}

/* "scope: under test curl (1327 sites), sockfilt (1 site)" and, when there are some, "scope: not
   under test, the command's fixtures: sws (served a socket until it was stopped); --exe brings
   one back" */
static void print_scope(FILE *out, json_t *under_test, json_t *list)
{
    size_t index;
    json_t *entry;
    if (json_array_size(under_test)) {
        fputs("  scope: under test", out);
        json_array_foreach(under_test, index, entry) {
            if (index == 6) {
                fprintf(out, ", and %zu more", json_array_size(under_test) - index);
                break;
            }
            const char *exe = string_of(entry, "exe"), *base = strrchr(exe, '/');
            json_int_t sites = json_integer_value(json_object_get(entry, "sites"));
            fprintf(out, "%s %s (%lld site%s)", index ? "," : "", base ? base + 1 : exe,
                    (long long)sites, sites == 1 ? "" : "s");
        }
        fputc('\n', out);
    }
    if (!json_array_size(list))
        return;
    fputs("  scope: not under test, the command's fixtures:", out);
    json_array_foreach(list, index, entry) {
        const char *exe = string_of(entry, "exe"), *base = strrchr(exe, '/');
        fprintf(out, "%s %s (%s)", index ? "," : "", base ? base + 1 : exe, string_of(entry, "why"));
    }
    fputs("; --exe brings one back\n", out);
}

static int by_place(const void *a, const void *b)
{
    json_t *left = *(json_t *const *)a, *right = *(json_t *const *)b;
    int order = strcmp(string_of(left, "site_name"), string_of(right, "site_name"));
    return order ? order
                 : (json_integer_value(json_object_get(left, "id")) >
                    json_integer_value(json_object_get(right, "id"))) -
                       (json_integer_value(json_object_get(left, "id")) <
                        json_integer_value(json_object_get(right, "id")));
}

void report_print_sites(json_t *report, FILE *out)
{
    json_t *runs = json_object_get(report, "runs");
    size_t count = json_array_size(runs);
    json_t **sorted = xcalloc(count ? count : 1, sizeof *sorted);
    for (size_t i = 0; i < count; i++)
        sorted[i] = json_array_get(runs, i);
    qsort(sorted, count, sizeof *sorted, by_place);
    fprintf(out, "%zu fault run(s), by the place of the site each failed:\n", count);
    fprintf(out, "  %-16s  %-12s  %-7s  %s\n", "site", "outcome", "finding", "place");
    for (size_t i = 0; i < count; i++) {
        json_t *finding = json_object_get(sorted[i], "finding");
        char number[24] = "-";
        if (json_is_integer(finding))
            snprintf(number, sizeof number, "#%lld", (long long)json_integer_value(finding));
        fprintf(out, "  %-16s  %-12s  %-7s  %s\n", string_of(sorted[i], "site"),
                string_of(sorted[i], "outcome"), number, string_of(sorted[i], "site_name"));
    }
    free(sorted);
}

void report_print_text(json_t *report, FILE *out)
{
    json_t *campaign = json_object_get(report, "campaign");
    json_t *list = json_object_get(report, "findings");
    json_t *command = json_object_get(campaign, "command");
    fprintf(out, "failrun report:");
    size_t index;
    json_t *argument;
    json_array_foreach(command, index, argument) fprintf(out, " %s", json_string_value(argument));
    fprintf(out, "\n  %lld sites", (long long)json_integer_value(json_object_get(campaign, "sites")));
    if (json_integer_value(json_object_get(campaign, "io_sites")))
        fprintf(out, " (%lld of them I/O calls)",
                (long long)json_integer_value(json_object_get(campaign, "io_sites")));
    fprintf(out, ", %lld runs", (long long)json_integer_value(json_object_get(campaign, "runs")));
    json_t *wall = json_object_get(campaign, "wall_ms");
    if (json_is_integer(wall))
        fprintf(out, ", %.1f s", (double)json_integer_value(wall) / 1000.0);
    json_int_t extra = json_integer_value(json_object_get(campaign, "error_path_sites"));
    if (extra)
        fprintf(out, " (+%lld sites seen only on error paths)", (long long)extra);
    json_int_t outside = json_integer_value(json_object_get(campaign, "outside_source_sites"));
    if (outside)
        fprintf(out, " (%lld sites left out by --source %s)", (long long)outside,
                json_string_value(json_object_get(campaign, "source")));
    json_t *unexplored = json_object_get(campaign, "unexplored");
    if (json_object_size(unexplored)) {
        const char *reason;
        json_t *count;
        const char *separator = " (left unexplored, by reason:";
        json_object_foreach(unexplored, reason, count) {
            fprintf(out, "%s %s %lld", separator, reason, (long long)json_integer_value(count));
            separator = ",";
        }
        fputc(')', out);
    }
    json_int_t removed = json_integer_value(json_object_get(campaign, "kept_runs_removed"));
    if (removed)
        fprintf(out, " (--keep-runs: %lld older folders of runs without bugs removed, %.1f MB,"
                     " to keep at most %.1f MB)", (long long)removed,
                (double)json_integer_value(json_object_get(campaign, "kept_runs_removed_bytes")) /
                    (1 << 20),
                (double)json_integer_value(json_object_get(campaign, "keep_runs_bytes")) /
                    (1 << 20));
    json_int_t pending = json_integer_value(json_object_get(campaign, "runs_pending"));
    if (pending)
        fprintf(out, " (%lld runs not done yet: `failrun run` again resumes)", (long long)pending);
    fprintf(out, ", %zu finding(s)", json_array_size(list));
    json_int_t suppressed = json_integer_value(json_object_get(report, "suppressed"));
    if (suppressed)
        fprintf(out, " (suppressed: %lld)", (long long)suppressed);
    fputc('\n', out);
    json_int_t unreached = json_integer_value(json_object_get(campaign, "unreached"));
    if (unreached)
        fprintf(out, "  WARNING: %lld run(s) never reached the site they were to fail, which the "
                     "baseline reached: runs disturbed each other (-j N sharing files, folders "
                     "or ports) or the command does other things from run to run; these runs "
                     "say nothing of their sites (failrun exits 1; try -j1)\n",
                (long long)unreached);
    print_programs(out, json_object_get(campaign, "programs"));
    print_forks(out, json_object_get(campaign, "forks"));
    print_unpreloaded(out, json_object_get(campaign, "unpreloaded"));
    print_scope(out, json_object_get(campaign, "under_test"), json_object_get(campaign, "fixtures"));
    json_t *finding;
    json_array_foreach(list, index, finding) print_finding(out, finding);
    json_t *crash;
    json_array_foreach(json_object_get(report, "caller_crashes"), index, crash) {
        if (!index)
            fprintf(out, "\ncaller crashes: the caller's code (outside --source %s) using what "
                         "the code under test returned after the failure, or an assert at its "
                         "entry (not findings):\n",
                    json_string_value(json_object_get(campaign, "source")));
        fprintf(out, "  %lld run(s): ", (long long)json_integer_value(json_object_get(crash, "runs")));
        print_frame_place(out, json_object_get(crash, "location"));
        fprintf(out, " (first: site %s)\n", string_of(crash, "site"));
    }
    json_t *function;
    json_array_foreach(json_object_get(report, "boundary"), index, function) {
        if (!index)
            fputs("\nlibrary boundary: what the call into the code under test returned after the "
                  "failure (reported: the caller's reaction is not a finding):\n", out);
        fprintf(out, "  %s (error: %s, %s): reported %lld, swallowed %lld", string_of(function, "function"),
                string_of(function, "error"),
                json_is_true(json_object_get(function, "learned")) ? "learned" : "--returns",
                (long long)json_integer_value(json_object_get(function, "reported")),
                (long long)json_integer_value(json_object_get(function, "swallowed")));
        if (json_integer_value(json_object_get(function, "unknown")))
            fprintf(out, ", no convention %lld",
                    (long long)json_integer_value(json_object_get(function, "unknown")));
        const char *kind;
        json_t *count;
        const char *separator = "; caller reactions: ";
        json_object_foreach(json_object_get(function, "reactions"), kind, count) {
            fprintf(out, "%s%s %lld", separator, kind, (long long)json_integer_value(count));
            separator = ", ";
        }
        fputc('\n', out);
    }
    print_kernel_sweeps(out, json_object_get(report, "kernel"));
    print_kernel_table(out, json_object_get(report, "kernel_table"));
    json_t *hint;
    json_array_foreach(json_object_get(report, "debug_info"), index, hint)
        fprintf(out, "%sdebug info: %s\n", index ? "" : "\n", string_of(hint, "hint"));
    fprintf(out, "\noutcomes:");
    json_t *counts = json_object_get(report, "outcomes");
    const char *separator = "";
    for (int i = 0; i < OUTCOME_COUNT; i++) {
        if (!json_object_get(counts, outcome_name(i)))
            continue;
        fprintf(out, "%s %s %lld", separator, outcome_name(i),
                (long long)json_integer_value(json_object_get(counts, outcome_name(i))));
        separator = ",";
    }
    json_t *leaks = json_object_get(report, "leaks");
    fprintf(out, "; leaks confirmed in %lld run(s), %lld byte(s)\n",
            (long long)json_integer_value(json_object_get(leaks, "runs")),
            (long long)json_integer_value(json_object_get(leaks, "bytes")));
}
