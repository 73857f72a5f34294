/*
 * plan.c — parse the fault plan a run receives in LIBFAIL_PLAN, and the decision rules that
 * do not depend on process state (fail-nth, probability).
 *
 * One plan per run (doc/guide/faults.md):
 *   mode=record                            record sites, fail nothing
 *   mode=site;sites=S1:K1,S2:K2,...        fail site S1 at its K1-th occurrence, then S2 at its
 *                                          K2-th, ...: a chain, so a site that only exists on
 *                                          the error leg of S1 can be failed too; the last site is
 *                                          the run's target, persistent=1 fails it from K on
 *   mode=nth;nth=N                         fail the N-th call (the kernel's fail-nth rules)
 *   mode=random;probability=P;seed=S       fail each call with probability P (0 < P <= 1)
 *   mode=kernel                            record system-call sites (failrun kernel), fail nothing
 *   mode=kernel;sites=S:K;nth=N            write N to /proc/thread-self/fail-nth just before the
 *                                          K-th call at system-call site S (one site)
 *   mode=kernel;...;wrappers=1             the same at the libc wrappers of injector/preload/kernel.c
 *                                          only, not at every trapped system call
 *   mode=fork;jobs=N;timeout=MS            record as mode=record, and at each site reached for
 *                                          the first time fork a child that fails it (forkmode.c;
 *                                          LIBFAIL_FORK names the folder of the children's
 *                                          folders): up to N children at once (default 1), each
 *                                          killed after MS milliseconds (0 or absent: never)
 *   mode=start;jobs=N;timeout=MS           a program failrun planned runs for (LIBFAIL_FORK/starts)
 *                                          forks them before main, each child with its site's
 *                                          run plan, and goes on failing nothing (forkmode.c)
 *   mode=fork;...;tests=F1,F2:int          F1, F2 are test-case functions too (testcase.c): a
 *                                          child ends when the test case it forked in returns
 *                                          (":int": and it passed if the function returned 0)
 * plus own=1 (the baseline of a campaign without --exe: a system executable records only until a
 * non-system one has started in the run, since the scope is then every non-system executable:
 * runtime.c, own_code_started), cpu=MS (a process a planned fault fired in may use MS more
 * milliseconds of CPU, then it is
 * a hang: exits.c, runtime_arm_cpu_limit; 0 or absent: no limit), depth=D (frames in a signature,
 * default 8) and faults=K1,K2 (the kinds of call that are
 * sites: alloc, the allocators and failpoints, the default; io, the I/O calls that
 * libfail-preload-io.so interposes; in any order, each at most once). In site mode each site may carry its first
 * frame, S:K@MODULE+OFFSET (hex): a call whose own first frame differs cannot be that site, so it
 * is not unwound at all until a fault has fired (the fast path of a targeted run).
 * Runs inside the target before anything else is set up: no allocation, no stdio.
 */
#include "plan.h"
#include "text.h"

#include <string.h>

static bool LF_TEXT key_is(const char *key, size_t length, const char *name)
{
    return strlen(name) == length && memcmp(key, name, length) == 0;
}

/* "MODULE+OFFSET" in hex. */
static bool LF_TEXT parse_top(const char *text, size_t length, struct record_frame *top)
{
    const char *plus = memchr(text, '+', length);
    if (!plus)
        return false;
    size_t module_length = (size_t)(plus - text);
    return parse_hex(text, module_length, &top->module) &&
           parse_hex(plus + 1, length - module_length - 1, &top->offset);
}

/* "S:K@TOP" with ":K" (occurrence 1) and "@TOP" optional, comma separated. */
static const char *LF_TEXT parse_sites(struct plan *plan, const char *value, size_t length)
{
    plan->fault_count = 0;
    for (;;) {
        const char *comma = memchr(value, ',', length);
        size_t item = comma ? (size_t)(comma - value) : length;
        if (plan->fault_count == PLAN_MAX_FAULTS)
            return "at most 8 sites in a chain";
        struct plan_fault *fault = &plan->faults[plan->fault_count];
        const char *at = memchr(value, '@', item);
        size_t head = at ? (size_t)(at - value) : item;
        fault->has_top = at != NULL;
        if (at && !parse_top(at + 1, item - head - 1, &fault->top))
            return "a site's first frame must read MODULE+OFFSET in hex";
        const char *colon = memchr(value, ':', head);
        size_t site_length = colon ? (size_t)(colon - value) : head;
        if (site_length != 16 || !parse_hex(value, 16, &fault->site))
            return "each site must be 16 hex digits";
        fault->occurrence = 1;
        if (colon && (!parse_decimal(colon + 1, head - site_length - 1, &fault->occurrence) ||
                      fault->occurrence == 0))
            return "an occurrence must be a whole number >= 1";
        plan->fault_count++;
        if (!comma)
            return NULL;
        value += item + 1; /* an empty item after a comma fails the 16-digit check */
        length -= item + 1;
    }
}

