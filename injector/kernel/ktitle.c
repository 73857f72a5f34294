/*
 * ktitle.c — titles of kernel bug reports (ktitle.h).
 *
 * A report is found by its first line (the kernel's own wording in Linux 6.1: "BUG: KASAN: ...",
 * "WARNING: CPU: ...", lockdep's "WARNING: possible circular locking dependency detected",
 * kmemleak's "unreferenced object ..."). Its place is the first function of the report that is not
 * machinery: lockdep's "at: FUNC+0x..." of the lock it names, the function a WARNING names when
 * that is not a checker (refcount, list debugging), else the first reliable frame of the call
 * trace past the reporting, locking and allocation functions.
 */
#include "kernel/ktitle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Functions a report passes through on its way to the one that did wrong: prefixes. */
static const char *const machinery[] = {
    "dump_stack", "show_stack", "print_report", "print_address_description", "kasan_",
    "__kasan_", "__asan_", "check_memory_region", "kmemleak_", "__warn", "warn_slowpath",
    "report_bug", "handle_bug", "exc_invalid_op", "asm_exc_", "refcount_warn_saturate",
    "__refcount_", "refcount_", "__list_add_valid", "__list_del_entry_valid", "list_add",
    "list_del", "lock_acquire", "__lock_acquire", "lock_release", "lockdep_", "check_prev_add",
    "check_prevs_add", "check_noncircular", "validate_chain", "mark_lock", "print_circular_bug",
    "print_usage_bug", "_raw_spin_", "_raw_read_", "_raw_write_", "__mutex_lock", "mutex_lock",
    "mutex_unlock", "down_", "up_", "__might_sleep", "__might_resched", "__might_fault",
    "might_fault", "slab_post_alloc_hook", "slab_alloc", "kmalloc", "__kmalloc", "kmalloc_trace",
    "kmem_cache_alloc", "__kmem_cache_alloc", "kmem_cache_zalloc", "kzalloc", "kvmalloc",
    "__kvmalloc", "krealloc", "kmemdup", "kstrdup", "__alloc_pages", "alloc_pages", "__get_free_pages",
    "kfree", "__kmem_cache_free", "kmem_cache_free", "__slab_free", "memcpy", "memset", "memmove",
    "__memcpy", "__memset", "__memmove", "strlen", "strcpy", "copy_user", "_copy_", "__check_object_size",
    "should_fail", "should_failslab", "__should_failslab", "should_fail_alloc_page",
};

static bool is_machinery(const char *name, size_t length)
{
    for (size_t i = 0; i < sizeof machinery / sizeof machinery[0]; i++) {
        size_t prefix = strlen(machinery[i]);
        if (prefix <= length && !strncmp(name, machinery[i], prefix))
            return true;
    }
    return false;
}

/* The length of the function name that starts `text` and is followed by "+0x" (a stack
   frame's "name+0xOFF/0xSIZE"), or 0. */
static size_t frame_name(const char *text)
{
    size_t length = strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
    return length && !strncmp(text + length, "+0x", 3) ? length : 0;
}

static bool copy_name(const char *name, size_t length, char *out, size_t size)
{
    if (!length || length >= size)
        return false;
    memcpy(out, name, length);
    out[length] = '\0';
    return true;
}

bool kernel_report_culprit(const char *log, char *out, size_t size)
{
    for (const char *line = log; line && *line;) {
        const char *end = strchr(line, '\n');
        const char *text = line + strspn(line, " \t");
        if (*text == '[') { /* kmemleak: "[<ffffffff81234567>] name+0x1f/0x40" */
            const char *close = strchr(text, ']');
            text = close && (!end || close < end) ? close + 1 + strspn(close + 1, " ") : text;
        }
        /* "? name+..." frames are stale words on the stack the unwinder could not vouch for. */
        size_t length = *text == '?' ? 0 : frame_name(text);
        if (length && !is_machinery(text, length))
            return copy_name(text, length, out, size);
        line = end ? end + 1 : NULL;
    }
    return false;
}

