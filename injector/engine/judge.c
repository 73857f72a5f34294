/*
 * judge.c — what a fault run's program did: the target fault, the process that had it, how it
 * ended (exit status against the same process of the baseline, crash and sanitizer stacks, live
 * blocks against the baseline's), the outcome, and the deduplicated finding.
 */
#include "symbols/source.h"
#include "verdict/boundary.h"
#include "engine/campaign_run.h"
#include "engine/forkrun.h"
#include "verdict/policy.h"
#include "store/database.h"
#include "store/runs.h"
#include "format/plan.h"
#include "format/text.h"
#include "kernel/kernelcov.h"
#include "kernel/kernelrun.h"
#include "kernel/kmem.h"
#include "kernel/ktitle.h"
#include "verdict/sanitizer.h"
#include "symbols/symbolise.h"
#include "base/util.h"

#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* ---- fault runs ---- */

/* Function identity of a frame: its module and the start of the function that holds it (a
   symbol's, or the .eh_frame entry's on stripped code), the address itself when neither knows. */
struct function_id {
    uint64_t module, start;
};

static struct function_id function_of(struct campaign_context *context,
                                      const struct record_frame *frame)
{
    const char *path = module_map_path(&context->modules, frame->module);
    uint64_t start = 0;
    /* Every stored frame reads as a return address (a fault's pc is stored + 1). */
    if (!path || !symboliser_function(context->symbols, path, frame->offset, true, &start, NULL, 0))
        start = frame->offset;
    return (struct function_id){frame->module, start};
}

static bool same_function(struct function_id a, struct function_id b)
{
    return a.module == b.module && a.start == b.start;
}

uint64_t exploration_key(struct campaign_context *context, const struct frame_list *frames)
{
    int own = first_own_frame(&context->modules, frames);
    if (own < 0)
        return hash_bytes(3, frames->frames, (size_t)frames->count * sizeof *frames->frames);
    /* The allocation call and the call of the function that made it: two levels tell the
       callers of an allocation wrapper (xmalloc) apart; the rest of the path does not make an
       allocation new (measured on the realworld corpus: 4,054 -> 3,156 runs, no finding lost). */
    uint64_t words[4] = {frames->frames[own].module, frames->frames[own].offset, 0, 0};
    for (int i = own + 1; i < frames->count; i++) {
        if (module_is_plumbing(module_map_path(&context->modules, frames->frames[i].module)))
            continue;
        words[2] = frames->frames[i].module;
        words[3] = frames->frames[i].offset;
        break;
    }
    return hash_bytes(3, words, sizeof words);
}

static bool frames_equal(const struct record_frame *a, const struct record_frame *b)
{
    return a->module == b->module && a->offset == b->offset;
}

/* Is the function of this frame an allocation function by its name: one the campaign takes for
   an allocation wrapper (--wrapper, or found: source.h), or one named like an allocator
   (Tcl_Alloc, xmalloc, g_malloc)? Stripped code has no such name. */
static bool allocator_named(struct campaign_context *context, const struct record_frame *frame)
{
    const char *path = module_map_path(&context->modules, frame->module);
    char name[256];
    if (!path || !symboliser_function(context->symbols, path, frame->offset, true, NULL, name,
                                      sizeof name))
        return false;
    if (wrapper_name_pattern(name))
        return true;
    if (!context->wrapper_names)
        context->wrapper_names = wrappers_find(context->db, context->symbols,
                                               context->options->settings.wrappers);
    return wrapper_named(name, context->wrapper_names);
}

/* Did the process end (exit, or abort) in the activation of the function whose allocation failed
   or of the one that called it, rather than after the failure was passed further up? That is a
   program's own out-of-memory exit: xmalloc printing and exiting, or a caller that gets NULL
   from its allocation wrapper and calls its panic helper. Judged by function identity (the
   ending stack holds a frame of that function) plus the activation's callers (the return
   addresses below it equal the injection stack's), so it works on stripped binaries too.
   Higher up, an activation counts while its function is an allocation function by name: a
   library's allocator layered two or more deep panics in its public entry (Tcl_Alloc ->
   TclpAlloc -> GetBlocks -> malloc; Tcl_Alloc calls Tcl_Panic("unable to alloc %u bytes")),
   a designed out-of-memory abort, not a crash. */
