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

/* The title of the report whose first line is `line`, the rest of the log after it `rest`;
   NULL when `line` starts no report. */
static char *title_at(const char *line, size_t length, const char *rest)
{
    char place[128] = "";
    char kind[128];
    snprintf(kind, sizeof kind, "%.*s", (int)length, line);
    bool have = kernel_report_culprit(rest, place, sizeof place);
    char *title = NULL;
    if (starts(kind, "BUG: KASAN: ")) {
        /* "BUG: KASAN: use-after-free in f+0x1f/0x40", then "Read of size 8 at addr ...". */
        char *in = strstr(kind, " in ");
        if (in)
            *in = '\0';
        const char *access = strstr(rest, "Write of size") && (!strstr(rest, "Read of size") ||
                                                                 strstr(rest, "Write of size") < strstr(rest, "Read of size"))
                                 ? "Write"
                                 : "Read";
        if (in && frame_name(in + 4) && !is_machinery(in + 4, frame_name(in + 4)))
            have = copy_name(in + 4, frame_name(in + 4), place, sizeof place);
        if (asprintf(&title, "KASAN: %s %s in %s", kind + 12, access, have ? place : "?") < 0)
            title = NULL;
        return title;
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
        if (starts(kind, lockdep[i][0])) {
            if (lock_site(rest, place, sizeof place))
                have = true;
            return asprintf(&title, "%s in %s", lockdep[i][1], have ? place : "?") < 0 ? NULL : title;
        }
    if (starts(kind, "unreferenced object "))
        return asprintf(&title, "memory leak in %s", have ? place : "?") < 0 ? NULL : title;
    if (starts(kind, "BUG: sleeping function called from invalid context") ||
        starts(kind, "BUG: scheduling while atomic") || starts(kind, "BUG: workqueue leaked lock") ||
        starts(kind, "BUG: corrupted list")) {
        char *at = strstr(kind, " at ");
        if (at)
            *at = '\0';
        return asprintf(&title, "%s in %s", kind, have ? place : "?") < 0 ? NULL : title;
    }
    bool fault = starts(kind, "general protection fault");
    const char *fault_kind = fault ? "general protection fault"
                             : starts(kind, "BUG: kernel NULL pointer dereference")
                                 ? "BUG: unable to handle kernel NULL pointer dereference"
                             : starts(kind, "BUG: unable to handle") ? "BUG: unable to handle kernel paging request"
                             : starts(kind, "kernel BUG at") ? "kernel BUG"
                             : starts(kind, "Oops") ? "Oops"
                                                    : NULL;
    if (fault_kind) {
        if (rip_function(rest, place, sizeof place))
            have = true;
        return asprintf(&title, "%s in %s", fault_kind, have ? place : "?") < 0 ? NULL : title;
    }
    if (starts(kind, "WARNING: CPU: ")) {
        /* "WARNING: CPU: 0 PID: 57 at lib/refcount.c:28 refcount_warn_saturate+0x.../0x...":
           a checker's warning is titled by what it checks, at its caller. */
        const char *last = strrchr(kind, ' ');
        size_t named = last ? frame_name(last + 1) : 0;
        if (named && starts(last + 1, "refcount_"))
            return asprintf(&title, "WARNING: refcount bug in %s", have ? place : "?") < 0 ? NULL : title;
        if (named && (starts(last + 1, "__list_add_valid") || starts(last + 1, "__list_del_entry_valid")))
            return asprintf(&title, "BUG: corrupted list in %s", have ? place : "?") < 0 ? NULL : title;
        if (named && !is_machinery(last + 1, named))
            have = copy_name(last + 1, named, place, sizeof place);
        return asprintf(&title, "WARNING in %s", have ? place : "?") < 0 ? NULL : title;
    }
    if (starts(kind, "UBSAN: ")) {
        char *in = strstr(kind, " in ");
        if (in)
            *in = '\0';
        return asprintf(&title, "%s in %s", kind, have ? place : "?") < 0 ? NULL : title;
    }
    if (starts(kind, "BUG: ") || starts(kind, "Kernel panic") || starts(kind, "INFO: possible")) {
        char *cut = strpbrk(kind + 5, ",:!"); /* past "BUG: " itself */
        if (cut)
            *cut = '\0';
        return asprintf(&title, "%s in %s", kind, have ? place : "?") < 0 ? NULL : title;
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
