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
#include "store/findings.h"
#include "store/forks.h"
#include "store/sitequery.h"
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
struct program_counts {
    json_int_t alone;
    json_t *whole;
};

static void count_program(void *context, const struct store_program_alone *row)
{
    struct program_counts *counts = context;
    if (!strcmp(row->alone, "yes")) {
        counts->alone++;
        return;
    }
    char **argv = strings_from_blob(row->argv, row->argv_bytes);
    char *name = program_title(row->exe, argv);
    json_array_append_new(counts->whole,
                          json_pack("{s:s, s:s}", "program", name, "reason", row->alone));
    free(name);
    environment_free(argv);
}

static json_t *program_summary(sqlite3 *db)
{
    json_t *programs = json_object();
    struct program_counts counts = {0, json_array()};
    store_programs_alone_each(db, count_program, &counts);
    json_object_set_new(programs, "alone", json_integer(counts.alone));
    json_object_set_new(programs, "whole_command", counts.whole);
    json_object_set_new(programs, "every_start_runs",
                        json_integer(store_every_start_runs_count(db)));
    return programs;
}

/* The programs the baseline started without libfail's preload, with why and how often: the
   campaign covers none of their sites (libfail/execenv.c). */
static json_t *unpreloaded_programs(sqlite3 *db)
{
    return store_unpreloaded_rows(db);
}

/* The suite's fixtures left out of the default scope (environment.c, fixture_reason). */
static json_t *fixture_list(sqlite3 *db)
{
    return store_fixture_rows(db);
}

/* The executables whose sites the campaign fails, with how many each: [{"exe", "sites"}]. */
static json_t *programs_under_test(sqlite3 *db)
{
    return store_sites_per_exe(db);
}

/* The counts per verdict ("passed", "failed") and the functions, each once (rows come by
   function). */
struct test_cases {
    json_t *cases, *functions;
};

static void count_test_case(void *context, const char *verdict, const char *function,
                            int64_t runs)
{
    struct test_cases *into = context;
    json_t *count = json_object_get(into->cases, verdict);
    if (count)
        json_integer_set(count, json_integer_value(count) + runs);
    size_t size = json_array_size(into->functions);
    if (!size || strcmp(json_string_value(json_array_get(into->functions, size - 1)), function))
        json_array_append_new(into->functions, json_string(function));
}

/* Which processes forked at their sites and why (forkrun.c), and the fork runs that ended with
   their test case (libfail/fork/testcase.c): {"notes": [...], "test_cases": {"passed": N,
   "failed": N, "functions": [...]}}. */
