/*
 * text.c — the report as text: the findings with their stacks, the tables of the kernel and of
 * the programs, and the runs by the place of their sites (the model is report.c's).
 */
#include "report/report.h"
#include "report/parts.h"
#include "verdict/classify.h"
#include "store/database.h"
#include "store/ingest.h"

#include <string.h>

static void print_stack(FILE *out, const char *title, json_t *stack)
{
    size_t index;
    json_t *entry;
    int number = 0;
    fprintf(out, "  %s:\n", title);
    json_array_foreach(stack, index, entry) {
        const char *function = json_string_value(json_object_get(entry, "function"));
        /* The trampoline of the LD_AUDIT module (scoped campaigns) between the program and the
           library it called: not the program's own frame. libfail's since the module binds calls
           to it (libfail/boundary.c), the dynamic linker's in a campaign of an older failrun. */
        if (function && (!strncmp(function, "_dl_runtime_profile", 19) ||
                         !strcmp(function, "boundary_trampoline")))
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
    else if (fault_kind_from_name(string_of(finding, "kind")) == KIND_IO)
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

/* The census per kernel subsystem (--kcov). Under --policy realistic every failure is one the
   allocator can return: the lines are those a too-small-to-fail rule keeps. */
static void print_kernel_census(FILE *out, json_t *rows, bool realistic)
{
    if (!json_array_size(rows))
        return;
    if (realistic)
        fprintf(out, "\nkernel error legs per subsystem that a realistic allocator still reaches "
                     "(--policy realistic: the error legs a too-small-to-fail rule keeps):\n");
    else
        fprintf(out, "\nkernel error legs per subsystem (too small to fail: Linux 6.1's page "
                     "allocator never returns that failure; can happen: a failure it can "
                     "return):\n");
    fprintf(out,
                 "  subsystem | error-leg lines | of them only via too-small-to-fail | reached by a "
                 "failure that can happen\n");
    size_t index;
    json_t *row;
    json_array_foreach(rows, index, row)
        fprintf(out, "  %s | %lld | %lld | %lld\n", string_of(row, "subsystem"),
                (long long)json_integer_value(json_object_get(row, "error_leg_lines")),
                (long long)json_integer_value(json_object_get(row, "only_too_small")),
                (long long)json_integer_value(json_object_get(row, "can_fail")));
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
    json_int_t every = json_integer_value(json_object_get(programs, "every_start_runs"));
    if (every)
        fprintf(out, "  --every-start: %lld more run%s, each a site failed in another program that "
                "reached it\n", (long long)every, every == 1 ? "" : "s");
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
    bool realistic = !strcmp(string_of(campaign, "policy"), "realistic");
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
    json_int_t bookkeeping = json_integer_value(json_object_get(campaign, "bookkeeping_sites"));
    if (bookkeeping)
        fprintf(out, " (%lld sites of allocation wrappers' own bookkeeping not failed: %s;"
                     " --fail-bookkeeping fails them)",
                (long long)bookkeeping,
                json_string_value(json_object_get(campaign, "bookkeeping_functions")));
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
    json_t *calls = json_object_get(campaign, "system_calls");
    if (calls)
        fprintf(out, "  system calls: %lld with sites, %lld of them swept\n",
                (long long)json_integer_value(json_object_get(calls, "with_sites")),
                (long long)json_integer_value(json_object_get(calls, "swept")));
    if (realistic)
        fprintf(out, "  policy realistic: the kernel counted as fault points only allocations "
                     "without direct reclaim and page allocations above order 3, failures its "
                     "allocator can return (NORETRY and RETRY_MAYFAIL requests that may reclaim, "
                     "of order 3 or less, were never failed)\n");
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
    print_kernel_census(out, json_object_get(report, "kernel_census"), realistic);
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
