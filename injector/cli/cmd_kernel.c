/*
 * cmd_kernel.c — `failrun kernel -- CMD`: the campaign of `failrun run`, over system-call sites
 * instead of allocation sites, failing the kernel's own allocations inside each call through
 * /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION). Every system call the programs under test
 * make is a site (trapped by syscall user dispatch: injector/preload/dispatch.c), named by its number and
 * its stack through libc; with --wrappers only the calls of the libc wrappers of kernel.c (open,
 * openat, read, write, pipe, pipe2, socket, socketpair, epoll_create1, eventfd, mmap, fork) are.
 * Each site runs with N = 1, 2, ... written to fail-nth just before the call, until the call has
 * fewer than N fault points. Outcomes, findings and reports are those of `failrun run`. The
 * preload for it is libfail-kernel.so.
 *
 * First it checks that the kernel can do it, and says what to change when it cannot.
 */
#include "engine/campaign_run.h"
#include "cli/commands.h"
#include "base/util.h"
#include "kernel/buildid.h"
#include "kernel/kmemleak.h"
#include "kernel/ktitle.h"
#include "store/database.h"
#include "store/runs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* Test hooks: the files this checks, elsewhere than on the running kernel. */
static const char *failnth_path(void)
{
    const char *path = getenv("LIBFAIL_TEST_FAILNTH");
    return path && *path ? path : "/proc/thread-self/fail-nth";
}

static const char *debugfs_path(void)
{
    const char *path = getenv("LIBFAIL_TEST_DEBUGFS");
    return path && *path ? path : "/sys/kernel/debug";
}

/* The first word of a debugfs attribute; NULL when it cannot be read. */
static char *read_attribute(const char *name)
{
    char *path = xasprintf("%s/%s", debugfs_path(), name);
    char *text = read_whole_file(path, NULL);
    free(path);
    if (text)
        text[strcspn(text, " \n")] = '\0';
    return text;
}

static bool write_attribute(const char *name, const char *value)
{
    char *path = xasprintf("%s/%s", debugfs_path(), name);
    FILE *file = fopen(path, "w");
    bool done = file && fputs(value, file) >= 0;
    done = file && fclose(file) == 0 && done;
    if (!done)
        warn("cannot write %s: %s", path, strerror(errno));
    free(path);
    return done;
}

/* One write(2) of text to a tracefs file: stdio's append mode seeks to the end first, which
   kprobe_events refuses (EINVAL). */
static bool write_tracefs(const char *path, const char *text, bool append)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
    size_t length = strlen(text);
    bool done = fd >= 0 && write(fd, text, length) == (ssize_t)length;
    int saved = errno;
    if (fd >= 0)
        close(fd);
    errno = saved;
    return done;
}

/* Which allocation failed (kmem.c): tracefs mounted, and the kprobe events on
   should_fail_alloc_page that libfail-kernel.so enables in its instance (kernel.c). Optional:
   without them the runs only lack the allocation's name. */
static void setup_kmem_trace(void)
{
    const char *tracefs = "/sys/kernel/tracing";
    char *instances = xasprintf("%s/instances", tracefs);
    if (access(instances, F_OK) != 0 && mount("tracefs", tracefs, "tracefs", 0, NULL) != 0)
        warn("cannot mount tracefs on %s (%s): failed kernel allocations are not named; the "
             "kernel needs CONFIG_FTRACE and CONFIG_KPROBE_EVENTS", tracefs, strerror(errno));
    free(instances);
    /* should_failslab's first argument is the kmem_cache: its object_size sits in
       6.1's SLUB at byte 28 (after cpu_slab, flags, min_partial and size). */
    static const char *const probes[][2] = {
        {"page_entry", "p:libfail/page_entry should_fail_alloc_page gfp=%di:x32 order=%si:u32\n"},
        {"page_ret", "r:libfail/page_ret should_fail_alloc_page ret=$retval:u8\n"},
        {"slab_entry", "p:libfail/slab_entry should_failslab size=+28(%di):u32 gfp=%si:x32\n"},
        {"slab_ret", "r:libfail/slab_ret should_failslab ret=$retval:s32\n"}};
    char *path = xasprintf("%s/kprobe_events", tracefs);
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        char *existing = xasprintf("%s/events/libfail/%s", tracefs, probes[i][0]);
        bool defined = access(existing, F_OK) == 0;
        free(existing);
        if (defined)
            continue;
        if (!write_tracefs(path, probes[i][1], true)) {
            warn("cannot define the kprobe event libfail/%s in %s (%s): failed allocations it "
                 "would name are not named", probes[i][0], path, strerror(errno));
            break;
        }
    }
    free(path);
    /* Keep the six events enabled at the top level, filtered to record nothing there: enabling
       and disabling them patches kernel text (static keys, kprobes), which costs each armed run
       a second or more under qemu's emulation; enabled once, an instance only links to them. */
    static const char *const events[][2] = {{"kmem/kmalloc", "call_site == 0"},
                                            {"kmem/kmem_cache_alloc", "call_site == 0"},
                                            {"libfail/page_entry", "order == 4096"},
                                            {"libfail/page_ret", "ret == 7"},
                                            {"libfail/slab_entry", "size == 0"},
                                            {"libfail/slab_ret", "ret == 7"}};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        const char *settings[][2] = {{"filter", events[i][1]}, {"enable", "1"}};
        for (size_t k = 0; k < 2; k++) {
            char *file = xasprintf("%s/events/%s/%s", tracefs, events[i][0], settings[k][0]);
            if (!write_tracefs(file, settings[k][1], false))
                warn("cannot write %s: %s", file, strerror(errno));
            free(file);
        }
    }
}