/* The function in "at: NAME+0x..." on the first line of `log` that has one (lockdep names the
   lock's acquirer that way), when it is not machinery. */
static bool lock_site(const char *log, char *out, size_t size)
{
    for (const char *at = strstr(log, "at: "); at; at = strstr(at + 1, "at: ")) {
        size_t length = frame_name(at + 4);
        if (length && !is_machinery(at + 4, length))
            return copy_name(at + 4, length, out, size);
    }
    return false;
}

/* The function a "RIP: 0010:NAME+0x..." line names. */
static bool rip_function(const char *log, char *out, size_t size)
{
    const char *rip = strstr(log, "RIP: ");
    const char *colon = rip ? strchr(rip + 5, ':') : NULL;
    if (!colon)
        return false;
    size_t length = frame_name(colon + 1);
    return length && !is_machinery(colon + 1, length) && copy_name(colon + 1, length, out, size);
}

static bool starts(const char *line, const char *prefix)
{
    return !strncmp(line, prefix, strlen(prefix));
}

/* "KIND in PLACE", PLACE the first function past the machinery of `rest` (or "?"). */
static char *titled(const char *kind, const char *place, const char *rest)
{
    char culprit[128] = "?";
    if (place)
        snprintf(culprit, sizeof culprit, "%s", place);
    else
        kernel_report_culprit(rest, culprit, sizeof culprit);
    char *title = NULL;
    return asprintf(&title, "%s in %s", kind, culprit) < 0 ? NULL : title;
}

/* The function a WARNING line names last ("... at fs/x.c:9 f+0x1/0x2 [module]"), or "". */
static void warning_function(const char *kind, char *out, size_t size)
{
    out[0] = '\0';
    const char *end = kind + strlen(kind);
    if (end > kind && end[-1] == ']') /* a module's name after the function */
        while (end > kind && *end != '[')
            end--;
    while (end > kind && end[-1] == ' ')
        end--;
    const char *start = end;
    while (start > kind && start[-1] != ' ')
        start--;
    size_t length = frame_name(start);
    if (length && start + length <= end && !is_machinery(start, length))
        copy_name(start, length, out, size);
}

/* The title of the report whose first line is `line`, the rest of the log after it `rest`;
   NULL when `line` starts no report. The culprit is looked for only once a kind matched. */
