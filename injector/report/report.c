/*
 * report.c — findings (deduplicated bugs) with symbolised injection and crash stacks, the replay
 * command of each, and counts per outcome. Symbolisation happens here, once per frame shown.
 */
#include "report/report.h"
#include "report/parts.h"
#include "verdict/boundary.h"
#include "kernel/kernelcov.h"
#include "kernel/kmem.h"
#include "kernel/ktitle.h"
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

/* The suite's fixtures left out of the default scope (environment.c, fixture_reason). */
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
   their test case (libfail/fork/testcase.c): {"notes": [...], "test_cases": {"passed": N,
   "failed": N, "functions": [...]}}. */
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
    /* Error-path sites that got no run of their own, by reason (planner.c). */
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
            json_object_set_new(finding, "kind",
                                json_string(kind ? kind : fault_kind_name(KIND_ALLOC)));
            if (fault_kind_from_name(kind) == KIND_IO)
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
            /* The kernel's own report: its title (ktitle.h), then the log of the armed call. */
            char *title = kernel_report_title(detail);
            json_object_set_new(finding, "kernel_report", json_string(title ? title : "?"));
            json_object_set_new(finding, "kernel_log", json_string(detail));
            free(title);
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
        if (fault_kind_from_name(kind) == KIND_IO)
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
        json_object_set_new(report, "kernel_census", kernel_census(db));
        json_t *campaign = json_object_get(report, "campaign");
        json_object_set_new(campaign, "system_calls", kernel_calls(db));
        json_object_set_new(campaign, "policy",
                            json_string(settings.policy_realistic ? "realistic" : "all"));
    }
    campaign_settings_free(&settings);
    return report;
}

size_t report_bug_count(json_t *report)
{
    return json_array_size(json_object_get(report, "findings"));
}
