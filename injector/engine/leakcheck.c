/*
 * leakcheck.c — a leak is a finding only when it is confirmed: a block nothing points to any
 * more, in bytes, per process.
 *
 * The preload counts live blocks per caller, and a fault run whose counts exceed the baseline's
 * is only a candidate: memory can stay reachable at exit through another path (interpreters keep
 * megabytes live), glibc's NSS modules allocate after a dlopen, and a failed realloc moves a block
 * from one caller's count to another's. So a candidate run is replayed once, with the same plan,
 * under gcc's AddressSanitizer runtime (libasan, preloaded after libfail: our interposers forward
 * to its allocator, and the live table stores its keys masked, so the scan never sees blocks as
 * reachable through it), reduced by its options to what LeakSanitizer needs. Its scan at exit
 * lists the unreachable blocks with their allocation stacks. What the same scan of a run without
 * faults also lists (a leak the program always has) is subtracted, per allocation site.
 *
 * Why libasan and not the standalone liblsan: preloaded into a program not built with it,
 * Debian 12's liblsan cannot find the real sigaction ("REAL(sigaction_symname) == nullptr"), so
 * signal handlers never get installed and a shell's `wait` for a SIGCHLD hangs; libasan's
 * interceptors resolve it. Its checks beyond leaks are turned off: uninstrumented code gets no
 * poisoning, and fills, quarantine and mismatch checks would change what the program does.
 *
 * A run that started one program alone (owner.c) is compared with that program: its live
 * counts alone, its own scan without faults (made once per program), its exit status.
 *
 * Runs outside the database lock (perform_job, the fork phase); the baseline's scan is made once,
 * by whichever run needs it first.
 */
#include "engine/leakcheck.h"
#include "engine/campaign_run.h"
#include "store/runs.h"
#include "verdict/sanitizer.h"
#include "base/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCAN_LOG "leaks"

static pthread_mutex_t baseline_lock = PTHREAD_MUTEX_INITIALIZER;

/* gcc's AddressSanitizer runtime (Debian 12: libasan8, which gcc-12 depends on).
   LIBFAIL_ASAN_RUNTIME overrides it. */
