/*
 * kernelcov.c — kernel error legs from the armed calls' KCOV PCs (see kernelcov.h).
 *
 * A PC stands for the line the kernel's line table gives for it (libdw: the innermost line,
 * so code inlined from a header counts at its own file:line, not at its caller's). The legs of
 * a fired run are the lines of its PCs that no PC of the same site's unfailed runs maps to:
 * comparing lines, not PCs, keeps a line the unfailed call reached through other instructions
 * out of the legs. Everything is sorted arrays and binary search.
 */
#include "kernel/kernelcov.h"
#include "base/jsonget.h"
#include "kernel/buildid.h"
#include "store/kernelrows.h"
#include "base/util.h"

#include <dirent.h>
#include <jansson.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef VECTOR(uint64_t) pc_list;

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sort and drop repeats in place. */
static void sort_unique(pc_list *list)
{
    if (!list->count)
        return;
    qsort(list->items, list->count, sizeof *list->items, compare_u64);
    size_t kept = 1;
    for (size_t i = 1; i < list->count; i++)
        if (list->items[i] != list->items[kept - 1])
            list->items[kept++] = list->items[i];
    list->count = kept;
}

static bool contains(const uint64_t *items, size_t count, uint64_t value)
{
    return bsearch(&value, items, count, sizeof *items, compare_u64) != NULL;
}

bool kernelcov_store_run(sqlite3 *db, int64_t run, const char *dir)
{
    DIR *folder = opendir(dir);
    if (!folder)
        return false;
    pc_list pcs = {0};
    char *path;
    while ((path = next_file_named(folder, dir, "kcov-", ".pcs"))) {
        size_t size = 0;
        char *data = read_whole_file(path, &size);
        free(path);
        /* Records: a count, then that many PCs (native 64-bit words). */
        size_t words = data ? size / sizeof(uint64_t) : 0;
        for (size_t at = 0; at < words;) {
            uint64_t count;
            memcpy(&count, data + at * sizeof count, sizeof count);
            at++;
            for (uint64_t i = 0; i < count && at < words; i++, at++) {
                uint64_t pc;
                memcpy(&pc, data + at * sizeof pc, sizeof pc);
                VECTOR_PUSH(pcs, pc);
            }
        }
        free(data);
    }
    closedir(folder);
    sort_unique(&pcs);
    if (pcs.count)
        store_kernel_cov_add(db, run, pcs.items, pcs.count);
    bool stored = pcs.count > 0;
    free(pcs.items);
    return stored;
}

char *kernelcov_vmlinux(sqlite3 *db)
{
    const char *env = getenv("LIBFAIL_VMLINUX");
    if (env && *env)
        return xstrdup(env);
    return store_campaign_vmlinux(db);
}

bool kernelcov_present(sqlite3 *db)
{
    return store_kernel_cov_present(db);
}

/* The machinery of fault injection, tracing (--kmem-trace's events, stack trace triggers and
   kretprobes) and KCOV itself: it runs because the fault fired and was traced, never as the
   call's own error handling. A PC is left out when its line is in one of these files or its
   function has one of these names. */