static bool ended_in_caller(struct campaign_context *context, const struct run_records *records,
                            const struct frame_list *injection)
{
    int caller = first_own_frame(&context->modules, injection);
    if (caller < 0)
        return false;
    for (int level = caller; level < injection->count; level++) {
        /* The caller's caller counts only as the program's own code: main's return into libc
           is an ordinary error exit, not a panic helper. */
        if (level > caller &&
            module_is_plumbing(module_map_path(&context->modules, injection->frames[level].module)))
            break;
        if (level > caller + 1 && (injection->frames[level].module !=
                                       injection->frames[level - 1].module ||
                                   !allocator_named(context, &injection->frames[level])))
            break;
        struct function_id function = function_of(context, &injection->frames[level]);
        const struct record_frame *below = &injection->frames[level + 1];
        int below_count = injection->count - level - 1;
        if (below_count == 0)
            break; /* the stack was cut here: nothing tells this activation from another */
        for (size_t i = 0; i < records->processes.count; i++) {
            const struct ingest_process *process = &records->processes.items[i];
            if (!process->faulted)
                continue;
            const struct frame_list *ending =
                process->signal ? &process->crash_stack : &process->exit_stack;
            for (int j = 0; j < ending->count; j++) {
                if (ending->frames[j].module != function.module)
                    continue;
                bool same = same_function(function_of(context, &ending->frames[j]), function);
                int k = 0;
                while (k < below_count && j + 1 + k < ending->count &&
                       frames_equal(&below[k], &ending->frames[j + 1 + k]))
                    k++;
                if (same && (k == below_count || (k > 0 && j + 1 + k == ending->count)))
                    return true;
                /* Another function start, but the very same callers down to the end of both
                   stacks: the activation's cold part (gcc moves unlikely code, an abort() after
                   a failed call, into a separate .cold range with an .eh_frame entry of its
                   own: grep's GEAcompile aborting when regex_compile fails), or a function it
                   tail-called. The callers must all match (the injection's stack may be cut
                   below them, at --depth). */
                if (!same && k == below_count)
                    return true;
            }
        }
    }
    return false;
}

/* The function a finding is keyed by. A function whose debug info names it and its source file
   is the same function in every module that file was compiled into — the library and a test
   program that #includes its .c, or a static library linked into several programs — so it is
   keyed by name and source file (the symboliser normalises paths); otherwise by module and
   start (function_of), which also tells stripped code's functions apart. */
static struct function_id finding_function(struct campaign_context *context,
                                           const struct record_frame *frame)
{
    const char *path = module_map_path(&context->modules, frame->module);
    struct symbol_frame symbol[8];
    int n = path ? symboliser_lookup(context->symbols, path, frame->offset, true, symbol, 8) : 0;
    if (n < 1 || !symbol[n - 1].file[0] || !strcmp(symbol[n - 1].function, "??"))
        return function_of(context, frame);
    const struct symbol_frame *function = &symbol[n - 1]; /* the out-of-line one */
    return (struct function_id){hash_bytes(5, function->file, strlen(function->file)),
                                hash_bytes(5, function->function, strlen(function->function))};
}

/* The frame past `own` and the allocation wrappers (source.h) from it outwards, while a caller
   follows: leaks of blocks that jsonp_malloc allocated for two functions are two findings, and
   curl_dbg_strdup's through curl_dbg_malloc are its callers'. */
static int past_wrapper(struct campaign_context *context, const struct frame_list *frames, int own)
{
    if (!context->wrapper_names)
        context->wrapper_names = wrappers_find(context->db, context->symbols,
                                               context->options->settings.wrappers);
    while (own + 1 < frames->count) {
        const char *path = module_map_path(&context->modules, frames->frames[own].module);
        char name[256];
        if (!path || !symboliser_function(context->symbols, path, frames->frames[own].offset,
                                          true, NULL, name, sizeof name) ||
            !wrapper_named(name, context->wrapper_names))
            break;
        own++;
    }
    return own;
}

/* The deduplication key of a bug: the function where it went wrong (the first frame that is not
   failrun's or a sanitizer's runtime, which may lie in the C library) and the function of the
   program's own code it was reached from; for an abort, a leak or wrong output both are the
   program's frame (glibc aborts for its caller; a leak is where the block was allocated; wrong
   output is where the failure was ignored). One faulty error leg
   reached from many sites is one finding seen in many runs; two functions are two findings.
   A leak inside a system library (system_leak_frame, source.h) is keyed by the library's
   function that lost it, `library` its frame in the evidence (-1: none). */