static const char *scanner_runtime(void)
{
    const char *override = getenv("LIBFAIL_ASAN_RUNTIME");
    if (override && *override)
        return access(override, R_OK) == 0 ? override : NULL;
    static const char *const candidates[] = {
        "/usr/lib/x86_64-linux-gnu/libasan.so.8", "/usr/lib/aarch64-linux-gnu/libasan.so.8",
        "/usr/lib/x86_64-linux-gnu/libasan.so.6", "/usr/lib64/libasan.so.8",
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (access(candidates[i], R_OK) == 0)
            return candidates[i];
    return NULL;
}

/* libgcc's unwinder, preloaded between the preload and the scanner's runtime so that the
   runtime's slow unwinder (fast_unwind_on_malloc=0) binds _Unwind_Backtrace to it. Otherwise
   the libunwind that the preload needs comes first in the process's lookup order and serves
   it: some ten times slower, and two sigprocmask calls through the runtime's interceptor for
   each of its locks, so that a scan of `curl --version` took 0.53 s instead of 0.13 s. By its
   soname, which the dynamic linker finds for the process's own architecture: gcc's runtime
   depends on it, so it is there wherever the runtime is, and is loaded either way. */
#define SCANNER_UNWINDER "libgcc_s.so.1"

/* The baseline's live blocks per caller, kept in memory so that runs can be judged candidates
   without the database. */
static void add_live_count(const char *site, uint64_t blocks, void *data)
{
    struct campaign_context *context = data;
    struct live_count count = {0};
    if (!parse_hex16(site, &count.signature))
        return;
    count.blocks = blocks;
    VECTOR_PUSH(context->baseline_live, count);
}

void leak_load_baseline(struct campaign_context *context)
{
    context->baseline_live.count = 0;
    store_live_each(context->db, context->baseline_id, add_live_count, context);
    /* A target built with a sanitizer runs LeakSanitizer in every run already (sanitizer
       findings); a second runtime cannot be preloaded beside it. */
    context->target_sanitized = store_sanitizer_runtime_loaded(context->db);
}

static uint64_t baseline_blocks(const struct campaign_context *context, const struct job *job,
                                uint64_t signature)
{
    const struct live_count *counts = job->program ? job->program->live.items
                                                   : context->baseline_live.items;
    size_t count = job->program ? job->program->live.count : context->baseline_live.count;
    for (size_t i = 0; i < count; i++)
        if (counts[i].signature == signature)
            return counts[i].blocks;
    return 0;
}

/* More blocks of some caller live at exit than in the baseline, or counts that overflowed. */
static bool candidate(const struct campaign_context *context, const struct job *job)
{
    const struct run_records *records = &job->records;
    for (size_t i = 0; i < records->processes.count; i++)
        if (records->processes.items[i].live_overflow)
            return true;
    for (size_t i = 0; i < records->live.count; i++)
        if (records->live.items[i].blocks >
            baseline_blocks(context, job, records->live.items[i].signature))
            return true;
    return false;
}

/* Leak detection and nothing else: no fills, no quarantine, no checks of string and memory
   calls, no mismatch or double-free aborts of its own, the program's signal handling kept. */
#define SCANNER_OPTIONS                                                                            \
    "detect_leaks=1:exitcode=0:verify_asan_link_order=0:fast_unwind_on_malloc=0:"                 \
    "allocator_may_return_null=1:max_malloc_fill_size=0:max_free_fill_size=0:"                   \
    "quarantine_size_mb=0:thread_local_quarantine_size_kb=0:replace_str=0:replace_intrin=0:"     \
    "intercept_strchr=0:intercept_strndup=0:intercept_memcmp=0:intercept_send=0:"                \
    "alloc_dealloc_mismatch=0:new_delete_type_mismatch=0:detect_odr_violation=0:"                \
    "detect_container_overflow=0:detect_stack_use_after_return=0:handle_segv=0:handle_abort=0:"  \
    "handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:allow_user_segv_handler=1:"                 \
    "check_malloc_usable_size=0:print_legend=0:symbolize=0"

/* The flags of SCANNER_OPTIONS that LeakSanitizer reads from LSAN_OPTIONS too (sanitizer_common's
   own, so libasan warns of none), and an empty strip_path_prefix: modules by their full path. */
#define SCANNER_LSAN_OPTIONS                                                                       \
    "detect_leaks=1:exitcode=0:fast_unwind_on_malloc=0:allocator_may_return_null=1:"              \
    "handle_segv=0:handle_abort=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:"              \
    "allow_user_segv_handler=1:symbolize=0:strip_path_prefix="

/* The run under the scanner, in `dir`: its leaks, kept when their process is in scope. */
static bool scanned_run(struct campaign_context *context, const char *dir, const char *plan,
                        sanitizer_leak_list *leaks, struct run_records *records,
                        const struct program *program)
{
    const char *runtime = scanner_runtime();
    char *preload = preload_path(&context->options->settings);
    const char *existing = getenv("LD_PRELOAD");
    char *extra[6] = {
        existing && *existing
            ? xasprintf("LD_PRELOAD=%s:" SCANNER_UNWINDER ":%s:%s", preload, runtime, existing)
            : xasprintf("LD_PRELOAD=%s:" SCANNER_UNWINDER ":%s", preload, runtime),
        /* Debian's programs have no frame pointers: the slow unwinder reads .eh_frame. Reports
           go to files; the program's exit status stays its own; a request no allocator can
           serve returns NULL to the program, as glibc's does, instead of ending it. */
        xasprintf("ASAN_OPTIONS=" SCANNER_OPTIONS ":malloc_context_size=%d:log_path=%s/" SCAN_LOG,
                  RECORD_MAX_FRAMES, dir),
        /* libasan reads LSAN_OPTIONS after ASAN_OPTIONS, and a program's own wins over ours:
           git's test-lib.sh sets strip_path_prefix=<its build folder>/, which names the program
           "git" in the report (no file a symboliser can open), and may set a log_path of its
           own. Here ours again, the flags that say what the report is and where it goes; a
           suite that puts its own before what it was given (test-lib.sh does) keeps ours last. */
        xasprintf("LSAN_OPTIONS=" SCANNER_LSAN_OPTIONS ":malloc_context_size=%d:log_path=%s/" SCAN_LOG,
                  RECORD_MAX_FRAMES, dir),
        xstrdup("LIBFAIL_LEAK_SCAN=1"),
        /* No audit module beside the sanitizer runtime, which must come first in the process;
           the preload leaves the linker's frames out of stacks, so the sites are the same. */
        xstrdup("LD_AUDIT="),
        NULL,
    };
    /* Under the sanitizer's runtime (every allocation slow-unwound, a scan at exit) the run
       takes several times its CPU: no CPU limit (the run it replays was no hang). */
    char *unlimited = xasprintf("%s;cpu=0", plan);
    struct spawn_result result =
        execute_run(context, dir, unlimited, program ? program->timeout_ms : context->timeout_ms,
                    (const char *const *)extra, program);
    free(unlimited);
    for (int i = 0; extra[i]; i++)
        free(extra[i]);
    free(preload);
    bool scan_failed = false;
    sanitizer_leak_list all = {0};
    sanitizer_read_leaks(dir, SCAN_LOG, &all, &scan_failed);
    ingest_run(dir, records);
    for (size_t i = 0; i < all.count; i++) {
        const struct ingest_process *image = final_image(records, all.items[i].pid);
        if (image && scope_includes(context->options->settings.scope, image->exe))
            VECTOR_PUSH(*leaks, all.items[i]);
        else
            for (int j = 0; j < all.items[i].frame_count; j++)
                free(all.items[i].paths[j]);
    }
    free(all.items);
    static bool warned;
    if ((scan_failed || result.timed_out) && !__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED))
        warn("the leak scan %s (%s); such runs' leaks stay unconfirmed",
             scan_failed ? "could not run" : "timed out",
             scan_failed ? "LeakSanitizer needs ptrace" : "raise --timeout");
    return !scan_failed && !result.timed_out && !result.signal;
}