static bool machinery(const char *file, const char *function)
{
    static const char *const paths[] = {
        "/kernel/trace/", "/lib/fault-inject.c", "/mm/failslab.c", "/kernel/kprobes.c",
        "/arch/x86/kernel/kprobes/", "/arch/x86/kernel/rethook.c", "/arch/x86/kernel/unwind_",
        "/arch/x86/kernel/stacktrace.c", "/arch/x86/kernel/dumpstack", "/kernel/stacktrace.c",
        "/kernel/kcov.c", "/include/trace/", "/include/linux/trace", "/include/linux/ftrace",
        "/include/linux/ring_buffer.h", "/include/linux/kprobes.h", "/include/linux/rethook.h",
        "/include/linux/fault-inject.h", "/arch/x86/include/asm/unwind.h",
        "/arch/x86/include/asm/stacktrace.h", "/arch/x86/include/asm/kprobes.h"};
    static const char *const prefixes[] = {
        "trace_", "__trace_", "ring_buffer_", "rb_", "__rb_", "kretprobe", "kprobe", "__kprobe",
        "rethook", "arch_rethook", "unwind_", "__unwind_", "stack_trace_", "arch_stack_walk",
        "should_fail", "__should_fail", "fail_dump", "event_trigger", "event_triggers_",
        "stacktrace_", "ftrace", "__ftrace", "kcov", "__sanitizer_cov", "filter_match",
        "perf_trace", "tracing_", "__tracing_", "orc_", "__orc_"};
    for (size_t i = 0; file && i < sizeof paths / sizeof paths[0]; i++)
        if (strstr(file, paths[i]))
            return true;
    for (size_t i = 0; function && i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(function, prefixes[i], strlen(prefixes[i])))
            return true;
    return false;
}

/* ---- symbolising: every distinct PC once ---- */

struct lines {
    pc_list pcs;          /* sorted, distinct */
    uint64_t *keys;       /* per PC: file index << 32 | line; 0 when unknown */
    const char **functions; /* per PC: the symbol holding it (libdw's string) */
    VECTOR(char *) files; /* interned file names */
};

static uint32_t intern_file(struct lines *lines, const char *file, const char **last,
                            uint32_t *last_index)
{
    if (file == *last)
        return *last_index;
    uint32_t index = 0;
    for (size_t i = lines->files.count; i-- > 0;)
        if (!strcmp(lines->files.items[i], file)) {
            index = (uint32_t)i + 1;
            break;
        }
    if (!index) {
        VECTOR_PUSH(lines->files, xstrdup(file));
        index = (uint32_t)lines->files.count;
    }
    *last = file;
    *last_index = index;
    return index;
}

/* The module's function symbols sorted by address: dwfl_module_addrname scans the whole
   symbol table at every call (a second per thousand PCs on vmlinux). */
struct symbol {
    uint64_t start, end;
    const char *name;
};

