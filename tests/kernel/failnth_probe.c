/*
 * failnth_probe.c — what the kernel's /proc/thread-self/fail-nth really does, measured inside
 * the test VM (tests/kernel/guest-failnth.sh runs it; needs root, debugfs and a kernel with
 * FAILSLAB and FAIL_PAGE_ALLOC). `failrun kernel` relies on these rules; this test pins them.
 *
 * For each system call (pipe, socketpair, epoll_create1, eventfd) it sweeps N = 1, 2, ...:
 * write N to fail-nth, make the call, read fail-nth back, write 0, print the three. The N-th
 * fault-injection point inside the call fails; the read-back is 0 exactly when the count ran out
 * inside the call (the call then fails, or absorbs the failure and succeeds) and positive when the
 * call finished first, which ends the sweep: N - 1 points were injectable. The sweep runs
 * several times, since slab refills (page allocations) can add a point now and then.
 *
 * Output: "# ..." lines for the record, then TAP-style "ok - ..." / "not ok - ..." lines, one per
 * check; the exit status is 1 if any check failed.
 *
 * Between arming fail-nth and reading it back nothing may allocate in the kernel on this
 * thread's behalf except the call under test: memory is locked (mlockall) so page faults cannot
 * consume the count, the fail-nth file is opened once, and printing happens after disarming.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_POINTS 200
#define SWEEPS 8
/* Slab refills can add points to a call: a new slab page is one more point (two when its failed
 * high-order attempt falls back to a smaller order, which SLUB absorbs). */
#define REFILL_SLACK 2
#define DEBUGFS "/sys/kernel/debug"

static int fail_nth_fd = -1;
static int checks_failed;

static void check(bool passed, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void check(bool passed, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    printf("%s - ", passed ? "ok" : "not ok");
    vprintf(format, arguments);
    printf("\n");
    va_end(arguments);
    fflush(stdout);
    if (!passed)
        checks_failed++;
}

static void die(const char *what)
{
    printf("not ok - %s: %s\n", what, strerror(errno));
    exit(1);
}

/* Set one debugfs knob; the defaults skip GFP_KERNEL allocations and order-0 pages. */
static void set_knob(const char *path, const char *value)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0 || write(fd, value, strlen(value)) != (ssize_t)strlen(value))
        die(path);
    close(fd);
}

static void arm(int fd, unsigned count)
{
    char text[16];
    int length = snprintf(text, sizeof text, "%u", count);
    if (pwrite(fd, text, (size_t)length, 0) != length)
        die("write fail-nth");
}

static int read_count(int fd)
{
    char text[16] = {0};
    if (pread(fd, text, sizeof text - 1, 0) <= 0)
        die("read fail-nth");
    return atoi(text);
}

/* ---- the calls under test: each makes the call, keeps what to close, reports errno ---- */

struct call_result {
    int value;   /* the call's return value */
    int error;   /* errno right after it */
    int fds[2];  /* descriptors to close after disarming, -1 if none */
};

static void call_pipe(struct call_result *result)
{
    result->value = pipe(result->fds);
    result->error = errno;
}

static void call_socketpair(struct call_result *result)
{
    result->value = socketpair(AF_UNIX, SOCK_STREAM, 0, result->fds);
    result->error = errno;
}

static void call_epoll_create1(struct call_result *result)
{
    result->value = result->fds[0] = epoll_create1(0);
    result->error = errno;
}

static void call_eventfd(struct call_result *result)
{
    result->value = result->fds[0] = eventfd(0, 0);
    result->error = errno;
}

struct probe {
    const char *name;
    void (*call)(struct call_result *);
    int points;             /* injectable points of the call when no slab needs a new page */
    const char *failures;   /* how those points fail, as describe() prints it */
};

/* Measured on this kernel (6.1, tinyconfig + tests/kernel/kernel.config). */
static const struct probe probes[] = {
    {"pipe", call_pipe, 6, "1-3 ENFILE, 4-6 ENOMEM"},
    {"socketpair", call_socketpair, 8, "1 ENFILE, 2 ENOMEM, 3 ENFILE, 4-8 ENOMEM"},
    {"epoll_create1", call_epoll_create1, 3, "1-3 ENOMEM"},
    {"eventfd", call_eventfd, 3, "1-3 ENOMEM"},
};

static const char *errno_name(int error)
{
    switch (error) {
    case 0: return "-";
    case ENOMEM: return "ENOMEM";
    case ENFILE: return "ENFILE";
    case EMFILE: return "EMFILE";
    default: return strerror(error);
    }
}

static bool injected_errno(int error)
{
    return error == ENOMEM || error == ENFILE || error == EMFILE;
}