static void scan_baseline(struct campaign_context *context)
{
    pthread_mutex_lock(&baseline_lock);
    if (!context->baseline_scanned) {
        char *dir = xasprintf("%s/baseline-leakscan-%ld", context->runs_dir, (long)getpid());
        remove_tree(dir);
        struct run_records records = {0};
        char *plan = plan_record(&context->options->settings);
        context->baseline_scan_ok =
            scanned_run(context, dir, plan, &context->baseline_leaks, &records, NULL);
        if (!context->baseline_scan_ok)
            warn("the command did not run cleanly under the leak scan without faults; leaks "
                 "stay unconfirmed and are not reported");
        free(plan);
        run_records_free(&records);
        remove_tree(dir);
        free(dir);
        context->baseline_scanned = true;
    }
    pthread_mutex_unlock(&baseline_lock);
}

/* The same for a program alone: its own scan without faults, once. */
static void scan_program(struct campaign_context *context, struct program *program)
{
    pthread_mutex_lock(&program->scan_lock);
    if (!program->scanned) {
        char *dir = xasprintf("%s/alone-leakscan-%lld-%ld", context->runs_dir,
                              (long long)program->id, (long)getpid());
        remove_tree(dir);
        struct run_records records = {0};
        char *plan = plan_record(&context->options->settings);
        program->scan_ok = scanned_run(context, dir, plan, &program->leaks, &records, program);
        if (!program->scan_ok)
            warn("%s did not run cleanly under the leak scan without faults; leaks of its runs "
                 "stay unconfirmed and are not reported", program->exe);
        free(plan);
        run_records_free(&records);
        remove_tree(dir);
        free(dir);
        program->scanned = true;
    }
    pthread_mutex_unlock(&program->scan_lock);
}