static json_t *fork_summary(sqlite3 *db)
{
    json_t *notes = json_array();
    char *text = store_fork_note(db);
    if (text) {
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            json_array_append_new(notes, json_string(line));
        free(text);
    }
    json_t *cases = json_object(), *functions = json_array();
    json_object_set_new(cases, "passed", json_integer(0));
    json_object_set_new(cases, "failed", json_integer(0));
    store_test_cases_each(db, count_test_case, &(struct test_cases){cases, functions});
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
    struct store_campaign_counts counts;
    if (store_campaign_counts(db, &counts)) {
        json_object_set_new(campaign, "sites", json_integer(counts.sites));
        json_object_set_new(campaign, "runs", json_integer(counts.runs));
        json_object_set_new(campaign, "runs_pending", json_integer(counts.runs_pending));
        json_object_set_new(campaign, "wall_ms",
                            counts.has_wall_ms ? json_integer(counts.wall_ms) : json_null());
        json_object_set_new(campaign, "baseline_exit", json_integer(counts.baseline_exit));
        json_object_set_new(campaign, "error_path_sites", json_integer(counts.error_path_sites));
        json_object_set_new(campaign, "io_sites", json_integer(counts.io_sites));
        json_object_set_new(campaign, "faults", json_string(counts.faults));
        /* --source: sites recorded but left out of the campaign (source.c) */
        json_object_set_new(campaign, "source", json_string(counts.source));
        json_object_set_new(campaign, "outside_source_sites",
                            json_integer(counts.outside_source_sites));
        /* sites an allocation wrapper allocates for itself, never failed (source.h) */
        json_object_set_new(campaign, "bookkeeping_sites", json_integer(counts.bookkeeping_sites));
        json_object_set_new(campaign, "bookkeeping_functions",
                            json_string(counts.bookkeeping ? counts.bookkeeping : ""));
        json_object_set_new(campaign, "fail_bookkeeping", json_boolean(counts.fail_bookkeeping));
    }
    store_campaign_counts_free(&counts);
    /* Error-path sites that got no run of their own, by reason (planner.c). */
    json_object_set_new(campaign, "unexplored", store_unexplored_counts(db));
    /* First runs of a site the baseline reached, whose fault never fired: the runs disturbed
       each other (two at once sharing files or ports) or the command does other things from
       run to run. Such a run says nothing of its site; the campaign is not to be trusted as is.
       Under --policy nofail a site too small to fail is never failed by design, and a kernel
       campaign's run whose fail-nth counter never reached 0 ends the site's sweep. */
    json_object_set_new(campaign, "unreached", json_integer(store_unreached_count(db)));
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
    struct store_program_command start;
    char *words = NULL;
    if (store_program_command(db, owner, &start)) {
        char **argv = start.argv;
        if (!argv[0]) { /* no arguments at all: not a start failrun can repeat */
            store_program_command_free(&start);
            return NULL;
        }
        free(argv[0]); /* the executable itself: argv[0] may name it through PATH or a link */
        argv[0] = start.exe;
        start.exe = NULL;
        char *cwd = shell_quote(start.cwd);
        char *command = shell_join(argv);
        words = xstrdup(command);
        *folder = xasprintf(" --cwd %s", cwd);
        const char *path = start.stdin_path;
        char *quoted = path ? shell_quote(path) : NULL;
        *input = quoted ? xasprintf(" < %s", quoted) : xstrdup("");
        free(quoted);
        free(command);
        free(cwd);
    }
    store_program_command_free(&start);
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

static const char *entry_text(json_t *stack, int index, const char *key)
{
    return json_string_value(json_object_get(json_array_get(stack, (size_t)index), key));
}

/* The entry a site is named after: the first own one, or past it when it is in an allocation
   wrapper (source.h), and past each wrapper that called it; *through names the wrapper the
   named entry called (NULL when none). A wrapper called back by another module (zlib's
   inflateInit2 calling the zalloc that curl gave it, which calls curl_dbg_calloc) passed the
   failure to that library, which returned it to the wrapper's module: the entry named is the
   first one back there (curl's call of inflateInit2), through the library's function it
   called. */
static int named_entry(json_t *stack, const char *wrappers, const char **through)
{
    int own = first_own_entry(stack);
    *through = NULL;
    while (own >= 0 && (size_t)own + 1 < json_array_size(stack)) {
        const char *function = entry_text(stack, own, "function");
        if (!wrapper_named(function, wrappers))
            break;
        *through = function;
        own++;
    }
    const char *home = *through ? entry_text(stack, own - 1, "module") : NULL;
    const char *here = *through ? entry_text(stack, own, "module") : NULL;
    if (!home || !here || !strcmp(home, here))
        return own;
    for (int back = own + 1; (size_t)back < json_array_size(stack); back++) {
        const char *module = entry_text(stack, back, "module");
        if (module && !strcmp(module, home)) {
            *through = entry_text(stack, back - 1, "function");
            return back;
        }
    }
    return own;
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

/* What each finding of findings() is built with, and where it goes. */
struct finding_context {
    sqlite3 *db;
    const struct campaign_settings *settings;
    const char *database_path;
    const struct suppressions *rules;
    struct symboliser *symboliser;
    struct module_map map;
    char *wrappers;
    json_t *list, *suppressed, *hints;
};

static void add_finding(void *context, const struct store_finding *row)
{
    struct finding_context *c = context;
    sqlite3 *db = c->db;
    const struct campaign_settings *settings = c->settings;
    struct symboliser *symboliser = c->symboliser;
    const char *wrappers = c->wrappers;
    json_t *finding = json_object();
    const char *outcome = row->outcome;
    const char *site = row->site;
    int signal = row->signal;
    json_object_set_new(finding, "id", json_integer(row->id));
    json_object_set_new(finding, "outcome", json_string(outcome));
    if (signal) {
        json_object_set_new(finding, "signal", json_integer(signal));
        json_object_set_new(finding, "signal_name", json_string(sigabbrev_np(signal)));
    }
    json_object_set_new(finding, "site", json_string(site));
    json_t *function, *max_size;
    json_t *injection = site_stack(db, symboliser, &c->map, site, &function, &max_size);
    json_object_set_new(finding, "function", function);
    json_object_set_new(finding, "size", max_size);
    json_object_set_new(finding, "site_name", site_title(injection, wrappers));
    char *failpoint, *kind;
    if (store_site_name_kind(db, site, &failpoint, &kind)) {
        if (failpoint)
            json_object_set_new(finding, "failpoint", json_string(failpoint));
        json_object_set_new(finding, "kind",
                            json_string(kind ? kind : fault_kind_name(KIND_ALLOC)));
        if (fault_kind_from_name(kind) == KIND_IO)
            set_io_errno(finding, json_string_value(json_object_get(finding, "function")));
    }
    free(failpoint);
    free(kind);
    struct frame_list frames = {0};
    frames_from_json(row->frames, &frames);
    json_t *evidence = symbolise_stack(symboliser, &c->map, &frames);
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
    json_t *library = leak && site ? system_leak_fault(db, symboliser, &c->map, site, &frames)
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
    json_object_set_new(finding, "runs", json_integer(row->runs));
    const char *detail = row->detail;
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
    if (row->has_bytes)
        json_object_set_new(finding, "bytes", json_integer(row->bytes));
    const char *chain = row->chain;
    const char *plan = row->plan;
    if (chain && strchr(chain, ','))
        json_object_set_new(finding, "chain", json_string(chain));
    if (settings->kernel) {
        /* The exact N matters: replay the run's plan, and say what the call returned. */
        chain = NULL;
        kernel_detail(db, row->first_run, finding);
        json_object_set_new(finding, "via",
                            syscall_via(symboliser, injection,
                                        json_string_value(json_object_get(finding, "function"))));
    }
    char *replay = replay_command(db, settings, chain, plan, c->database_path, row->owner);
    json_object_set_new(finding, "replay", json_string(replay));
    free(replay);
    const char *rule = suppressed_by(c->rules, outcome, evidence);
    if (rule) {
        json_object_set_new(finding, "suppressed_by", json_string(rule));
        json_array_append_new(c->suppressed, finding);
    } else {
        add_debug_hint(symboliser, json_object_get(finding, "location"), c->hints);
        if (json_object_get(finding, "fault"))
            add_debug_hint(symboliser, json_object_get(finding, "fault"), c->hints);
        json_array_append_new(c->list, finding);
    }
}

static json_t *findings(sqlite3 *db, const struct campaign_settings *settings,
                        const char *database_path, const struct suppressions *rules,
                        json_t *suppressed, json_t *hints)
{
    struct finding_context c = {.db = db, .settings = settings, .database_path = database_path,
                                .rules = rules, .symboliser = symboliser_new(),
                                .list = json_array(), .suppressed = suppressed, .hints = hints};
    module_map_load(db, &c.map);
    c.wrappers = wrappers_find(db, c.symboliser, settings->wrappers);
    store_findings_each(db, add_finding, &c);
    module_map_free(&c.map);
    symboliser_free(c.symboliser);
    free(c.wrappers);
    return c.list;
}

/* A known outcome's count of runs (not a name an older failrun wrote). */
static void count_outcome(void *context, const char *name, int64_t runs)
{
    if (name && outcome_from_name(name) >= 0)
        json_object_set_new(context, name, json_integer(runs));
}

json_t *report_outcome_counts(sqlite3 *db)
{
    json_t *counts = json_object();
    for (int i = 0; i < OUTCOME_COUNT; i++)
        if (i != OUTCOME_LEAK && i != OUTCOME_KERNEL) /* findings' kinds, not runs' outcomes */
            json_object_set_new(counts, outcome_name(i), json_integer(0));
    store_outcome_counts_each(db, count_outcome, counts);
    return counts;
}

/* Runs whose leak LeakSanitizer's scan confirmed, and the bytes they leaked. */
static json_t *report_leaks(sqlite3 *db)
{
    int64_t runs, bytes;
    store_leak_totals(db, &runs, &bytes);
    json_t *leaks = json_object();
    json_object_set_new(leaks, "runs", json_integer(runs));
    json_object_set_new(leaks, "bytes", json_integer(bytes));
    return leaks;
}

/* The library boundary (judge.c): per function of the code under test that a fault fired in,
   the error report its convention implies, and what the runs' calls returned: reported (with the
   callers' reactions by kind) or swallowed. */
struct boundary_context {
    const char *rules;
    json_t *functions;
};

static void add_api_function(void *context, const struct store_api_calls *row)
{
    struct boundary_context *c = context;
    const char *function = row->function;
    json_t *reactions = json_object();
    json_t *list = json_loads(row->reactions, 0, NULL);
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
        c->functions,
        json_pack("{s:s, s:s, s:b, s:I, s:I, s:I, s:o}", "function", function, "error",
                  api_convention(c->rules, function, row->seen), "learned",
                  !api_convention_is_rule(c->rules, function), "reported",
                  (json_int_t)row->reported, "swallowed", (json_int_t)row->swallowed, "unknown",
                  (json_int_t)row->unknown, "reactions", reactions));
}

static json_t *boundary_summary(sqlite3 *db, const char *rules)
{
    struct boundary_context c = {rules, json_array()};
    store_api_calls_each(db, add_api_function, &c);
    return c.functions;
}

/* Runs that crashed in code outside the campaign's --source (judge.c: a caller using what the
   library returned), grouped by where: [{location, runs, site}], most runs first. Not findings,
   but shown, so a reader can check the callers' code (and the judgement). */
/* The caller crashes grouped so far, by "function file:line"; symbolising starts with the first
   crash. */
struct crash_groups {
    sqlite3 *db;
    json_t *groups, *list;
    struct symboliser *symboliser;
    struct module_map map;
};

static void add_caller_crash(void *context, const char *crash_frames, const char *site)
{
    struct crash_groups *c = context;
    if (!c->symboliser) {
        c->symboliser = symboliser_new();
        module_map_load(c->db, &c->map);
    }
    struct frame_list frames = {0};
    frames_from_json(crash_frames, &frames);
    json_t *stack = symbolise_stack(c->symboliser, &c->map, &frames);
    json_t *location = stack_location(stack);
    json_decref(stack);
    char *key = xasprintf("%s %s:%lld", string_of(location, "function"),
                          string_of(location, "file"),
                          (long long)json_integer_value(json_object_get(location, "line")));
    json_t *group = json_object_get(c->groups, key);
    if (!group) {
        group = json_pack("{s:O, s:i, s:s}", "location", location, "runs", 0, "site",
                          site ? site : "");
        json_object_set_new(c->groups, key, group);
        json_array_append(c->list, group);
    }
    json_object_set_new(group, "runs",
                        json_integer(json_integer_value(json_object_get(group, "runs")) + 1));
    json_decref(location);
    free(key);
}

static json_t *caller_crashes(sqlite3 *db)
{
    struct crash_groups c = {.db = db, .groups = json_object(), .list = json_array()};
    store_caller_crashes_each(db, add_caller_crash, &c);
    if (c.symboliser) {
        module_map_free(&c.map);
        symboliser_free(c.symboliser);
    }
    json_decref(c.groups);
    json_t *list = c.list;
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
struct name_context {
    sqlite3 *db;
    struct symboliser *symboliser;
    struct module_map map;
    char *wrappers;
    json_t *names;
};

static void name_site(void *context, const char *site)
{
    struct name_context *c = context;
    json_t *function, *max_size;
    json_t *stack = site_stack(c->db, c->symboliser, &c->map, site, &function, &max_size);
    json_object_set_new(c->names, site, site_title(stack, c->wrappers));
    json_decref(stack);
    json_decref(function);
    json_decref(max_size);
}

static json_t *site_names(sqlite3 *db, const struct campaign_settings *settings)
{
    struct name_context c = {.db = db, .symboliser = symboliser_new()};
    module_map_load(db, &c.map);
    c.wrappers = wrappers_find(db, c.symboliser, settings->wrappers);
    c.names = json_object();
    store_fault_sites_each(db, name_site, &c);
    free(c.wrappers);
    module_map_free(&c.map);
    symboliser_free(c.symboliser);
    return c.names;
}

struct run_context {
    json_t *names, *list;
};

static void add_run(void *context, const struct store_fault_run *row)
{
    struct run_context *c = context;
    json_t *run = json_object();
    json_object_set_new(run, "id", json_integer(row->id));
    const char *columns[] = {"site", "chain", "plan", "outcome"};
    const char *texts[] = {row->site, row->chain, row->plan, row->outcome};
    for (int i = 0; i < 4; i++)
        json_object_set_new(run, columns[i], texts[i] ? json_string(texts[i]) : json_null());
    json_t *name = json_object_get(c->names, string_of(run, "site"));
    json_object_set(run, "site_name", name ? name : json_null());
    json_object_set_new(run, "wall_ms", json_integer(row->wall_ms));
    json_object_set_new(run, "exit_code", json_integer(row->exit_code));
    json_object_set_new(run, "signal", json_integer(row->signal));
    json_object_set_new(run, "finding",
                        row->has_finding ? json_integer(row->finding) : json_null());
    const char *function = row->function;
    json_object_set_new(run, "function", json_string(function ? function : "?"));
    json_object_set_new(run, "size", json_integer(row->max_size));
    const char *kind = row->kind;
    json_object_set_new(run, "kind", kind ? json_string(kind) : json_null());
    if (fault_kind_from_name(kind) == KIND_IO)
        set_io_errno(run, function);
    json_array_append_new(c->list, run);
}

static json_t *run_list(sqlite3 *db, json_t *names)
{
    struct run_context c = {names, json_array()};
    store_fault_runs_each(db, add_run, &c);
    return c.list;
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
