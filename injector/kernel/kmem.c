/*
 * kmem.c — reads the kmem trace of an armed call (see kmem.h and injector/preload/kernel.c) and
 * says which allocation failed and whether it was one the page allocator never fails.
 *
 * The trace, as tracefs prints it:
 *   kmalloc: call_site=alloc_pipe_info+0x4d/0x150 ptr=0000000000000000 bytes_req=640
 *            bytes_alloc=1024 gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO node=-1 accounted=true
 *   kmem_cache_alloc: (the same fields)
 *   page_entry: (should_fail_alloc_page+0x0/0x20) gfp=0xcc0 order=0
 *   page_ret: (__alloc_pages+0x8a/0x1f0 <- should_fail_alloc_page) ret=1
 *   <stack trace>
 *    => __alloc_pages+0x8a/0x1f0
 *    => pipe_write+0x2d3/0x5c0
 * Only NULL results of the slab events are the failure; a page_ret of 1 is fail_page_alloc
 * failing the page allocation whose page_entry came just before it. A slab allocation that
 * failed because its new slab's pages did is reported as the slab allocation (what the caller
 * asked for, with its flags).
 */
#include "kernel/kmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names show_gfp_flags prints (include/trace/events/mmflags.h), composite ones first. */
static const struct {
    const char *name;
    uint32_t value;
} gfp_names[] = {
    {"GFP_TRANSHUGE", 0x1c24cau},       {"GFP_TRANSHUGE_LIGHT", 0x1c20cau},
    {"GFP_HIGHUSER_MOVABLE", 0x100ccau}, {"GFP_HIGHUSER", 0x100cc2u},
    {"GFP_USER", 0x100cc0u},            {"GFP_KERNEL_ACCOUNT", 0x400cc0u},
    {"GFP_KERNEL", 0xcc0u},             {"GFP_NOFS", 0xc40u},
    {"GFP_ATOMIC", 0xa20u},             {"GFP_NOIO", 0xc00u},
    {"GFP_NOWAIT", 0x800u},             {"GFP_DMA", 0x01u},
    {"__GFP_HIGHMEM", 0x02u},           {"GFP_DMA32", 0x04u},
    {"__GFP_HIGH", 0x20u},              {"__GFP_ATOMIC", 0x200u},
    {"__GFP_IO", 0x40u},                {"__GFP_FS", 0x80u},
    {"__GFP_NOWARN", 0x2000u},          {"__GFP_RETRY_MAYFAIL", 0x4000u},
    {"__GFP_NOFAIL", 0x8000u},          {"__GFP_NORETRY", 0x10000u},
    {"__GFP_COMP", 0x40000u},           {"__GFP_ZERO", 0x100u},
    {"__GFP_NOMEMALLOC", 0x80000u},     {"__GFP_MEMALLOC", 0x20000u},
    {"__GFP_HARDWALL", 0x100000u},      {"__GFP_THISNODE", 0x200000u},
    {"__GFP_RECLAIMABLE", 0x10u},       {"__GFP_MOVABLE", 0x08u},
    {"__GFP_ACCOUNT", 0x400000u},       {"__GFP_WRITE", 0x1000u},
    {"__GFP_RECLAIM", 0xc00u},          {"__GFP_DIRECT_RECLAIM", 0x400u},
    {"__GFP_KSWAPD_RECLAIM", 0x800u},   {"__GFP_ZEROTAGS", 0x800000u},
};
#define GFP_NAME_COUNT (sizeof gfp_names / sizeof gfp_names[0])

bool kmem_gfp_parse(const char *text, uint32_t *gfp)
{
    *gfp = 0;
    if (!*text)
        return false;
    while (*text) {
        size_t length = strcspn(text, "|");
        bool known = false;
        if (length > 2 && text[0] == '0' && text[1] == 'x') {
            char *end;
            unsigned long value = strtoul(text, &end, 16);
            known = (size_t)(end - text) == length;
            *gfp |= (uint32_t)value;
        }
        for (size_t i = 0; i < GFP_NAME_COUNT && !known; i++)
            if (strlen(gfp_names[i].name) == length && !strncmp(text, gfp_names[i].name, length)) {
                *gfp |= gfp_names[i].value;
                known = true;
            }
        if (!known)
            return false;
        text += length;
        if (*text == '|')
            text++;
    }
    return true;
}

void kmem_gfp_format(uint32_t gfp, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < GFP_NAME_COUNT && gfp; i++) {
        uint32_t value = gfp_names[i].value;
        if ((gfp & value) != value)
            continue;
        int n = snprintf(out + used, size - used, "%s%s", used ? "|" : "", gfp_names[i].name);
        if (n < 0 || (size_t)n >= size - used)
            return;
        used += (size_t)n;
        gfp &= ~value;
    }
    if (gfp || !used)
        snprintf(out + used, size - used, "%s%#x", used ? "|" : "", gfp);
}