static char *finding_key_at(struct campaign_context *context, enum outcome outcome, int signal,
                            const struct frame_list *evidence, int library)
{
    if (evidence->count == 0)
        return xasprintf("%s:%d", outcome_name(outcome), signal);
    int own = first_own_frame(&context->modules, evidence);
    if (own < 0)
        own = 0;
    own = past_wrapper(context, evidence, own);
    int fault = own;
    /* A call through a pointer that holds no code: where it was called from, whatever the
       address (frame 0 lies in no module). */
    int first = evidence->count > 1 && evidence->frames[0].module == 0 ? 1 : 0;
    if (signal != SIGABRT && outcome != OUTCOME_LEAK && outcome != OUTCOME_SILENT)
        for (int i = first; i < evidence->count; i++)
            if (!module_is_tool(module_map_path(&context->modules, evidence->frames[i].module))) {
                fault = i;
                break;
            }
    if (outcome == OUTCOME_LEAK && library >= 0 && library < evidence->count)
        fault = library;
    /* Wrong output of a test program started alone (owner.c; the command's own wrong output is
       deduplicated by that output: record_finding): the function whose allocation failed, and
       the entry into its module that the test called (the outermost frame of that module): one
       bug per API path, whatever each test program prints. printbuf_extend failing under
       json_tokener_parse_ex and under json_object_to_json_string are two bugs; under a test
       calling printbuf_memappend itself, which returns -1, a third finding, of the test. */
    int entry = own;
    if (outcome == OUTCOME_SILENT || outcome == OUTCOME_SWALLOWED)
        while (entry + 1 < evidence->count &&
               evidence->frames[entry + 1].module == evidence->frames[own].module)
            entry++;
    struct function_id where = finding_function(context, &evidence->frames[fault]);
    struct function_id from = finding_function(context, &evidence->frames[entry]);
    return xasprintf("%s:%d:%016llx+%llx@%016llx+%llx", outcome_name(outcome), signal,
                     (unsigned long long)where.module, (unsigned long long)where.start,
                     (unsigned long long)from.module, (unsigned long long)from.start);
}

static char *finding_key(struct campaign_context *context, enum outcome outcome, int signal,
                         const struct frame_list *evidence)
{
    return finding_key_at(context, outcome, signal, evidence, -1);
}

/* A module named only by a sanitizer's report: found by path, or added under the id the preload
   gives a module without build-id, so symbolisation can find the file. */
static uint64_t module_for_path(struct campaign_context *context, const char *path)
{
    /* A name the sanitizer shortened (strip_path_prefix in the program's own options): the
       module the preload recorded under its full path. */
    path = sanitizer_module_path(path, context->modules.paths, context->modules.count);
    for (size_t i = 0; i < context->modules.count; i++)
        if (!strcmp(context->modules.paths[i], path))
            return context->modules.ids[i];
    uint64_t id = hash_bytes(2, path, strlen(path));
    char text[17];
    hex16(text, id);
    store_module_add(context->db, text, path);
    module_map_free(&context->modules);
    module_map_load(context->db, &context->modules);
    return id;
}

/* A sanitizer's stack, as frames. A frame of libfail's below one of the program's is the
   trampoline a call into the code under test went through (libfail/boundary.c): left out, as
   the preload leaves it out of the stacks it takes, so a sanitizer's stack of a site is the
   site's. libfail's frames on top (an interposer) stay, for drop_scan_frames. */
static void frames_of_paths(struct campaign_context *context, int count, char *const *paths,
                            const uint64_t *offsets, struct frame_list *out)
{
    out->count = 0;
    bool below_program = false;
    for (int i = 0; i < count && out->count < RECORD_MAX_FRAMES; i++) {
        bool ours = paths[i] && !strncmp(base_name(paths[i]), "libfail", 7);
        if (ours && below_program)
            continue;
        below_program |= !ours && !module_is_tool(paths[i]);
        out->frames[out->count].module = module_for_path(context, paths[i]);
        out->frames[out->count++].offset = offsets[i];
    }
}

static void sanitizer_frames(struct campaign_context *context,
                             const struct sanitizer_report *report, struct frame_list *out)
{
    frames_of_paths(context, report->frame_count, report->paths, report->offsets, out);
}

static int64_t record_finding(struct campaign_context *context, int64_t run_id, const char *site,
                              enum outcome outcome, int signal, const struct frame_list *evidence,
                              const char *detail, uint64_t bytes, uint64_t symptom, int library,
                              bool folder_kept)
{
    /* A symptom deduplicates by what the user sees: every failure inside one regcomp (or one
       statically linked regex, dozens of functions) that ends in the same wrong output of the
       command is one bug; a kernel report by its text (kernel_report_symptom). */
    char *key = symptom ? xasprintf("%s:output:%016llx", outcome_name(outcome),
                                    (unsigned long long)symptom)
                        : finding_key_at(context, outcome, signal, evidence, library);
    char *frames = frames_to_json(evidence);
    int64_t before = store_finding_run_of_key(context->db, key);
    int64_t id = store_finding_add(context->db, key, outcome_name(outcome), signal, site, frames,
                                   run_id, detail, bytes);
    /* This run represents the finding now: the folder of the one it replaces goes once that is
       committed, unless that one represents another finding too, this run's own folder is not
       kept (a kmemleak report read after the runs), or --keep-runs keeps every folder. */
    if (before && before != run_id && folder_kept && !context->options->keep_runs &&
        !store_run_represents_finding(context->db, before)) {
        char *old = store_run_dir(context->db, before);
        if (old)
            VECTOR_PUSH(context->unkept, old);
    }
    free(key);
    free(frames);
    return id;
}