static int compare_symbols(const void *a, const void *b)
{
    const struct symbol *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static size_t load_symbols(Dwfl_Module *module, struct symbol **out)
{
    int count = dwfl_module_getsymtab(module);
    struct symbol *symbols = xcalloc(count > 0 ? (size_t)count : 1, sizeof *symbols);
    size_t used = 0;
    for (int i = 0; i < count; i++) {
        GElf_Sym sym;
        GElf_Addr address;
        const char *name = dwfl_module_getsym_info(module, i, &sym, &address, NULL, NULL, NULL);
        if (name && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_size)
            symbols[used++] = (struct symbol){address, address + sym.st_size, name};
    }
    qsort(symbols, used, sizeof *symbols, compare_symbols);
    *out = symbols;
    return used;
}

static const char *symbol_at(const struct symbol *symbols, size_t count, uint64_t address)
{
    size_t low = 0, high = count;
    while (low < high) { /* the first symbol starting after address */
        size_t middle = low + (high - low) / 2;
        if (symbols[middle].start <= address)
            low = middle + 1;
        else
            high = middle;
    }
    return low && address < symbols[low - 1].end ? symbols[low - 1].name : NULL;
}

static bool symbolise_all(Dwfl_Module *module, struct lines *lines)
{
    struct symbol *symbols;
    size_t symbol_count = load_symbols(module, &symbols);
    lines->keys = xcalloc(lines->pcs.count ? lines->pcs.count : 1, sizeof *lines->keys);
    lines->functions =
        xcalloc(lines->pcs.count ? lines->pcs.count : 1, sizeof *lines->functions);
    const char *last = NULL;
    uint32_t last_index = 0;
    size_t known = 0;
    for (size_t i = 0; i < lines->pcs.count; i++) {
        /* A KCOV PC is the return address of its __sanitizer_cov_trace_pc call. */
        Dwarf_Addr address = lines->pcs.items[i] - 1;
        Dwfl_Line *line = dwfl_module_getsrc(module, address);
        int number = 0;
        const char *file = line ? dwfl_lineinfo(line, NULL, &number, NULL, NULL, NULL) : NULL;
        lines->functions[i] = symbol_at(symbols, symbol_count, address);
        if (file && number > 0 && !machinery(file, lines->functions[i])) {
            lines->keys[i] = (uint64_t)intern_file(lines, file, &last, &last_index) << 32 |
                             (uint32_t)number;
            known++;
        }
    }
    free(symbols);
    return known > 0;
}

static size_t pc_index(const struct lines *lines, uint64_t pc)
{
    const uint64_t *found =
        bsearch(&pc, lines->pcs.items, lines->pcs.count, sizeof pc, compare_u64);
    return found ? (size_t)(found - lines->pcs.items) : (size_t)-1;
}

/* ---- the analysis ---- */

struct covered_run {
    int64_t run;
    char *site;
    bool fired, done;
    uint64_t *pcs;
    size_t count;
};

static void analyse_site(sqlite3 *db, struct lines *lines, struct covered_run *runs,
                         size_t count, int *analysed)
{
    pc_list base = {0};
    bool any_base = false;
    for (size_t i = 0; i < count; i++)
        if (!runs[i].fired) {
            any_base = true;
            for (size_t k = 0; k < runs[i].count; k++)
                VECTOR_PUSH(base, runs[i].pcs[k]);
        }
    if (!any_base) {
        /* No unfailed call of this site to compare with (its sweep was cut short, or the
           unfailed run left no PCs): its fired runs are done, with no legs (leg_pcs -1). */
        for (size_t i = 0; i < count; i++) {
            if (!runs[i].fired || runs[i].done)
                continue;
            store_kernel_cov_done(db, runs[i].run, -1);
            (*analysed)++;
        }
        return;
    }
    sort_unique(&base);
    pc_list base_keys = {0};
    for (size_t k = 0; k < base.count; k++) {
        size_t at = pc_index(lines, base.items[k]);
        if (at != (size_t)-1 && lines->keys[at])
            VECTOR_PUSH(base_keys, lines->keys[at]);
    }
    sort_unique(&base_keys);
    for (size_t i = 0; i < count; i++) {
        if (!runs[i].fired || runs[i].done)
            continue;
        size_t legs = 0;
        for (size_t k = 0; k < runs[i].count; k++) {
            uint64_t pc = runs[i].pcs[k];
            if (contains(base.items, base.count, pc))
                continue;
            size_t at = pc_index(lines, pc);
            if (at == (size_t)-1 || !lines->keys[at] ||
                contains(base_keys.items, base_keys.count, lines->keys[at]))
                continue;
            store_kernel_leg_add(db, lines->files.items[(lines->keys[at] >> 32) - 1],
                                 (int64_t)(lines->keys[at] & 0xffffffffu), runs[i].run,
                                 lines->functions[at]);
            legs++;
        }
        store_kernel_cov_done(db, runs[i].run, (int64_t)legs);
        (*analysed)++;
    }
    free(base.items);
    free(base_keys.items);
}

/* The runs with PCs, as read (store_kernel_cov_runs_each), and every PC of them. */
struct analysis {
    VECTOR(struct covered_run) runs;
    struct lines lines;
};

static void add_covered_run(const struct store_kernel_cov_run *row, void *data)
{
    struct analysis *analysis = data;
    struct covered_run run = {0};
    run.run = row->run;
    run.site = xstrdup(row->site);
    run.fired = row->fired;
    run.done = row->done;
    run.count = row->count;
    run.pcs = xmalloc(run.count ? run.count * sizeof *run.pcs : 1);
    if (run.count)
        memcpy(run.pcs, row->pcs, run.count * sizeof *run.pcs);
    for (size_t k = 0; k < run.count; k++)
        VECTOR_PUSH(analysis->lines.pcs, run.pcs[k]);
    VECTOR_PUSH(analysis->runs, run);
}

int kernelcov_analyse(sqlite3 *db, const char *vmlinux)
{
    /* Anything left to do? */
    if (!store_kernel_cov_pending(db))
        return 0;
    static const Dwfl_Callbacks callbacks = {
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
    };
    Dwfl *dwfl = dwfl_begin(&callbacks);
    Dwfl_Module *module = dwfl ? dwfl_report_offline(dwfl, "vmlinux", vmlinux, -1) : NULL;
    if (dwfl)
        dwfl_report_end(dwfl, NULL, NULL);
    if (!module) {
        warn("cannot read %s (%s): the kernel's error legs are not counted", vmlinux,
             dwfl_errmsg(-1));
        if (dwfl)
            dwfl_end(dwfl);
        return -1;
    }
    /* Another build's line tables would name wrong lines, silently: the vmlinux must be the
       kernel the campaign ran on (buildid.h). */
    char *expected = store_campaign_kernel_build_id(db);
    const unsigned char *bits = NULL;
    GElf_Addr id_address = 0;
    int id_length = dwfl_module_build_id(module, &bits, &id_address);
    char *found = build_id_hex(bits, id_length > 0 ? (size_t)id_length : 0);
    bool mismatch = expected && id_length > 0 && strcmp(expected, found) != 0;
    if (mismatch)
        warn("%s is not the vmlinux of the kernel the campaign ran on (build-id %s, the kernel's "
             "%s): the kernel's error legs are not counted; give that kernel's vmlinux with "
             "LIBFAIL_VMLINUX", vmlinux, found, expected);
    free(expected);
    free(found);
    if (mismatch) {
        dwfl_end(dwfl);
        return -1;
    }
    struct analysis analysis = {0};
    store_kernel_cov_runs_each(db, add_covered_run, &analysis);
    struct covered_run *runs = analysis.runs.items;
    size_t run_count = analysis.runs.count;
    struct lines lines = analysis.lines;
    sort_unique(&lines.pcs);
    int analysed = 0;
    if (!symbolise_all(module, &lines)) {
        warn("%s has no line information for the PCs KCOV gave (not this kernel's vmlinux, or "
             "built without CONFIG_DEBUG_INFO?): the kernel's error legs are not counted",
             vmlinux);
        analysed = -1;
    } else {
        store_kernel_legs_begin(db);
        for (size_t first = 0; first < run_count;) {
            size_t end = first + 1;
            while (end < run_count && !strcmp(runs[end].site, runs[first].site))
                end++;
            analyse_site(db, &lines, runs + first, end - first, &analysed);
            first = end;
        }
        store_kernel_legs_commit(db);
    }
    for (size_t i = 0; i < run_count; i++) {
        free(runs[i].site);
        free(runs[i].pcs);
    }
    free(runs);
    for (size_t i = 0; i < lines.files.count; i++)
        free(lines.files.items[i]);
    free(lines.files.items);
    free(lines.pcs.items);
    free(lines.keys);
    free(lines.functions);
    dwfl_end(dwfl);
    return analysed;
}

json_t *kernelcov_files(sqlite3 *db)
{
    return store_kernel_leg_files(db);
}

const char *kernel_tree_path(const char *path)
{
    static const char *const top[] = {"arch", "block", "certs", "crypto", "drivers", "fs",
                                      "include", "init", "io_uring", "ipc", "kernel", "lib",
                                      "mm", "net", "security", "sound", "virt"};
    /* (Not the tree's usr/, build-time tooling no system call runs, so that a tree kept in
       /usr/src/linux-6.1 enters at its fs/, not at /usr.) */
    for (const char *c = path; c && *c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
        size_t length = strcspn(c, "/");
        if (!c[length])
            return NULL; /* the file's own name */
        for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
            if (strlen(top[i]) == length && !strncmp(c, top[i], length))
                return c;
    }
    return NULL;
}

void kernelcov_attach_sources(json_t *files, const char *source_dir)
{
    size_t index;
    json_t *file;
    json_array_foreach(files, index, file) {
        const char *recorded = json_string_value(json_object_get(file, "path"));
        const char *inside = kernel_tree_path(recorded);
        char *path = source_dir && inside ? xasprintf("%s/%s", source_dir, inside)
                                          : xstrdup(recorded);
        char *text = read_whole_file(path, NULL);
        if (!text) {
            free(path);
            continue;
        }
        json_object_set_new(file, "source", json_string(path));
        free(path);
        /* Each leg line's text: the lines come in order, so one pass over the file. */
        json_t *lines = json_object_get(file, "lines");
        size_t next = 0, count = json_array_size(lines);
        char *cursor = text;
        for (json_int_t number = 1; cursor && *cursor && next < count; number++) {
            char *end = strchr(cursor, '\n');
            if (end)
                *end = '\0';
            for (json_t *line; next < count &&
                               json_integer_value(json_object_get(
                                   line = json_array_get(lines, next), "line")) <= number;
                 next++)
                if (json_integer_value(json_object_get(line, "line")) == number)
                    json_object_set_new(line, "text", json_string(cursor));
            cursor = end ? end + 1 : NULL;
        }
        free(text);
    }
    size_t found = 0;
    json_array_foreach(files, index, file) found += json_object_get(file, "source") != NULL;
    if (source_dir && json_array_size(files) && !found)
        warn("--kernel-source %s holds none of the campaign's %zu kernel source files (%s, ...)",
             source_dir, json_array_size(files),
             json_string_value(json_object_get(json_array_get(files, 0), "path")));
}

void kernelcov_print(json_t *files, FILE *out)
{
    if (!json_array_size(files))
        return;
    long long legs = 0, small = 0;
    size_t index;
    json_t *file;
    json_array_foreach(files, index, file) {
        legs += int_of(file, "legs");
        small += int_of(file, "only_too_small");
    }
    fprintf(out, "kernel error-leg lines (KCOV, lines reached only with the fault): %lld in %zu "
                 "file(s), %lld of them only through failures too small to fail\n",
            legs, json_array_size(files), small);
    json_array_foreach(files, index, file)
        fprintf(out, "  %s: %lld (%lld only too small to fail)\n",
                json_string_value(json_object_get(file, "path")), int_of(file, "legs"),
                int_of(file, "only_too_small"));
}

void kernelcov_write_lcov(json_t *files, FILE *out)
{
    size_t index;
    json_t *file;
    json_array_foreach(files, index, file) {
        fprintf(out, "SF:%s\n", json_string_value(json_object_get(file, "path")));
        size_t at, found = 0;
        json_t *item;
        json_array_foreach(json_object_get(file, "lines"), at, item) {
            fprintf(out, "DA:%lld,%lld\n", int_of(item, "line"), int_of(item, "runs"));
            found++;
        }
        fprintf(out, "LF:%zu\nLH:%zu\nend_of_record\n", found, found);
    }
}

void kernelcov_prepare_report(sqlite3 *db)
{
    if (!kernelcov_present(db))
        return;
    char *vmlinux = kernelcov_vmlinux(db);
    if (!vmlinux)
        warn("the campaign has KCOV data but no vmlinux to read it with: pass --vmlinux PATH to "
             "failrun kernel or set LIBFAIL_VMLINUX");
    else if (kernelcov_analyse(db, vmlinux) >= 0) {
        /* One that worked (LIBFAIL_VMLINUX's, say) is the campaign's from now on. */
        store_campaign_set_vmlinux(db, vmlinux);
    }
    free(vmlinux);
}