const char *kmem_can_fail(uint32_t gfp, uint64_t bytes)
{
    if (gfp & KMEM_GFP_NOFAIL)
        return "NOFAIL";
    if (!(gfp & KMEM_GFP_DIRECT_RECLAIM))
        return "no direct reclaim";
    if (gfp & KMEM_GFP_NORETRY)
        return "NORETRY";
    if (gfp & KMEM_GFP_RETRY_MAYFAIL)
        return "RETRY_MAYFAIL";
    if (bytes > KMEM_COSTLY_BYTES)
        return "costly order";
    return NULL;
}

/* The value of " KEY=" in line, up to the next space, into out. */
static bool field(const char *line, const char *key, char *out, size_t size)
{
    size_t key_length = strlen(key);
    for (const char *at = strstr(line, key); at; at = strstr(at + 1, key)) {
        if ((at != line && at[-1] != ' ') || at[key_length] != '=')
            continue;
        const char *value = at + key_length + 1;
        size_t length = strcspn(value, " \n");
        if (length >= size)
            length = size - 1;
        memcpy(out, value, length);
        out[length] = '\0';
        return true;
    }
    return false;
}

static uint64_t field_number(const char *line, const char *key)
{
    char text[32];
    return field(line, key, text, sizeof text) ? strtoull(text, NULL, 0) : 0;
}

/* The page allocator's own frames, skipped to find who asked for the page. */
static bool allocator_frame(const char *frame)
{
    static const char *const names[] = {
        "should_fail_alloc_page", "prepare_alloc_pages", "__alloc_pages", "alloc_pages",
        "__get_free_pages", "get_zeroed_page", "__folio_alloc", "folio_alloc", "vma_alloc_folio",
        "alloc_slab_page", "allocate_slab", "new_slab", "___slab_alloc", "__slab_alloc",
        "kmalloc_large", "__kmalloc_large", "kmalloc_order", "alloc_pages_exact",
        "__alloc_pages_bulk", "alloc_pages_bulk", "__kmalloc", "kmalloc_trace",
        "__kmem_cache_alloc", "kmem_cache_alloc", "kmalloc_node", "__kmalloc_node",
        "should_failslab", "kmem_cache_alloc_bulk", "kmem_cache_alloc_lru", "kmem_cache_alloc_node",
        "__kmem_cache_alloc_node", "__kmalloc_node_track_caller", "kmalloc_node_trace",
        "kmalloc_large_node", "__kmalloc_large_node", "__kmalloc_large_node_notrace"};
    size_t length = strcspn(frame, "+."); /* prepare_alloc_pages.constprop.0 too */
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == length && !strncmp(frame, names[i], length))
            return true;
    return false;
}

static bool all_zero(const char *text)
{
    if (!strcmp(text, "(null)"))
        return true;
    for (; *text; text++)
        if (*text != '0')
            return false;
    return true;
}

/* A NULL kmalloc or kmem_cache_alloc event: the slab failure, unless one came first. */
static void slab_event(const char *line, const char *kind, struct kmem_alloc *slab, bool *have)
{
    char pointer[40], flags[256];
    if (*have || !field(line, "ptr", pointer, sizeof pointer) || !all_zero(pointer))
        return;
    memset(slab, 0, sizeof *slab);
    snprintf(slab->kind, sizeof slab->kind, "%s", kind);
    field(line, "call_site", slab->call_site, sizeof slab->call_site);
    slab->bytes_req = field_number(line, "bytes_req");
    slab->bytes_alloc = field_number(line, "bytes_alloc");
    if (field(line, "gfp_flags", flags, sizeof flags))
        kmem_gfp_parse(flags, &slab->gfp);
    *have = true;
}

/* The frames of the stacktrace trigger and the kretprobe's return trampoline, above the
   probed function's caller in the stack a page_ret or slab_ret prints. */
static bool tracer_frame(const char *frame)
{
    static const char *const names[] = {
        "event_triggers_post_call", "trace_event_buffer_commit", "kretprobe_trace_func",
        "kretprobe_dispatcher", "kretprobe_rethook_handler", "rethook_trampoline_handler",
        "arch_rethook_trampoline_callback", "arch_rethook_trampoline",
        "__kretprobe_trampoline_handler", "kretprobe_trampoline_handler", "trampoline_handler",
        "__kretprobe_trampoline", "stacktrace_trigger", "event_triggers_call"};
    size_t length = strcspn(frame, "+.");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == length && !strncmp(frame, names[i], length))
            return true;
    return false;
}