/* The failure the run was about: the chain's last site, or the first that fired. */
static const struct ingest_fault *target_fault(const struct job *job)
{
    uint64_t target = 0;
    if (job->site && !parse_hex16(job->site, &target))
        return NULL;
    for (size_t i = 0; i < job->records.faults.count; i++)
        if ((!job->site || job->records.faults.items[i].signature == target) &&
            job->records.faults.items[i].fired) /* a kernel count not reached: no fault */
            return &job->records.faults.items[i];
    return NULL;
}

/* Judge the exit status of the process that had the fault against the same process (program,
   command line, fork child or not) in the baseline, not the status of the command failrun
   started: a test harness that swallows its children's exit status must not hide an outcome. */
static void compare_faulted_process(struct campaign_context *context,
                                    const struct run_records *records,
                                    const struct ingest_fault *target, struct observation *run,
                                    struct baseline_observation *baseline)
{
    const struct ingest_process *image = final_image(records, target->pid);
    if (!image || !image->exited)
        return;
    char command_line[17];
    hex16(command_line, image->command_line);
    if (store_process_exit_code(context->db, context->baseline_id, image->exe, command_line,
                                image->forked, &baseline->exit_code))
        run->exit_code = image->exit_status;
}

/* A sanitizer report the program makes without any fault (a leak it always has) is not a
   finding of the fault runs: remember its key. */
void load_baseline_sanitizer(struct campaign_context *context)
{
    char *dir = store_baseline_dir(context->db);
    struct sanitizer_report report;
    if (dir && sanitizer_read(dir, &report)) {
        struct frame_list frames;
        sanitizer_frames(context, &report, &frames);
        context->baseline_sanitizer = finding_key(context, OUTCOME_SANITIZER, 0, &frames);
        warn("the command has a sanitizer report even without faults (%s); fault runs report only "
             "others", report.kind);
        sanitizer_report_free(&report);
    }
    free(dir);
}

/* The leak scan's own frames on top of a leaked block's stack (the sanitizer's malloc
   interceptor, our interposer that called it) say nothing of the program: dropped. */
static void drop_scan_frames(struct campaign_context *context, struct frame_list *stack)
{
    int skip = 0;
    for (; skip < stack->count; skip++) {
        const char *path = module_map_path(&context->modules, stack->frames[skip].module);
        const char *base = path ? strrchr(path, '/') : NULL;
        base = base ? base + 1 : path;
        if (!base || (strncmp(base, "libasan", 7) && strncmp(base, "libfail", 7)))
            break;
    }
    if (skip == stack->count)
        return;
    memmove(stack->frames, stack->frames + skip, (size_t)(stack->count - skip) * sizeof *stack->frames);
    stack->count -= skip;
}

/* Does a frame of `stack` lie in the function named `name`? */
static bool stack_has_function(struct campaign_context *context, const struct frame_list *stack,
                               const char *name)
{
    for (int i = 0; i < stack->count; i++) {
        const char *path = module_map_path(&context->modules, stack->frames[i].module);
        char function[256];
        if (path && symboliser_function(context->symbols, path, stack->frames[i].offset, i > 0,
                                        NULL, function, sizeof function) &&
            !strcmp(function, name))
            return true;
    }
    return false;
}

/* Each allocation site LeakSanitizer confirmed for the run is a leak finding, located at the
   allocation; returns the bytes leaked, and *finding gets the first if the run had none. After
   `reported` (the call the fault fired in, when it returned an error report; else NULL), a
   block allocated outside that call (by an earlier call whose result the caller still owns, or
   by the caller itself) is the caller's to free: its loss is the caller's reaction, counted in
   *caller_leaks, not a finding. */
static uint64_t record_leaks(struct campaign_context *context, const struct job *job,
                             const struct ingest_boundary *reported, int64_t *finding,
                             int *caller_leaks)
{
    struct confirmed_leak leaks[8];
    uint64_t total = 0, own = 0;
    size_t count = leak_confirmed(context, job, leaks, 8, &total);
    for (size_t i = 0; i < count; i++) {
        const struct sanitizer_leak *leak = leaks[i].leak;
        struct frame_list frames;
        frames_of_paths(context, leak->frame_count, leak->paths, leak->offsets, &frames);
        drop_scan_frames(context, &frames);
        if (reported && !stack_has_function(context, &frames, reported->function)) {
            (*caller_leaks)++;
            continue;
        }
        own += leaks[i].bytes;
        char *detail = xasprintf("%llu byte(s) in %llu object(s) unreachable at exit%s",
                                 (unsigned long long)leaks[i].bytes,
                                 (unsigned long long)leaks[i].objects,
                                 leaks[i].direct ? "" : " (indirectly)");
        const struct ingest_fault *target = target_fault(job);
        int library = target ? system_leak_frame(context->symbols, &context->modules, &frames,
                                                 &target->stack) : -1;
        int64_t id = record_finding(context, job->run_id, job->site ? job->site : "",
                                    OUTCOME_LEAK, 0, &frames, detail, leaks[i].bytes, 0, library,
                                    true);
        if (!*finding)
            *finding = id;
        free(detail);
    }
    return reported ? own : total; /* total: beyond the 8 read too */
}