/* The fault attributes each policy needs. Every allocation (default): nothing skipped. Realistic
   (--policy realistic): the kernel itself counts as fault points only the allocations its
   allocator can fail, so fail-nth fails nothing else. failslab/ignore-gfp-wait=Y keeps the slab
   allocations without direct reclaim (GFP_ATOMIC, GFP_NOWAIT); fail_page_alloc/min-order=4 with
   ignore-gfp-wait=N keeps the page allocations above PAGE_ALLOC_COSTLY_ORDER, which may fail
   even with reclaim. The kernel's filters cannot say "or": page allocations of order 3 or less
   without reclaim, and NORETRY or RETRY_MAYFAIL requests that may reclaim, are not failed. */
struct fault_policy {
    const char *slab_wait, *page_wait, *min_order;
};
static const struct fault_policy every_allocation = {"N", "N", "0"};
static const struct fault_policy realistic_policy = {"Y", "N", "4"};

static void check_kernel(bool setup, bool kmem_trace, bool realistic)
{
    const struct fault_policy *policy = realistic ? &realistic_policy : &every_allocation;
    if (access(failnth_path(), F_OK) != 0)
        fatal("this kernel was built without CONFIG_FAULT_INJECTION (%s does not exist); boot one "
              "with FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC and FAULT_INJECTION_DEBUG_FS, as "
              "`make check-kernel` does",
              failnth_path());
    char *probe = read_attribute("failslab/ignore-gfp-wait");
    if (!probe && setup && !getenv("LIBFAIL_TEST_DEBUGFS") &&
        mount("debugfs", debugfs_path(), "debugfs", 0, NULL) != 0)
        fatal("cannot mount debugfs on %s: %s; mount it as root", debugfs_path(), strerror(errno));
    free(probe);
    if (setup) {
        bool done = write_attribute("failslab/ignore-gfp-wait", policy->slab_wait) &&
                    write_attribute("fail_page_alloc/ignore-gfp-wait", policy->page_wait) &&
                    write_attribute("fail_page_alloc/min-order", policy->min_order) &&
                    write_attribute("failslab/verbose", "0") &&
                    write_attribute("fail_page_alloc/verbose", "0");
        if (!done)
            fatal("--setup-debugfs could not set the fault attributes; run it as root");
        if (!getenv("LIBFAIL_TEST_DEBUGFS") && kmem_trace)
            setup_kmem_trace();
    }
    char *slab_wait = read_attribute("failslab/ignore-gfp-wait");
    char *page_wait = read_attribute("fail_page_alloc/ignore-gfp-wait");
    char *order = read_attribute("fail_page_alloc/min-order");
    if (!slab_wait || !page_wait || !order)
        fatal("cannot read %s/failslab and %s/fail_page_alloc: mount debugfs, or pass "
              "--setup-debugfs (as root); the kernel also needs CONFIG_FAILSLAB, "
              "CONFIG_FAIL_PAGE_ALLOC and CONFIG_FAULT_INJECTION_DEBUG_FS",
              debugfs_path(), debugfs_path());
    if (!realistic && (!strcmp(slab_wait, "Y") || !strcmp(page_wait, "Y")))
        fatal("%s/ignore-gfp-wait is Y: the kernel then never fails an allocation that may "
              "sleep (GFP_KERNEL), which is nearly every allocation of a system call; pass "
              "--setup-debugfs (as root) to set it to N, or --policy realistic to fail only "
              "what the allocator can fail",
              !strcmp(slab_wait, "Y") ? "failslab" : "fail_page_alloc");
    if (!realistic && strcmp(order, "0") != 0)
        fatal("fail_page_alloc/min-order is %s: the kernel then never fails order-0 (single page) "
              "allocations, the common ones; pass --setup-debugfs (as root) to set it to 0",
              order);
    if (realistic && (strcmp(slab_wait, policy->slab_wait) || strcmp(page_wait, policy->page_wait) ||
                      strcmp(order, policy->min_order)))
        fatal("--policy realistic needs failslab/ignore-gfp-wait=%s, fail_page_alloc/ignore-gfp-wait=%s and "
              "fail_page_alloc/min-order=%s (they are %s, %s, %s): the kernel then counts only "
              "allocations without direct reclaim and page allocations above order 3; pass "
              "--setup-debugfs (as root) to set them",
              policy->slab_wait, policy->page_wait, policy->min_order, slab_wait, page_wait,
              order);
    free(slab_wait);
    free(page_wait);
    free(order);
}