static char *title_at(const char *line, size_t length, const char *rest)
{
    char place[128];
    char kind[512];
    snprintf(kind, sizeof kind, "%.*s", (int)length, line);
    if (starts(kind, "BUG: KASAN: ")) {
        /* "BUG: KASAN: use-after-free in f+0x1f/0x40", then "Read of size 8 at addr ..." on
           the next line (none for a double free: no access word then). */
        char *in = strstr(kind, " in ");
        if (in)
            *in = '\0';
        const char *access = starts(rest, "Write of size") ? " Write"
                             : starts(rest, "Read of size") ? " Read"
                                                             : "";
        bool named = in && frame_name(in + 4) && !is_machinery(in + 4, frame_name(in + 4)) &&
                     copy_name(in + 4, frame_name(in + 4), place, sizeof place);
        char with_access[600];
        snprintf(with_access, sizeof with_access, "KASAN: %s%s", kind + 12, access);
        return titled(with_access, named ? place : NULL, rest);
    }
    const char *lockdep[][2] = {
        {"WARNING: possible circular locking dependency detected", "possible deadlock"},
        {"WARNING: possible recursive locking detected", "possible deadlock"},
        {"WARNING: inconsistent lock state", "inconsistent lock state"},
        {"WARNING: bad unlock balance detected", "WARNING: bad unlock balance"},
        {"WARNING: lock held when returning to user space", "WARNING: lock held when returning to user space"},
        {"WARNING: held lock freed", "WARNING: held lock freed"},
        {"WARNING: suspicious RCU usage", "WARNING: suspicious RCU usage"},
        {"WARNING: possible irq lock inversion dependency detected", "possible deadlock"},
        {"WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected", "possible deadlock"},
        {"WARNING: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected", "possible deadlock"},
    };
    for (size_t i = 0; i < sizeof lockdep / sizeof lockdep[0]; i++)
        if (starts(kind, lockdep[i][0]))
            return titled(lockdep[i][1], lock_site(rest, place, sizeof place) ? place : NULL, rest);
    if (starts(kind, "unreferenced object "))
        return titled("memory leak", NULL, rest);
    /* Kinds whose first line goes on with run-specific text (a task, a PID, a CPU, seconds):
       titled by their fixed words only. */
    static const char *const fixed[] = {
        "BUG: sleeping function called from invalid context", "BUG: scheduling while atomic",
        "BUG: workqueue leaked lock or atomic", "BUG: soft lockup", "BUG: spinlock bad magic",
        "BUG: spinlock already unlocked", "BUG: spinlock recursion", "BUG: corrupted list",
        "BUG: Bad page state", "BUG: Bad rss-counter state", "BUG: unable to handle page fault",
        "BUG: stack guard page was hit", "BUG: kernel NULL pointer dereference"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (starts(kind, fixed[i])) {
            const char *name = !strcmp(fixed[i], "BUG: kernel NULL pointer dereference")
                                   ? "BUG: unable to handle kernel NULL pointer dereference"
                               : !strcmp(fixed[i], "BUG: unable to handle page fault")
                                   ? "BUG: unable to handle kernel paging request"
                                   : fixed[i];
            bool at_rip = strstr(name, "unable to handle") != NULL;
            return titled(name, at_rip && rip_function(rest, place, sizeof place) ? place : NULL,
                          rest);
        }
    const char *fault_kind = starts(kind, "general protection fault") ? "general protection fault"
                             : starts(kind, "BUG: unable to handle") ? "BUG: unable to handle kernel paging request"
                             : starts(kind, "kernel BUG at") ? "kernel BUG"
                             : starts(kind, "Oops") ? "Oops"
                                                    : NULL;
    if (fault_kind)
        return titled(fault_kind, rip_function(rest, place, sizeof place) ? place : NULL, rest);
    if (starts(kind, "WARNING: CPU: ")) {
        /* "WARNING: CPU: 0 PID: 57 at lib/refcount.c:28 refcount_warn_saturate+0x.../0x...":
           a checker's warning is titled by what it checks, at its caller. */
        const char *at = strstr(kind, " at ");
        const char *function = at ? strrchr(at, ' ') : NULL;
        if (function && starts(function + 1, "refcount_"))
            return titled("WARNING: refcount bug", NULL, rest);
        if (function && (starts(function + 1, "__list_add_valid") ||
                         starts(function + 1, "__list_del_entry_valid")))
            return titled("BUG: corrupted list", NULL, rest);
        warning_function(kind, place, sizeof place);
        return titled("WARNING", place[0] ? place : NULL, rest);
    }
    if (starts(kind, "UBSAN: ") || starts(kind, "WARNING: ") || starts(kind, "BUG: ") ||
        starts(kind, "Kernel panic") || starts(kind, "INFO: possible")) {
        /* Its words up to a place, a detail or a number: "UBSAN: shift-out-of-bounds in
           x.c:9" is "UBSAN: shift-out-of-bounds", "WARNING: stack recursion on stack type 4"
           is "WARNING: stack recursion on stack type". */
        char *body = strstr(kind, ": ");
        body = body ? body + 2 : kind; /* past "BUG: ", "WARNING: ", ... */
        char *cut = strstr(body, " in ");
        char *colon = strpbrk(body, ",:!");
        if (colon && (!cut || colon < cut))
            cut = colon;
        if (cut)
            *cut = '\0';
        for (char *c = body; *c; c++)
            if ((*c >= '0' && *c <= '9') || *c == '#') {
                c[c > body && c[-1] == ' ' ? -1 : 0] = '\0';
                break;
            }
        return titled(kind, NULL, rest);
    }
    return NULL;
}

char *kernel_report_title(const char *log)
{
    for (const char *line = log; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        char *title = title_at(line, length, end ? end + 1 : "");
        if (title)
            return title;
        line = end ? end + 1 : NULL;
    }
    return NULL;
}