/* A kernel report (`log`, titled `title`) as a finding of run `run`, located at `stack`: keyed by
   its title hashed, which names no CPU, PID, address or offset, so one kernel bug reached from
   many calls is one finding. */
static int64_t record_kernel_report(struct campaign_context *context, int64_t run,
                                    const char *site, const struct frame_list *stack,
                                    const char *log, const char *title, bool folder_kept)
{
    return record_finding(context, run, site, OUTCOME_KERNEL, 0, stack, log, 0,
                          hash_bytes(7, title, strlen(title)) | 1, -1, folder_kept);
}

/* failrun kernel: the reports of the kernel's own bugs that libfail-kernel.so found in the
   kernel's log while the run's call was armed (kernel-PID.log in the run folder): a finding
   each, located at the armed call. */
static void record_kernel_reports(struct campaign_context *context, const struct job *job,
                                  int64_t *finding)
{
    const struct ingest_fault *armed = NULL;
    for (size_t i = 0; i < job->records.faults.count && !armed; i++)
        if (job->records.faults.items[i].kernel)
            armed = &job->records.faults.items[i];
    DIR *folder = armed ? opendir(job->dir) : NULL;
    if (!folder)
        return;
    char site[17];
    hex16(site, armed->signature);
    char *path;
    while ((path = next_file_named(folder, job->dir, "kernel-", ".log"))) {
        char *log = read_whole_file(path, NULL);
        char *title = log ? kernel_report_title(log) : NULL;
        int64_t id = title ? record_kernel_report(context, job->run_id, site, &armed->stack, log,
                                                  title, true)
                           : 0;
        if (!*finding)
            *finding = id;
        free(title);
        free(log);
        free(path);
    }
    closedir(folder);
}

void judge_kernel_leak(struct campaign_context *context, int64_t run, const char *site,
                       const char *log, const char *title)
{
    struct frame_list stack = {0};
    site_frames(context->db, site, &stack);
    if (stack.count) /* located at the armed call that allocated it */
        record_kernel_report(context, run, site, &stack, log, title, false);
}

/* The call into the code under test that the run's fault fired in, as it returned to its caller
   in the faulted process: NULL when there was none or it never returned. */
static const struct ingest_boundary *faulted_call(const struct run_records *records, uint32_t pid)
{
    for (size_t i = 0; i < records->boundaries.count; i++)
        if (records->boundaries.items[i].faulted && records->boundaries.items[i].pid == pid)
            return &records->boundaries.items[i];
    return NULL;
}

/* The classes `call`'s function returned in the unfailed runs (conventions table), or with
   `at_call` there at the same call (call_conventions); 0: unknown. */
static uint64_t learned_classes(sqlite3 *db, const struct ingest_boundary *call, bool at_call)
{
    return store_learned_classes(db, call->module, call->function, at_call, call->caller.module,
                                 call->caller.offset);
}

static void store_api(sqlite3 *db, int64_t run_id, const struct ingest_boundary *call,
                      enum api_verdict verdict, const char *reaction)
{
    store_run_api(db, run_id, call->function, call->value, call->value2,
                  api_verdict_name(verdict), reaction);
}

/* A chain fails its prefix's sites first: output that differs from the baseline's because of
   them is the prefix run's finding. When this run ended as the prefix run did (same status, same
   output), the chain's own failure changed nothing. */
static bool same_as_prefix(sqlite3 *db, const struct job *job, uint64_t stdout_hash)
{
    const char *last = job->chain ? strrchr(job->chain, ',') : NULL;
    if (!last)
        return false;
    return store_chain_ended_alike(db, job->chain, (size_t)(last - job->chain),
                                   job->result.exit_code, job->result.signal, stdout_hash);
}

/* Is the frame in one of our own modules (libfail-preload*.so, libfail.so): an interposer? */
static bool in_our_module(struct campaign_context *context, const struct record_frame *frame)
{
    const char *path = module_map_path(&context->modules, frame->module);
    const char *base = path ? strrchr(path, '/') : NULL;
    return base && !strncmp(base + 1, "libfail", 7);
}

/* Does a function of one of these names (a prefix each) lie above the first own frame of the
   crash stack: what stopped the process, in glibc? */
static bool stopped_through(struct campaign_context *context, const struct frame_list *stack,
                            const char *const *names, size_t count)
{
    int own = first_own_frame(&context->modules, stack);
    for (int i = 0; i < own; i++) {
        const char *path = module_map_path(&context->modules, stack->frames[i].module);
        char name[64];
        if (!path || !symboliser_function(context->symbols, path, stack->frames[i].offset, i > 0,
                                          NULL, name, sizeof name))
            continue;
        for (size_t j = 0; j < count; j++)
            if (!strncmp(name, names[j], strlen(names[j])))
                return true;
    }
    return false;
}