/* ---- kmemleak: the kernel's leaks, each a finding of the run whose armed call made it ---- */

/* Whether kmemleak is on (CONFIG_DEBUG_KMEMLEAK, booted with kmemleak=on): its debugfs file
   takes commands then, and refuses them when kmemleak is off. */
static bool kmemleak_on;

static bool kmemleak_command(const char *command)
{
    char *path = xasprintf("%s/kmemleak", debugfs_path());
    bool done = write_tracefs(path, command, false);
    free(path);
    return done;
}

/* Before the campaign: what leaked before it is scanned for and set aside ("clear"), so that
   only objects allocated since can be reported. */
static void kmemleak_start(void)
{
    kmemleak_on = kmemleak_command("scan") && kmemleak_command("clear");
}

struct leak_scan {
    struct campaign_context *context;
    size_t credited;
    VECTOR(char *) seen; /* "RUN TITLE" of the objects credited: one finding per run and title */
};

static void credit_leak(const struct kmemleak_leak *leak, void *data)
{
    struct leak_scan *scan = data;
    char site[17];
    int64_t run = leak->pid ? kmemleak_run_of(scan->context->db, leak->pid, site) : 0;
    if (!run)
        return; /* not allocated by an armed call (or its thread id served two runs) */
    scan->credited++;
    char *log = strndup(leak->text, leak->length);
    char *title = kernel_report_title(log);
    char *key = xasprintf("%lld %s", (long long)run, title ? title : "");
    bool again = false;
    for (size_t i = 0; i < scan->seen.count && !again; i++)
        again = !strcmp(scan->seen.items[i], key);
    if (again || !title) {
        free(key);
    } else {
        VECTOR_PUSH(scan->seen, key);
        judge_kernel_leak(scan->context, run, site, log, title);
    }
    free(title);
    free(log);
}

/* After the runs: kmemleak reports only objects older than 5 seconds, unreferenced in a scan;
   two scans, 5 s apart, as its documentation advises against transient false reports. */
static void kmemleak_finish(struct campaign_context *context)
{
    if (!kmemleak_on)
        return;
    sleep(5);
    kmemleak_command("scan");
    sleep(5);
    kmemleak_command("scan");
    char *path = xasprintf("%s/kmemleak", debugfs_path());
    char *report = read_whole_file(path, NULL);
    free(path);
    struct leak_scan scan = {.context = context};
    store_begin(context->db);
    size_t objects = kmemleak_parse(report, credit_leak, &scan);
    store_commit(context->db);
    if (!context->options->quiet)
        fprintf(stderr, "failrun: kmemleak: %zu unreferenced object(s), %zu of them allocated "
                        "by an armed call\n", objects, scan.credited);
    for (size_t i = 0; i < scan.seen.count; i++)
        free(scan.seen.items[i]);
    free(scan.seen.items);
    free(report);
}

/* ---- failrun kernel's own options (options.h); failrun run's apply too ---- */

#define RUN (((struct run_command *)target)->options)
static void take_setup_debugfs(void *target, const char *value)
{
    (void)value;
    RUN.setup_debugfs = true;
}
static void take_wrappers(void *target, const char *value)
{
    (void)value;
    RUN.settings.kernel_wrappers = true;
}
static void take_kmem_trace(void *target, const char *value)
{
    (void)value;
    RUN.settings.kmem_trace = true;
}
static void take_kcov(void *target, const char *value)
{
    (void)value;
    RUN.settings.kcov = true;
}
static void take_once_per_syscall(void *target, const char *value)
{
    (void)value;
    RUN.settings.syscall_once = true;
}
static void take_vmlinux(void *target, const char *value)
{
    char *absolute = realpath(value, NULL);
    if (!absolute)
        fatal("--vmlinux %s: %s; give the running kernel's vmlinux", value, strerror(errno));
    free(RUN.settings.vmlinux);
    RUN.settings.vmlinux = absolute;
}
#undef RUN