void leak_confirm(struct campaign_context *context, struct job *job)
{
    static bool warned;
    job->leak_scanned = false;
    int exit_code = job->program ? job->program->exit_code : context->baseline.exit_code;
    if (context->options->settings.kernel || context->target_sanitized || job->result.timed_out ||
        job->result.signal || job->result.exit_code != exit_code || !job->plan ||
        !candidate(context, job))
        return;
    /* A run whose fault never fired leaks nothing of it: no scan, which for a run of the whole
       command first scans the baseline (a whole suite more, for a run not-reached). */
    bool run_fired = false;
    for (size_t i = 0; i < job->records.faults.count; i++)
        run_fired |= job->records.faults.items[i].fired;
    if (!run_fired)
        return;
    if (!scanner_runtime()) {
        if (!__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED))
            warn("a run may leak, but the leak scan's runtime is missing (Debian: apt-get install "
                 "libasan8); leaks stay unconfirmed and are not reported");
        return;
    }
    if (job->program)
        scan_program(context, job->program);
    else
        scan_baseline(context);
    if (job->program ? !job->program->scan_ok : !context->baseline_scan_ok)
        return; /* nothing to subtract the leaks it always has from */
    char *dir = xasprintf("%s/leakscan", job->dir);
    struct run_records records = {0};
    job->leak_scanned = scanned_run(context, dir, job->plan, &job->leaks, &records, job->program);
    /* The replay must have failed the same call, or it says nothing about this run. */
    bool fired = false;
    for (size_t i = 0; i < records.faults.count; i++)
        fired |= records.faults.items[i].fired;
    if (!fired)
        job->leak_scanned = false;
    run_records_free(&records);
    remove_tree(dir);
    free(dir);
}

/* Where a leaked block was allocated: the first frame of the program's own code. */
static int allocation_frame(const struct sanitizer_leak *leak)
{
    for (int i = 0; i < leak->frame_count; i++)
        if (!module_is_plumbing(leak->paths[i]))
            return i;
    return -1;
}

static bool same_allocation(const struct sanitizer_leak *a, const struct sanitizer_leak *b)
{
    int i = allocation_frame(a), j = allocation_frame(b);
    return i >= 0 && j >= 0 && a->offsets[i] == b->offsets[j] && !strcmp(a->paths[i], b->paths[j]);
}

/* What the scans in `list` found unreachable, allocated where `leak` was: bytes, objects, and
   whether any of those blocks was a direct leak. */
struct site_total {
    uint64_t bytes, objects;
    bool direct;
};

static struct site_total total_like(const sanitizer_leak_list *list,
                                    const struct sanitizer_leak *leak)
{
    struct site_total total = {0};
    for (size_t i = 0; i < list->count; i++) {
        if (!same_allocation(&list->items[i], leak))
            continue;
        total.bytes += list->items[i].bytes;
        total.objects += list->items[i].objects;
        total.direct |= list->items[i].direct;
    }
    return total;
}

size_t leak_confirmed(const struct campaign_context *context, const struct job *job,
                      struct confirmed_leak *out, size_t max, uint64_t *total_bytes)
{
    size_t found = 0;
    bool any_direct = false;
    *total_bytes = 0;
    if (!job->leak_scanned)
        return 0;
    /* One entry per allocation site: its bytes beyond the baseline's, direct if any of its
       blocks is; indirect sites only when no direct one leaked (they hang off it). */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < job->leaks.count; i++) {
            const struct sanitizer_leak *leak = &job->leaks.items[i];
            if (allocation_frame(leak) < 0)
                continue;
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++)
                seen = same_allocation(&job->leaks.items[j], leak);
            struct site_total run = total_like(&job->leaks, leak);
            struct site_total before = total_like(
                job->program ? &job->program->leaks : &context->baseline_leaks, leak);
            if (seen || run.bytes <= before.bytes)
                continue;
            if (pass == 0) {
                *total_bytes += run.bytes - before.bytes;
                any_direct |= run.direct;
            }
            if ((pass == 0) != run.direct || (pass == 1 && any_direct) || found >= max)
                continue;
            out[found++] = (struct confirmed_leak){
                .leak = leak, .bytes = run.bytes - before.bytes, .direct = run.direct,
                .objects = run.objects > before.objects ? run.objects - before.objects : 1};
        }
    }
    return found;
}