/* A " => frame" line of the stack after a failing page_ret or slab_ret. */
static void stack_frame(const char *frame, struct kmem_alloc *alloc)
{
    size_t length = strcspn(frame, " \n");
    char name[128];
    if (length >= sizeof name)
        length = sizeof name - 1;
    memcpy(name, frame, length);
    name[length] = '\0';
    if (tracer_frame(name)) { /* what came before was the tracer's too */
        alloc->call_site[0] = '\0';
        alloc->frames[0] = '\0';
        return;
    }
    if (!strcmp(alloc->kind, "slab") && !strncmp(name, "kmem_cache_alloc_bulk+", 22))
        snprintf(alloc->kind, sizeof alloc->kind, "kmem_cache_alloc_bulk");
    if (allocator_frame(name))
        return;
    if (!alloc->call_site[0])
        snprintf(alloc->call_site, sizeof alloc->call_site, "%s", name);
    size_t used = strlen(alloc->frames);
    if (used + length + 5 < sizeof alloc->frames)
        snprintf(alloc->frames + used, sizeof alloc->frames - used, "%s%s", used ? " <- " : "",
                 name);
}

bool kmem_parse_trace(const char *text, struct kmem_alloc *alloc)
{
    /* slab: the NULL kmalloc/kmem_cache_alloc event; page: fail_page_alloc's failure (kprobe
       pair on should_fail_alloc_page); probe: failslab's (kprobe pair on should_failslab), the
       only word of the slab allocations without a tracepoint (kmem_cache_alloc_bulk). */
    struct kmem_alloc slab, page, probe;
    bool have_slab = false, have_page = false, have_probe = false;
    struct kmem_alloc *stack = NULL; /* whose stack the " => " lines are */
    uint32_t page_gfp = 0, slab_gfp = 0;
    unsigned page_order = 0;
    uint64_t slab_size = 0;
    memset(&page, 0, sizeof page);
    memset(&probe, 0, sizeof probe);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        char copy[1024];
        if (length >= sizeof copy)
            length = sizeof copy - 1;
        memcpy(copy, line, length);
        copy[length] = '\0';
        line = end ? end + 1 : line + length;
        if (copy[0] == '#')
            continue;
        const char *trimmed = copy + strspn(copy, " ");
        if (!strncmp(trimmed, "=> ", 3)) {
            if (stack)
                stack_frame(trimmed + 3, stack);
            continue;
        }
        if (strstr(copy, "<stack trace>"))
            continue;
        stack = NULL;
        char flags[64];
        if (strstr(copy, ": kmalloc: "))
            slab_event(copy, "kmalloc", &slab, &have_slab);
        else if (strstr(copy, ": kmem_cache_alloc: "))
            slab_event(copy, "kmem_cache_alloc", &slab, &have_slab);
        else if (strstr(copy, ": page_entry: ")) {
            page_gfp = field(copy, "gfp", flags, sizeof flags) && kmem_gfp_parse(flags, &page_gfp)
                           ? page_gfp : 0;
            page_order = (unsigned)field_number(copy, "order");
        } else if (strstr(copy, ": slab_entry: ")) {
            slab_gfp = field(copy, "gfp", flags, sizeof flags) && kmem_gfp_parse(flags, &slab_gfp)
                           ? slab_gfp : 0;
            slab_size = field_number(copy, "size");
        } else if (strstr(copy, ": page_ret: ") && field_number(copy, "ret") == 1 && !have_page) {
            have_page = true;
            stack = &page;
            snprintf(page.kind, sizeof page.kind, "page");
            page.gfp = page_gfp;
            page.bytes_req = page.bytes_alloc = (uint64_t)4096 << page_order;
        } else if (strstr(copy, ": slab_ret: ") && field(copy, "ret", flags, sizeof flags) &&
                   strcmp(flags, "0") && !have_probe) {
            have_probe = true;
            stack = &probe;
            snprintf(probe.kind, sizeof probe.kind, "slab");
            probe.gfp = slab_gfp;
            probe.bytes_req = probe.bytes_alloc = slab_size;
        }
    }
    if (have_slab) {
        *alloc = slab;
        alloc->via_page = have_page;
        if (have_page)
            snprintf(alloc->frames, sizeof alloc->frames, "%s", page.frames);
        else if (have_probe)
            snprintf(alloc->frames, sizeof alloc->frames, "%s", probe.frames);
        return true;
    }
    if (have_probe && probe.call_site[0]) {
        *alloc = probe;
        alloc->via_page = have_page;
        return true;
    }
    if (have_page)
        *alloc = page;
    return have_page;
}