static const struct option_row kernel_rows[] = {
    {"setup-debugfs", 0, OPTION_FLAG, NULL, OPTION_INVOCATION,
     "(root) mount debugfs if needed and set failslab/ignore-gfp-wait=N, "
     "fail_page_alloc/ignore-gfp-wait=N, fail_page_alloc/min-order=0 (--policy realistic: Y, N, "
     "4), verbose=0 for both; with "
     "--kmem-trace also mount tracefs and define the kprobe events libfail/page_entry, page_ret, "
     "slab_entry and slab_ret", take_setup_debugfs},
    {"kmem-trace", 0, OPTION_FLAG, NULL, OPTION_CAMPAIGN,
     "name each failed kernel allocation: call site, size, GFP flags, too small to fail or not "
     "(needs CONFIG_KPROBE_EVENTS)", take_kmem_trace},
    {"kcov", 0, OPTION_FLAG, NULL, OPTION_CAMPAIGN,
     "record the kernel code each armed call ran (KCOV_TRACE_PC; needs CONFIG_KCOV): the kernel "
     "error legs, lines reached only with the fault, go to the report's table and failrun cov",
     take_kcov},
    {"vmlinux", 0, OPTION_REQUIRED, "PATH", OPTION_CAMPAIGN,
     "the running kernel's vmlinux with DWARF line information, to symbolise the KCOV PCs (kept "
     "with the campaign for later reports; LIBFAIL_VMLINUX overrides it). Refused when its "
     "build-id is not the running kernel's", take_vmlinux},
    {"once-per-syscall", 0, OPTION_FLAG, NULL, OPTION_CAMPAIGN,
     "sweep only the campaign's first site of each system call (a census of the kernel's error "
     "legs over a large suite, at a fraction of the runs); the other sites are listed as "
     "unexplored (same-syscall)", take_once_per_syscall},
    {"wrappers", 0, OPTION_FLAG, NULL, OPTION_CAMPAIGN,
     "trap nothing: the sites are the calls of open, openat, read, write, pipe, pipe2, socket, "
     "socketpair, epoll_create1, eventfd, mmap and fork only. A program that installs its own "
     "SIGSYS handler or seccomp filter, or a kernel without syscall user dispatch, falls back to "
     "this by itself, with a message on standard error", take_wrappers},
    {NULL, 0, OPTION_FLAG, NULL, OPTION_CAMPAIGN, NULL, NULL},
};

const struct option_table kernel_options_table = {
    .synopsis =
        "usage: failrun kernel [--setup-debugfs] [--wrappers] [--kmem-trace] [--kcov [--vmlinux PATH]]\n"
        "                     [--once-per-syscall] [--policy realistic]\n"
        "                     [run options] -- COMMAND [ARGS...]\n"
        "\n"
        "Fail the kernel's allocations inside COMMAND's system calls, site by site. Every system\n"
        "call the programs under test make is trapped (syscall user dispatch: Linux 5.11 or later,\n"
        "x86_64) and is a site: the call and its stack, through libc (the openat inside fopen is\n"
        "one). For each site, run COMMAND with N = 1, 2, ... written to /proc/thread-self/fail-nth\n"
        "just before that call, until the call has fewer than N fault points. Each run's outcome\n"
        "is classified as by `failrun run`; the report lists what each armed call returned. Needs\n"
        "a kernel built with CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC and\n"
        "FAULT_INJECTION_DEBUG_FS, and debugfs set so that ordinary allocations can fail:\n"
        "\n",
    .rows = kernel_rows,
    .epilogue = "Of failrun run's options, --occurrence K arms each site's K-th call; --faults and\n"
                "--fork do not apply. --policy realistic (with --setup-debugfs, or debugfs set so)\n"
                "has the kernel count only the allocations its allocator can fail: those without\n"
                "direct reclaim, and page allocations above order 3 (PAGE_ALLOC_COSTLY_ORDER); the\n"
                "report's census then lists the error legs a too-small-to-fail rule keeps.\n"
                "Exit status: 0 no bugs, 1 bugs found, 2 usage error or a kernel that cannot inject.\n",
    .also = &run_options_table,
    .also_name = "failrun run",
};

static void check_kernel_options(struct run_options *options)
{
    check_kernel(options->setup_debugfs, options->settings.kmem_trace,
                 options->settings.policy_realistic);
    /* The running kernel, kept with the campaign: a later report symbolises its KCOV PCs only
       with a vmlinux of the same build (kernelcov.c). */
    options->settings.kernel_build_id = kernel_running_build_id();
    if (options->settings.vmlinux)
        kernel_check_vmlinux(options->settings.vmlinux, NULL);
    kmemleak_start();
}

int cmd_kernel(int argc, char **argv)
{
    return run_campaign(argc, argv, &kernel_options_table, true, check_kernel_options,
                        kmemleak_finish);
}