/* Did glibc stop the process because it found memory corrupted: its heap check (from inside one
   of our allocator interposers, or malloc_printerr when glibc's own free found it), the stack
   protector or a fortify check? Corruption the code under test may have made, wherever it was
   found. A frame of our I/O interposers (puts of a NULL string) is no such check. */
static bool corruption_detected(struct campaign_context *context, const struct frame_list *stack)
{
    static const char *const detectors[] = {"malloc_printerr", "__libc_message",
                                            "__stack_chk_fail", "__fortify_fail", "__chk_fail"};
    if (stopped_through(context, stack, detectors, sizeof detectors / sizeof detectors[0]))
        return true;
    for (int i = 0; i < stack->count; i++) {
        char name[64];
        if (in_our_module(context, &stack->frames[i]) &&
            !(symboliser_function(context->symbols,
                                  module_map_path(&context->modules, stack->frames[i].module),
                                  stack->frames[i].offset, i > 0, NULL, name, sizeof name) &&
              function_io_errno_by_name(name) != 0))
            return true;
    }
    return false;
}

/* With a source scope (--source), is this crash the caller's (OUTCOME_CALLER_CRASH)? Either its
   own code crashed after the code under test had returned (a test's strcmp or puts of the NULL
   the library returned, its assert on it; also in a handler the code under test called back,
   in the activation that made the failed call), or the code under test asserted at its entry, in the
   function the caller called directly, in a later call than the one whose allocation failed
   (json_object_array_add asserting that its argument is an array, given the NULL of an earlier
   json_object_new_array): a check of the caller's argument. An assert in the activation of the
   failure itself is the code under test's own doing (an assert on its own NULL), and deeper
   asserts check its own state. Never when a sanitizer spoke (it names the bad access itself)
   or glibc found memory corrupted. */
static bool caller_crash(struct campaign_context *context, const struct frame_list *crash,
                         const struct ingest_fault *target, const struct observation *observation)
{
    const char *globs = context->options->settings.source_globs;
    /* A stack cut at the record's depth hides what lies below it (the code under test, or the
       callers to compare): never the caller's then. */
    if (!globs || !*globs || observation->sanitizer || crash->count >= RECORD_MAX_FRAMES ||
        corruption_detected(context, crash))
        return false;
    if (crash_outside_source(context->symbols, &context->modules, crash, globs) ||
        (target && crash_in_calling_activation(context->symbols, &context->modules, crash,
                                               &target->stack, globs)))
        return true;
    static const char *const assert_fail[] = {"__assert_fail"};
    if (observation->crash_signal != SIGABRT || !target ||
        !stopped_through(context, crash, assert_fail, 1) ||
        !crash_at_entry_from_outside(context->symbols, &context->modules, crash, globs))
        return false;
    /* Same callers below the entry as the failed allocation's stack: possibly the same call. */
    int own = first_own_frame(&context->modules, crash);
    int callers = crash->count - own - 1;
    const struct frame_list *injection = &target->stack;
    if (callers <= 0 || injection->count < callers || injection->count >= RECORD_MAX_FRAMES)
        return false;
    for (int i = 0; i < callers; i++)
        if (!frames_equal(&crash->frames[own + 1 + i],
                          &injection->frames[injection->count - callers + i]))
            return true;
    return false;
}

/* After a call reported the failure and returned, did the process crash because its caller
   handed the error value back to the code under test: an assertion on an argument, or a
   dereference of NULL (plus a field's offset)? Corruption the library made stays its own. */
static bool error_passed_back(struct campaign_context *context, const struct ingest_process *crash,
                              const struct frame_list *stack, uint32_t caller_pid)
{
    static const char *const assert_fail[] = {"__assert_fail"};
    if (!crash || crash->pid != caller_pid || corruption_detected(context, stack))
        return false;
    if (crash->signal == SIGABRT)
        return stopped_through(context, stack, assert_fail, 1);
    return crash->signal_addressed && crash->signal_address < 65536;
}

/* Under the database lock, inside the transaction conclude_job (conclude.c) opened: classify
   the run and store it with all it revealed. *worth_keeping: its folder is evidence (a bug, a
   finding; --keep-runs keeps the others too); *fired: its planned fault fired (its error leg
   may reveal sites). */