/* "0.25" style decimal in (0, 1], as a fraction of 2^32 (1 is UINT32_MAX + 1, kept as 2^32). */
static const char *LF_TEXT parse_probability(struct plan *plan, const char *value, size_t length)
{
    uint64_t whole = 0, fraction = 0, scale = 1;
    const char *dot = memchr(value, '.', length);
    size_t whole_length = dot ? (size_t)(dot - value) : length;
    if (whole_length && !parse_decimal(value, whole_length, &whole))
        return "probability must be a decimal number";
    if (dot) {
        size_t fraction_length = length - whole_length - 1;
        if (fraction_length == 0 || fraction_length > 9 ||
            !parse_decimal(dot + 1, fraction_length, &fraction))
            return "probability must be a decimal number";
        for (size_t i = 0; i < fraction_length; i++)
            scale *= 10;
    }
    if (whole > 1)
        return "probability must be more than 0 and at most 1";
    uint64_t scaled = whole * (1ull << 32) + fraction * (1ull << 32) / scale;
    if (scaled == 0 || scaled > (1ull << 32))
        return "probability must be more than 0 and at most 1";
    plan->probability = scaled;
    return NULL;
}

/* Kinds that --faults chooses (kinds.def), comma separated: "alloc", "io", "alloc,io". */
static const char *LF_TEXT parse_faults(struct plan *plan, const char *value, size_t length)
{
    plan->fault_kinds = 0;
    for (;;) {
        const char *comma = memchr(value, ',', length);
        size_t item = comma ? (size_t)(comma - value) : length;
        unsigned kind = 0;
#define FAULT_KIND(id, name, chosen, ...)                                                          \
        if (chosen && !kind && key_is(value, item, #name))                                         \
            kind = PLAN_FAULT(id);
#include "kinds.def"
#undef FAULT_KIND
        if (!kind || (plan->fault_kinds & kind))
            return "faults must list kinds of fault (alloc, io), each at most once";
        plan->fault_kinds |= kind;
        if (!comma)
            return NULL;
        value += item + 1;
        length -= item + 1;
    }
}

static const char *LF_TEXT plan_set(struct plan *plan, const char *key, size_t key_length,
                                    const char *value, size_t value_length)
{
    uint64_t number;
    if (key_is(key, key_length, "mode")) {
        if (key_is(value, value_length, "record"))
            plan->mode = PLAN_RECORD;
        else if (key_is(value, value_length, "site"))
            plan->mode = PLAN_SITE;
        else if (key_is(value, value_length, "nth"))
            plan->mode = PLAN_NTH;
        else if (key_is(value, value_length, "random"))
            plan->mode = PLAN_RANDOM;
        else if (key_is(value, value_length, "kernel"))
            plan->mode = PLAN_KERNEL;
        else if (key_is(value, value_length, "fork"))
            plan->mode = PLAN_FORK;
        else if (key_is(value, value_length, "start"))
            plan->mode = PLAN_START;
        else
            return "mode must be record, site, nth, random, kernel, fork or start";
    } else if (key_is(key, key_length, "sites")) {
        return parse_sites(plan, value, value_length);
    } else if (key_is(key, key_length, "persistent")) {
        if (!key_is(value, value_length, "0") && !key_is(value, value_length, "1"))
            return "persistent must be 0 or 1";
        plan->persistent = value[0] == '1';
    } else if (key_is(key, key_length, "nth")) {
        if (!parse_decimal(value, value_length, &number) || number == 0)
            return "nth must be a whole number >= 1";
        plan->nth = number;
    } else if (key_is(key, key_length, "probability")) {
        return parse_probability(plan, value, value_length);
    } else if (key_is(key, key_length, "seed")) {
        if (!parse_decimal(value, value_length, &plan->seed))
            return "seed must be a whole number";
    } else if (key_is(key, key_length, "jobs")) {
        if (!parse_decimal(value, value_length, &number) || number == 0 || number > PLAN_MAX_JOBS)
            return "jobs must be between 1 and 64";
        plan->jobs = (unsigned)number;
    } else if (key_is(key, key_length, "timeout")) {
        if (!parse_decimal(value, value_length, &plan->timeout_ms))
            return "timeout must be a whole number of milliseconds";
    } else if (key_is(key, key_length, "own")) {
        if (!key_is(value, value_length, "0") && !key_is(value, value_length, "1"))
            return "own must be 0 or 1";
        plan->own_first = value[0] == '1';
    } else if (key_is(key, key_length, "cpu")) {
        if (!parse_decimal(value, value_length, &plan->cpu_ms))
            return "cpu must be a whole number of milliseconds";
    } else if (key_is(key, key_length, "faults")) {
        return parse_faults(plan, value, value_length);
    } else if (key_is(key, key_length, "wrappers")) {
        if (!parse_decimal(value, value_length, &number) || number > 1)
            return "wrappers must be 0 or 1";
        plan->kernel_wrappers = number == 1;
    } else if (key_is(key, key_length, "tests")) {
        if (value_length == 0 || value_length >= sizeof plan->tests)
            return "tests must list 1 to 255 bytes of function names";
        for (size_t i = 0; i < value_length; i++)
            if (!(value[i] == ',' || value[i] == ':' || value[i] == '_' || value[i] == '$' || value[i] == '.' ||
                  (value[i] >= '0' && value[i] <= '9') || (value[i] >= 'a' && value[i] <= 'z') ||
                  (value[i] >= 'A' && value[i] <= 'Z')))
                return "tests must be function names separated by commas";
        memcpy(plan->tests, value, value_length);
        plan->tests[value_length] = '\0';
    } else if (key_is(key, key_length, "depth")) {
        if (!parse_decimal(value, value_length, &number) || number == 0 ||
            number > RECORD_MAX_FRAMES)
            return "depth must be between 1 and 28";
        plan->depth = (unsigned)number;
    } else {
        return "unknown key";
    }
    return NULL;
}

const char *LF_TEXT plan_parse(const char *text, struct plan *out)
{
    static const struct plan initial = {.mode = PLAN_OFF, .depth = LF_DEFAULT_DEPTH, .jobs = 1,
                                         .fault_kinds = PLAN_FAULT_ALLOC};
    struct plan plan = initial;
    *out = initial;
    if (!text || !*text)
        return "empty plan";
    while (*text) {
        const char *end = strchr(text, ';');
        size_t length = end ? (size_t)(end - text) : strlen(text);
        if (length == 0) { /* ";;": failrun pads plans to one length (environment.c) */
            text++;
            continue;
        }
        const char *equals = memchr(text, '=', length);
        if (!equals)
            return "expected key=value";
        size_t key_length = (size_t)(equals - text);
        const char *error = plan_set(&plan, text, key_length, equals + 1, length - key_length - 1);
        if (error)
            return error;
        text = end ? end + 1 : text + length;
    }
    if (plan.mode == PLAN_OFF)
        return "missing mode";
    if (plan.mode == PLAN_SITE && plan.fault_count == 0)
        return "mode=site needs sites=";
    if (plan.mode == PLAN_NTH && plan.nth == 0)
        return "mode=nth needs nth=";
    if (plan.mode == PLAN_RANDOM && plan.probability == 0)
        return "mode=random needs probability=";
    if (plan.mode == PLAN_KERNEL && plan.fault_count > 1)
        return "mode=kernel fails one site at a time";
    if (plan.mode == PLAN_KERNEL && (plan.fault_count == 0) != (plan.nth == 0))
        return "mode=kernel needs both sites= and nth=, or neither";
    if (plan.mode == PLAN_KERNEL && plan.fault_kinds != PLAN_FAULT_ALLOC)
        return "mode=kernel fails system calls: faults= does not apply";
    *out = plan;
    return NULL;
}

bool LF_TEXT fail_nth_tick(uint64_t *counter)
{
    if (*counter == 0)
        return false;
    return --*counter == 0;
}

/* splitmix64: a tiny, well-mixed generator; the same seed gives the same decisions. */
bool LF_TEXT random_tick(uint64_t *state, uint64_t probability)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (z >> 32) < probability;
}