struct sweep_result {
    int points;                 /* injectable points: the sweep ended at points + 1 */
    int completed_points;       /* points the completing call passed: armed count - read-back */
    int errors[MAX_POINTS + 1]; /* per point: errno of the injected failure, 0 if absorbed */
    int absorbed;               /* points whose failure the kernel absorbed: success, read-back 0 */
    int violations;             /* calls breaking the rules below (each printed) */
};

/* One sweep. The rules every call must keep: it fails only when its count ran out inside it
 * (read-back 0), and then with ENOMEM, ENFILE or EMFILE; a non-zero read-back means it succeeded. */
static void sweep(const struct probe *probe, struct sweep_result *sweep_result, bool quiet)
{
    memset(sweep_result, 0, sizeof *sweep_result);
    sweep_result->points = -1;
    for (int n = 1; n <= MAX_POINTS; n++) {
        struct call_result result = {0, 0, {-1, -1}};
        errno = 0;
        arm(fail_nth_fd, (unsigned)n);
        probe->call(&result);
        int left = read_count(fail_nth_fd);
        arm(fail_nth_fd, 0);
        for (int i = 0; i < 2; i++)
            if (result.value >= 0 && result.fds[i] >= 0)
                close(result.fds[i]);
        const char *verdict = left != 0 ? "completed" : result.value < 0 ? "injected" : "absorbed";
        bool failed = result.value < 0;
        if (!quiet)
            printf("#   %s n=%d result=%d errno=%s read-back=%d (%s)\n", probe->name, n, result.value,
                   failed ? errno_name(result.error) : "-", left, verdict);
        if (failed && (left != 0 || !injected_errno(result.error))) {
            printf("# rule broken: %s n=%d failed with %s, read-back %d\n", probe->name, n,
                   errno_name(result.error), left);
            sweep_result->violations++;
        }
        if (left != 0) {
            sweep_result->points = n - 1;
            sweep_result->completed_points = n - left;
            return;
        }
        sweep_result->errors[n] = failed ? result.error : 0;
        sweep_result->absorbed += !failed;
    }
    printf("# rule broken: %s did not complete within %d points\n", probe->name, MAX_POINTS);
    sweep_result->violations++;
}

/* "1-3 ENFILE, 4-6 ENOMEM": the points grouped by outcome. */
static void describe(const int errors[], int points, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int start = 1; start <= points;) {
        int end = start;
        while (end < points && errors[end + 1] == errors[start])
            end++;
        const char *what = errors[start] ? errno_name(errors[start]) : "absorbed";
        int written = start == end ? snprintf(out + used, size - used, "%s%d %s", used ? ", " : "", start, what)
                                   : snprintf(out + used, size - used, "%s%d-%d %s", used ? ", " : "",
                                              start, end, what);
        if (written < 0 || (size_t)written >= size - used)
            break;
        used += (size_t)written;
        start = end + 1;
    }
}

/* A fixed set of checks per call, whatever the sweeps find: the rules held in every sweep; the
 * fewest points any sweep saw is the call's own number, and refills added at most REFILL_SLACK;
 * and at least one sweep, undisturbed by refills, failed the points exactly as expected. (A refill
 * inside one call of a sweep shifts that call's points by one, so single sweeps may differ.) */
static void probe_call(const struct probe *probe)
{
    int smallest = MAX_POINTS, largest = -1, violations = 0, absorbed = 0, as_expected = 0;
    for (int round = 0; round < SWEEPS; round++) {
        struct sweep_result result;
        char summary[512];
        sweep(probe, &result, round != 0);
        describe(result.errors, result.points, summary, sizeof summary);
        printf("# %s sweep %d: %d injectable points (the completing call passed %d): %s\n", probe->name,
               round + 1, result.points, result.completed_points, summary[0] ? summary : "none");
        int low = result.points < result.completed_points ? result.points : result.completed_points;
        int high = result.points > result.completed_points ? result.points : result.completed_points;
        smallest = low < smallest ? low : smallest;
        largest = high > largest ? high : largest;
        violations += result.violations;
        absorbed += result.absorbed;
        as_expected += result.points == probe->points && result.completed_points == probe->points &&
                       strcmp(summary, probe->failures) == 0;
    }
    printf("# %s: %d-%d injectable points over %d sweeps, %d absorbed failure(s), %d sweep(s) as "
           "expected\n", probe->name, smallest, largest, SWEEPS, absorbed, as_expected);
    check(violations == 0, "%s: fails only when its count ran out (read-back 0), with ENOMEM/ENFILE/"
          "EMFILE", probe->name);
    check(smallest == probe->points && largest <= probe->points + REFILL_SLACK,
          "%s: %d injectable points, up to %d more with slab refills (saw %d-%d)", probe->name,
          probe->points, REFILL_SLACK, smallest, largest);
    check(as_expected > 0, "%s: a sweep without refills fails its points as %s (%d of %d sweeps)",
          probe->name, probe->failures, as_expected, SWEEPS);
}