enum outcome judge_run(struct campaign_context *context, struct job *job, bool *worth_keeping,
                       bool *fired)
{
    const struct run_records *records = &job->records;
    const struct ingest_fault *target = target_fault(job);
    job->hung = false;
    if (target && !job->site) {
        job->site = xmalloc(17);
        hex16(job->site, target->signature);
    }
    char *out = xasprintf("%s/stdout", job->dir), *err = xasprintf("%s/stderr", job->dir);
    char *stderr_text = read_whole_file(err, NULL);
    uint64_t stdout_hash = file_hash(out);

    /* New modules may appear on error paths: store first, so symbolisation finds them. Most
       runs store no new site and no new module: then nothing is looked up again (the source of
       every site, the module map), a tenth of a suite's conclusions when it was. */
    unsigned stored =
        database_store_records(context->db, job->run_id, records, frames_are_instrumentation);
    if (stored & DATABASE_NEW_SITES)
        sites_mark_source(context->db, context->options->settings.source_globs);
    kernelrun_store_fault(context->db, job->run_id, &job->records);
    kernelrun_store_alloc(context->db, job->run_id, job->dir);
    kernelcov_store_run(context->db, job->run_id, job->dir);
    if ((stored & DATABASE_NEW_MODULES) || !context->modules.count) {
        module_map_free(&context->modules);
        module_map_load(context->db, &context->modules);
    }

    /* What the run is compared with: the command's baseline, or for a program started alone
       (owner.c) that program's status in the baseline and its output alone. */
    const struct program *program = job->program;
    uint64_t reference_stdout = program ? program->alone_stdout : context->baseline_stdout;
    uint64_t reference_stderr = program ? program->alone_stderr : context->baseline_stderr;
    struct observation observation = {
        .fault_fired = target != NULL,
        .timed_out = job->result.timed_out,
        .exit_code = job->result.exit_code,
        .signal = job->result.signal,
        /* Output is judged only when the fault was in the process failrun started (the command,
           or the program alone): a test driver's output mixes its children's with its own
           timings, and which child said what is unknowable. Elsewhere exit statuses and stacks
           decide. */
        .stdout_same = !reference_stdout || (target && target->pid != (uint32_t)job->result.pid) ||
                       stdout_hash == reference_stdout || job->test_case,
        /* A child that stopped with its test case printed only part of the output: its test
           case's result (its exit status) says how it went. */
        .stderr_same = !reference_stderr || file_hash(err) == reference_stderr || job->test_case,
        .stderr_text = stderr_text,
    };
    struct frame_list evidence = {0};
    const struct ingest_process *crash_process = NULL;
    /* A process that spun through the CPU its fault gave it (plan key cpu; the preload's
       record, or SIGXCPU's own end where no handler of ours ran): a hang, as if failrun's
       timeout had ended the run, whatever its parent did about it next. */
    for (size_t i = 0; target && i < records->processes.count; i++)
        observation.timed_out |= records->processes.items[i].signal == SIGXCPU;
    observation.timed_out |= target && job->result.signal == SIGXCPU;
    for (size_t i = 0; i < records->processes.count && !observation.crash_signal; i++) {
        if (records->processes.items[i].signal == SIGXCPU)
            continue;
        if (records->processes.items[i].signal) {
            crash_process = &records->processes.items[i];
            observation.crash_signal = crash_process->signal;
            evidence = crash_process->crash_stack;
        }
    }
    /* glibc aborts from inside free() or malloc() when it finds the heap corrupted (a double
       free): then an interposer of ours is on the crash stack. A test harness may hide the
       message, the stack cannot. */
    for (int i = 0; i < evidence.count; i++)
        if (in_our_module(context, &evidence.frames[i]))
            observation.in_allocator = true;
    /* An exit in the caller of a failed I/O call is its error leg, not an out-of-memory panic:
       only allocations can end in oom-abort. */
    observation.ended_in_caller = target && record_function_kind(target->function) != KIND_IO &&
                                  ended_in_caller(context, records, &target->stack);
    struct sanitizer_report report;
    bool reported = sanitizer_read(job->dir, &report);
    struct frame_list sanitizer_stack = {0};
    if (reported) {
        sanitizer_frames(context, &report, &sanitizer_stack);
        char *key = finding_key(context, OUTCOME_SANITIZER, 0, &sanitizer_stack);
        observation.sanitizer =
            !context->baseline_sanitizer || strcmp(key, context->baseline_sanitizer) != 0;
        observation.sanitizer_crash = report.crash;
        free(key);
    }
    struct baseline_observation baseline = context->baseline;
    if (program)
        baseline = (struct baseline_observation){program->exit_code, program->signal};
    if (job->test_case)
        /* Its status is its test case's result (0 passed, 1 failed), not a process's: compared
           with a test case that passed, whatever the whole suite's status was. */
        baseline = (struct baseline_observation){0, 0};
    else if (target)
        compare_faulted_process(context, records, target, &observation, &baseline);
    enum outcome outcome = classify(&observation, &baseline);
    /* A failure that hit gcov's own runtime (an nth or random run reaching libgcov's allocations
       at exit) tests the instrumentation, not the program: never a finding. Such allocations are
       never sites, so runs with a chain never plan them (policy.h); only the others need the
       check (it symbolises). */
    if (target && !job->chain && frames_are_instrumentation(context->db, &target->stack))
        outcome = OUTCOME_NOT_REACHED;
    if (outcome == OUTCOME_SILENT && same_as_prefix(context->db, job, stdout_hash))
        outcome = OUTCOME_ABSORBED;
    if (outcome == OUTCOME_CRASH && caller_crash(context, &evidence, target, &observation))
        outcome = OUTCOME_CALLER_CRASH;
    /* The library boundary: what the call the fault fired in returned to its caller. An error
       report makes what the caller printed next its reaction; a success value makes a failed
       test or other output the library's finding. */
    const struct ingest_boundary *call =
        target && !target->kernel ? faulted_call(records, target->pid) : NULL;
    enum api_verdict verdict = API_NONE;
    enum outcome judged = outcome; /* as classified: leaks are checked by it */
    const char *reaction = NULL;
    if (call) {
        verdict = api_verdict(context->options->settings.returns, call->function,
                              learned_classes(context->db, call, false),
                              learned_classes(context->db, call, true), call->value);
        if (verdict == API_REPORTED) {
            if (outcome == OUTCOME_CRASH &&
                error_passed_back(context, crash_process, &evidence, target->pid))
                outcome = OUTCOME_CALLER_CRASH;
            reaction = outcome_name(outcome);
            /* A hang after the call reported the failure is the caller's wait for what never
               came (libyaml's test-reader ignores yaml_parser_initialize's 0, then calls the
               parser until its buffer fills, for ever): its reaction, as its output is. */
            job->hung = outcome == OUTCOME_HANG;
            if (outcome == OUTCOME_SILENT || outcome == OUTCOME_HANG)
                outcome = OUTCOME_REPORTED;
        } else if (verdict == API_SWALLOWED &&
                   (outcome == OUTCOME_SILENT || outcome == OUTCOME_HANDLED ||
                    outcome == OUTCOME_CALLER_CRASH)) {
            /* A success value after the failure: what went wrong next is the library's, a
               crash of the caller on the wrong result too. */
            outcome = OUTCOME_SWALLOWED;
        }
    }

    int64_t finding = 0;
    int signal = observation.crash_signal ? observation.crash_signal : job->result.signal;
    if (observation.sanitizer && (outcome == OUTCOME_SANITIZER || outcome == OUTCOME_CRASH))
        evidence = sanitizer_stack;
    else if (outcome != OUTCOME_CRASH && outcome != OUTCOME_CALLER_CRASH && target)
        evidence = target->stack; /* hang, silent, swallowed: located at the injection */
    char *swallowed = outcome == OUTCOME_SWALLOWED
                          ? xasprintf("%s returned success (%#llx) after the failure", call->function,
                                      (unsigned long long)call->value)
                          : NULL;
    if (outcome_is_bug(outcome))
        finding = record_finding(context, job->run_id, job->site ? job->site : "", outcome,
                                 outcome == OUTCOME_CRASH ? signal : 0, &evidence,
                                 observation.sanitizer ? report.kind : swallowed, 0,
                                 outcome == OUTCOME_SILENT && !program ? stdout_hash | 1 : 0, -1,
                                 true);
    if (reported)
        sanitizer_report_free(&report);
    free(swallowed);
    int caller_leaks = 0;
    uint64_t leaked = target && leak_possible(judged, &observation, &baseline)
                          ? record_leaks(context, job, verdict == API_REPORTED ? call : NULL,
                                         &finding, &caller_leaks)
                          : 0;
    if (caller_leaks && (outcome == OUTCOME_REPORTED || outcome == OUTCOME_HANDLED ||
                         outcome == OUTCOME_ABSORBED))
        reaction = "leak";
    if (context->options->settings.kernel)
        record_kernel_reports(context, job, &finding);
    char *frames = evidence.count ? frames_to_json(&evidence) : NULL;
    finish_run(context->db, job->run_id, job->site, &job->result, outcome_name(outcome), frames,
               records->problems, finding);
    if (leaked)
        store_run_leak_bytes(context->db, job->run_id, leaked);
    /* How the run was made: the program it started alone, or (0) the whole command. */
    store_run_owner(context->db, job->run_id, program ? program->id : 0);
    if (call)
        store_api(context->db, job->run_id, call, verdict, reaction);
    if (job->test_case)
        store_run_test_case(context->db, job->run_id, job->test_case);
    store_run_stdout_hash(context->db, job->run_id, stdout_hash);
    *fired = target != NULL;
    /* A finding keeps the folder of the run that represents it (its replay's), not of each of
       its runs: in json-c's suite, 615 runs of 28 findings each copied its folder to disk.
       --keep-runs keeps them all. */
    *worth_keeping = finding && !context->options->keep_runs
                         ? store_run_represents_finding(context->db, job->run_id)
                         : outcome_is_bug(outcome) || finding;
    free(frames);
    free(stderr_text);
    free(out);
    free(err);
    return outcome;
}