/* fail-nth is one-shot: after the injected failure the count is 0 and the next call succeeds. */
static void check_one_shot(void)
{
    int fds[2], more[2];
    arm(fail_nth_fd, 1);
    int first = pipe(fds);
    int second = pipe(more);
    int left = read_count(fail_nth_fd);
    arm(fail_nth_fd, 0);
    if (first == 0) {
        close(fds[0]);
        close(fds[1]);
    }
    if (second == 0) {
        close(more[0]);
        close(more[1]);
    }
    check(first < 0 && second == 0 && left == 0,
          "fail-nth is one-shot: pipe fails at point 1, the next pipe succeeds (%d, %d, left %d)",
          first, second, left);
    arm(fail_nth_fd, 0);
    first = pipe(fds);
    left = read_count(fail_nth_fd);
    if (first == 0) {
        close(fds[0]);
        close(fds[1]);
    }
    check(first == 0 && left == 0, "fail-nth 0 injects nothing");
}

/* A forked child starts with fail-nth 0 even though its parent armed it; a descriptor of the
 * parent's fail-nth file, inherited, still names the parent's thread. */
static void check_fork(void)
{
    int report[2];
    if (pipe(report) != 0)
        die("pipe");
    const unsigned armed = 1000;
    arm(fail_nth_fd, armed);
    pid_t child = fork();
    if (child == 0) {
        int own = open("/proc/thread-self/fail-nth", O_RDWR);
        int values[2] = {own < 0 ? -1 : read_count(own), read_count(fail_nth_fd)};
        _exit(write(report[1], values, sizeof values) == sizeof values ? 0 : 1);
    }
    int values[2] = {-1, -1};
    ssize_t got = child > 0 ? read(report[0], values, sizeof values) : -1;
    int status = -1;
    if (child > 0)
        waitpid(child, &status, 0);
    int left = read_count(fail_nth_fd);
    arm(fail_nth_fd, 0);
    close(report[0]);
    close(report[1]);
    if (child < 0)
        die("fork with fail-nth armed at 1000");
    printf("# fork: parent armed %u, fork+read+wait consumed %u points; child reads own %d, "
           "inherited fd %d\n", armed, armed - (unsigned)left, values[0], values[1]);
    check(got == sizeof values && values[0] == 0, "fork: the child's own fail-nth reads 0 (%d)",
          values[0]);
    check(values[1] > 0 && left > 0, "fork: an inherited fail-nth descriptor reads the parent's "
          "count (%d; parent has %d after waiting)", values[1], left);
}

static void *thread_reads_own(void *unused)
{
    (void)unused;
    int own = open("/proc/thread-self/fail-nth", O_RDWR);
    long value = own < 0 ? -1 : read_count(own);
    if (own >= 0)
        close(own);
    return (void *)value;
}

static void check_thread(void)
{
    pthread_t thread;
    void *value = (void *)-1L;
    arm(fail_nth_fd, 1000);
    int created = pthread_create(&thread, NULL, thread_reads_own, NULL);
    if (created == 0)
        pthread_join(thread, &value);
    int left = read_count(fail_nth_fd);
    arm(fail_nth_fd, 0);
    check(created == 0 && (long)value == 0 && left > 0,
          "thread: a new thread's fail-nth reads 0 (%ld) while its creator's stays armed (%d)",
          (long)value, left);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        die("mlockall");
    set_knob(DEBUGFS "/failslab/ignore-gfp-wait", "N");
    set_knob(DEBUGFS "/failslab/verbose", "0");
    set_knob(DEBUGFS "/fail_page_alloc/ignore-gfp-wait", "N");
    set_knob(DEBUGFS "/fail_page_alloc/min-order", "0");
    set_knob(DEBUGFS "/fail_page_alloc/verbose", "0");
    fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
    if (fail_nth_fd < 0)
        die("open /proc/thread-self/fail-nth (kernel without CONFIG_FAULT_INJECTION?)");
    check(read_count(fail_nth_fd) == 0, "fail-nth reads 0 before anything armed it");

    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        probe_call(&probes[i]);
    check_one_shot();
    check_fork();
    check_thread();
    printf("# failnth_probe: %d check(s) failed\n", checks_failed);
    return checks_failed ? 1 : 0;
}
