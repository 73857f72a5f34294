/*
 * symbolise.c — (module path, offset) -> function, file:line, with inline chains.
 *
 * Why libdwfl rather than hand-parsing DWARF: it already knows how to find separate debuginfo
 * (build-id links and .gnu_debuglink under /usr/lib/debug), dwz alternate files, DWARF 4 and 5
 * line tables, and falls back to .symtab/.dynsym for stripped distribution libraries. We only
 * add what it does not do for us: a per-path cache, a CU index for modules without
 * .debug_aranges, and turning the DIE scope chain into innermost-first frames with call sites.
 *
 * Why one Dwfl per path, each module reported at base 0 (add_p_vaddr): record offsets are
 * already "address minus load bias", i.e. ELF vaddrs, so reporting every module as if loaded at
 * its own link-time addresses lets us pass offsets straight through for PIE, shared libraries
 * and non-PIE executables alike. Modules at base 0 would overlap in one Dwfl, hence one each.
 *
 * Why our own CU index: libdw 0.188 maps addresses to CUs only through .debug_aranges, which
 * clang does not emit by default; without it dwfl_module_addrdie finds nothing and a
 * clang-built target would get no file:line at all. When the aranges lookup fails we fall back
 * to a sorted table of every CU's DW_AT_ranges/low_pc, built once per module.
 *
 * Why we open the file ourselves: a record can name anything (a deleted file, a directory, a
 * FIFO that would block open(2)); we accept only regular files and cache failures too, so a
 * missing module costs one open attempt, not one per frame.
 *
 * Why debuginfod only on request: libdwfl's standard find_debuginfo asks the debuginfod servers
 * named in DEBUGINFOD_URLS (through libdebuginfod.so.1, loaded lazily) when no local debug file
 * exists. We leave the variable as the user set it: unset (or empty), a report never touches the
 * network; set, missing debug info is fetched once into debuginfod's cache (DEBUGINFOD_CACHE_PATH)
 * and the stripped code gets function names and lines.
 *
 * Why function identity comes from .eh_frame when there is no symbol: stripped programs keep
 * their unwind tables (every FDE covers exactly one function, [initial_location, +range)), so a
 * crash in a stripped function still gets a stable name, fn_<start>, and deduplicates by it. libdw
 * only exposes the row of an FDE an address falls in (dwarf_frame_info gives the row's range, not
 * the FDE's), so we read the FDEs ourselves with dwarf_next_cfi, once per module, into a sorted
 * table. .dynsym alone is not to be trusted on stripped code: the nearest symbol below an address
 * can be a far-away sizeless one (_init), so a symbol names an address only if its size covers
 * it, or, sizeless, if it starts the FDE that does. The FDE table is cfi.c's; what a call
 * instruction calls, calltarget.c's; the hint for missing debug info, debughint.c's.
 */
#include "symbols/symbolise.h"
#include "symbols/module.h"

#include <dwarf.h>
#include <errno.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stddef.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* NULL means libdwfl's default search path (":.debug:/usr/lib/debug"). */
static char *debuginfo_path = NULL;

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

/* A source location: where a frame is executing. */
struct location {
    char file[512];
    int line;
    int column;
};

static uint64_t hash_path(const char *path)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Copies src (may be NULL) into dst[size], truncating; always NUL-terminates. */
void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = src ? strnlen(src, size - 1) : 0;
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Rewrites path in place without "." components, repeated slashes or "dir/.." pairs: a source
 * file compiled through `#include "../lib/x.c"` from tests/ is named tests/../lib/x.c by DWARF,
 * and must read (and deduplicate) as lib/x.c, the name the library's own build gives it.
 * Lexical, as gcov and the compilers' own prefix maps are: the files may be gone. A relative
 * path keeps the ".." it cannot resolve; "/.." is "/". */
static void normalise_path(char *path)
{
    bool absolute = path[0] == '/';
    char *out = path + absolute, *in = out;
    size_t kept = 0; /* components written that a ".." may remove */
    while (*in) {
        char *end = strchr(in, '/');
        size_t n = end ? (size_t)(end - in) : strlen(in);
        if (n == 0 || (n == 1 && in[0] == '.')) {
            /* nothing: an empty or "." component */
        } else if (n == 2 && in[0] == '.' && in[1] == '.' && kept > 0) {
            while (out > path + absolute && out[-1] != '/')
                out--; /* back over the last component (never a ".." while kept > 0) */
            if (out > path + absolute)
                out--; /* and the '/' before it */
            kept--;
        } else if (n == 2 && in[0] == '.' && in[1] == '.' && absolute) {
            /* "/.." is "/" */
        } else {
            if (out > path + absolute)
                *out++ = '/';
            memmove(out, in, n);
            out += n;
            if (!(n == 2 && in[0] == '.' && in[1] == '.'))
                kept++;
        }
        in += n + (end != NULL);
    }
    if (out == path && !absolute)
        *out++ = '.';
    *out = '\0';
}

/* Stores `name` into dst[size], prefixed with comp_dir when name is relative and comp_dir is
 * absolute (a relative comp_dir, e.g. from -fdebug-prefix-map=...=., cannot help), normalised. */
static void set_file(char *dst, size_t size, const char *name, const char *comp_dir)
{
    if (!name || !*name) {
        dst[0] = '\0';
        return;
    }
    if (name[0] == '/' || !comp_dir || comp_dir[0] != '/') {
        copy_text(dst, size, name);
        normalise_path(dst);
        return;
    }
    size_t cap = size - 1;
    size_t at = strnlen(comp_dir, cap);
    memcpy(dst, comp_dir, at);
    if (at > 0 && dst[at - 1] != '/' && at < cap)
        dst[at++] = '/';
    size_t nl = strnlen(name, cap - at);
    memcpy(dst + at, name, nl);
    dst[at + nl] = '\0';
    normalise_path(dst);
}

static const char *comp_dir_of(Dwarf_Die *cu)
{
    Dwarf_Attribute attr;
    return dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
}

static void unknown_frame(struct symbol_frame *f)
{
    memset(f, 0, sizeof *f);
    copy_text(f->function, sizeof f->function, "??");
}

static void fill_frame(struct symbol_frame *f, const char *function, const struct location *loc,
                       bool inlined)
{
    memset(f, 0, sizeof *f);
    copy_text(f->function, sizeof f->function, function && *function ? function : "??");
    memcpy(f->file, loc->file, sizeof f->file);
    f->line = loc->line;
    f->column = loc->column;
    f->inlined = inlined;
}

struct symboliser *symboliser_new(void)
{
    struct symboliser *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->bucket_count = 64;
    s->buckets = calloc(s->bucket_count, sizeof *s->buckets);
    if (!s->buckets) {
        free(s);
        return NULL;
    }
    return s;
}

void symboliser_free(struct symboliser *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->bucket_count; i++) {
        struct module_entry *e = s->buckets[i];
        while (e) {
            struct module_entry *next = e->next;
            if (e->dwfl)
                dwfl_end(e->dwfl);
            free(e->ranges);
            free(e->fdes);
            free(e->functions);
            free(e->indexed_cus);
            for (size_t k = 0; k < e->answer_capacity; k++)
                free(e->answers[k].frames);
            free(e->answers);
            free(e);
            e = next;
        }
    }
    free(s->buckets);
    free(s);
}

/* Opens `path` as an offline module at its own vaddrs. Leaves e->dwfl NULL on any failure. */
static void open_module(struct module_entry *e)
{
    int fd = open(e->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);

    Dwfl *dwfl = dwfl_begin(&offline_callbacks);
    if (!dwfl) {
        close(fd);
        return;
    }
    dwfl_report_begin(dwfl);
    /* base 0 + add_p_vaddr: ET_DYN bias is 0 even if the first PT_LOAD's p_vaddr is not
     * (prelinked libraries); ET_EXEC ignores base. Either way module address == ELF vaddr. */
    Dwfl_Module *mod = dwfl_report_elf(dwfl, e->path, e->path, fd, 0, true);
    if (!mod) {
        close(fd); /* consumed only on success */
        dwfl_end(dwfl);
        return;
    }
    if (dwfl_report_end(dwfl, NULL, NULL) != 0) {
        dwfl_end(dwfl);
        return;
    }
    e->dwfl = dwfl;
    e->mod = mod;
}

static void grow(struct symboliser *s)
{
    size_t count = s->bucket_count * 2;
    struct module_entry **buckets = calloc(count, sizeof *buckets);
    if (!buckets)
        return; /* longer chains, still correct */
    for (size_t i = 0; i < s->bucket_count; i++) {
        struct module_entry *e = s->buckets[i];
        while (e) {
            struct module_entry *next = e->next;
            size_t b = (size_t)(e->hash & (count - 1));
            e->next = buckets[b];
            buckets[b] = e;
            e = next;
        }
    }
    free(s->buckets);
    s->buckets = buckets;
    s->bucket_count = count;
}

/* The cache entry for path, created (and the module opened) on first use. NULL only when
 * out of memory. */
struct module_entry *get_module(struct symboliser *s, const char *path)
{
    if (s->last && strcmp(s->last->path, path) == 0)
        return s->last;
    uint64_t h = hash_path(path);
    for (struct module_entry *e = s->buckets[h & (s->bucket_count - 1)]; e; e = e->next) {
        if (e->hash == h && strcmp(e->path, path) == 0) {
            s->last = e;
            return e;
        }
    }
    size_t len = strlen(path);
    struct module_entry *e = calloc(1, sizeof *e + len + 1);
    if (!e)
        return NULL;
    memcpy(e->path, path, len + 1);
    e->hash = h;
    e->debug_info = -1;
    open_module(e);
    if (s->entry_count >= s->bucket_count)
        grow(s);
    size_t b = (size_t)(h & (s->bucket_count - 1));
    e->next = s->buckets[b];
    s->buckets[b] = e;
    s->entry_count++;
    s->last = e;
    return e;
}

static int compare_ranges(const void *a, const void *b)
{
    const struct cu_range *x = a, *y = b;
    return x->low < y->low ? -1 : x->low > y->low ? 1 : 0;
}

/* Builds e->ranges from every CU's address ranges. On failure the table is just shorter. */
static void build_cu_ranges(struct module_entry *e)
{
    e->ranges_built = true;
    size_t cap = 0;
    Dwarf_Addr bias;
    for (Dwarf_Die *cu = dwfl_module_nextcu(e->mod, NULL, &bias); cu;
         cu = dwfl_module_nextcu(e->mod, cu, &bias)) {
        Dwarf_Addr base, low, high;
        ptrdiff_t off = 0;
        while ((off = dwarf_ranges(cu, off, &base, &low, &high)) > 0) {
            if (high <= low || low == 0)
                continue; /* empty, or code the linker discarded (relocated to 0) */
            if (e->range_count == cap) {
                size_t ncap = cap ? cap * 2 : 64;
                struct cu_range *r = realloc(e->ranges, ncap * sizeof *r);
                if (!r)
                    goto done;
                e->ranges = r;
                cap = ncap;
            }
            e->ranges[e->range_count++] = (struct cu_range){.low = low, .high = high, .cu = *cu};
        }
    }
done:
    qsort(e->ranges, e->range_count, sizeof *e->ranges, compare_ranges);
    Dwarf_Addr reach = 0;
    for (size_t i = 0; i < e->range_count; i++) {
        if (e->ranges[i].high > reach)
            reach = e->ranges[i].high;
        e->ranges[i].reach = reach;
    }
}

_Static_assert(offsetof(struct cu_range, low) == 0 && offsetof(struct fde_range, low) == 0 &&
                   offsetof(struct function_range, low) == 0 && sizeof(Dwarf_Addr) == 8,
               "count_starting_at_or_below reads a uint64_t `low` at the start of each entry");

/* The CU covering module address addr, and the bias to subtract for libdw. */
static bool find_cu(struct module_entry *e, Dwarf_Addr addr, Dwarf_Die *cu, Dwarf_Addr *bias)
{
    Dwarf_Die *found = dwfl_module_addrdie(e->mod, addr, bias);
    if (found) {
        *cu = *found;
        return true;
    }
    if (!dwfl_module_getdwarf(e->mod, bias))
        return false; /* no DWARF at all: do not scan */
    if (!e->ranges_built)
        build_cu_ranges(e);
    Dwarf_Addr a = addr - *bias;
    /* Rightmost range starting at or below a, then walk left while ranges could still reach
     * past a (overlaps are rare, so this is normally one step). */
    size_t lo = count_starting_at_or_below(e->ranges, e->range_count, sizeof *e->ranges, a);
    for (size_t i = lo; i-- > 0 && e->ranges[i].reach > a;) {
        if (a < e->ranges[i].high) {
            *cu = e->ranges[i].cu;
            return true;
        }
    }
    return false;
}

/* The DIE's name, following abstract_origin/specification; NULL when it has none. A mangled
 * C++ (or legacy Rust) linkage name comes first: it is qualified and matches what .symtab
 * would say, where DW_AT_name is only the bare "m" of ns::K::m. Other linkage names are asm
 * labels (glibc's "__GI___libc_malloc" for __libc_malloc), so C gets DW_AT_name. */
static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    if (!linkage)
        linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
    if (linkage && strncmp(linkage, "_Z", 2) == 0)
        return linkage;
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
    return name ? name : linkage;
}

static bool is_function_scope(Dwarf_Die *die)
{
    int tag = dwarf_tag(die);
    return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
           tag == DW_TAG_entry_point;
}

/* The line-table row covering a (libdw address) in cu: the innermost frame's location. */
static void line_table_location(Dwarf_Die *cu, Dwarf_Addr a, struct location *loc)
{
    memset(loc, 0, sizeof *loc);
    Dwarf_Line *line = dwarf_getsrc_die(cu, a);
    if (!line)
        return;
    set_file(loc->file, sizeof loc->file, dwarf_linesrc(line, NULL, NULL), comp_dir_of(cu));
    if (dwarf_lineno(line, &loc->line) != 0)
        loc->line = 0;
    if (dwarf_linecol(line, &loc->column) != 0)
        loc->column = 0;
}

/* The call site recorded on an inlined_subroutine DIE (call_file/line/column). */
static void call_site_location(Dwarf_Die *inl, struct location *loc)
{
    memset(loc, 0, sizeof *loc);
    Dwarf_Attribute attr;
    Dwarf_Word v;
    if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &attr), &v) == 0)
        loc->line = (int)v;
    if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_column, &attr), &v) == 0)
        loc->column = (int)v;
    Dwarf_Word idx;
    if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &idx) != 0)
        return;
    Dwarf_Die cu;
    Dwarf_Files *files;
    size_t nfiles;
    if (!dwarf_diecu(inl, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 ||
        idx >= nfiles)
        return;
    /* DWARF 4 numbers files from 1 (libdw keeps a placeholder at 0), DWARF 5 from 0; libdw's
     * table follows the CU's version, so the raw index is right for both. */
    set_file(loc->file, sizeof loc->file, dwarf_filesrc(files, (size_t)idx, NULL, NULL),
             comp_dir_of(&cu));
}

/* Frames from DWARF scopes, innermost first; 0 when the CU has no function DIE at a
 * (assembly sources, padding). */
static int dwarf_frames(Dwfl_Module *mod, Dwarf_Die *cu, Dwarf_Addr a, Dwarf_Addr module_addr,
                        struct symbol_frame *out, int max)
{
    Dwarf_Die *scopes = NULL;
    int nscopes = dwarf_getscopes(cu, a, &scopes);
    int inner = -1;
    for (int i = 0; i < nscopes; i++) {
        if (is_function_scope(&scopes[i])) {
            inner = i;
            break;
        }
    }
    if (inner < 0) {
        free(scopes);
        return 0;
    }
    /* Past an inlined instance, dwarf_getscopes continues with the parents of its abstract
     * origin (usually just the CU), not with the functions it was inlined into. The concrete
     * nesting (inlined instance -> caller -> ... -> out-of-line function) is the DIE tree
     * around the innermost function scope, which dwarf_getscopes_die gives. */
    Dwarf_Die *chain = NULL;
    int nchain = dwarf_getscopes_die(&scopes[inner], &chain);
    free(scopes);
    if (nchain <= 0) {
        free(chain);
        return 0;
    }

    struct location loc;
    line_table_location(cu, a, &loc);
    int n = 0;
    for (int i = 0; i < nchain && n < max; i++) {
        Dwarf_Die *die = &chain[i];
        if (!is_function_scope(die))
            continue; /* lexical blocks */
        bool inlined = dwarf_tag(die) == DW_TAG_inlined_subroutine;
        const char *name = die_name(die);
        if (!name && !inlined) {
            GElf_Off off;
            GElf_Sym sym;
            name = dwfl_module_addrinfo(mod, module_addr, &off, &sym, NULL, NULL, NULL);
        }
        fill_frame(&out[n++], name, &loc, inlined);
        if (!inlined)
            break; /* the out-of-line function; what encloses it is not a caller */
        call_site_location(die, &loc);
    }
    free(chain);
    return n;
}

/* The out-of-line function (DW_TAG_subprogram) whose code holds a (libdw address) in cu. */
static bool enclosing_subprogram(Dwarf_Die *cu, Dwarf_Addr a, Dwarf_Die *result)
{
    Dwarf_Die *scopes = NULL;
    int nscopes = dwarf_getscopes(cu, a, &scopes);
    int inner = -1;
    for (int i = 0; i < nscopes && inner < 0; i++)
        if (is_function_scope(&scopes[i]))
            inner = i;
    if (inner < 0) {
        free(scopes);
        return false;
    }
    /* As in dwarf_frames: the concrete nesting is the DIE tree around the innermost scope. */
    Dwarf_Die *chain = NULL;
    int nchain = dwarf_getscopes_die(&scopes[inner], &chain);
    free(scopes);
    bool found = false;
    for (int i = 0; i < nchain && !found; i++) {
        if (is_function_scope(&chain[i]) && dwarf_tag(&chain[i]) != DW_TAG_inlined_subroutine) {
            *result = chain[i];
            found = true;
        }
    }
    free(chain);
    return found;
}

/* Identity from DWARF: the subprogram's name, its entry (low_pc, or its first range: the hot
 * part of a function GCC split in hot and cold), and the range holding addr. */
static bool dwarf_function(struct module_entry *e, Dwarf_Addr addr, struct function_range *out)
{
    Dwarf_Die cu, fn;
    Dwarf_Addr bias = 0;
    if (!find_cu(e, addr, &cu, &bias) || !enclosing_subprogram(&cu, addr - bias, &fn))
        return false;
    const char *name = die_name(&fn);
    if (!name || !*name)
        return false;
    Dwarf_Addr a = addr - bias, base, low, high, entry = 0;
    bool have_entry = dwarf_lowpc(&fn, &entry) == 0;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(&fn, off, &base, &low, &high)) > 0) {
        if (!have_entry) {
            entry = low;
            have_entry = true;
        }
        if (low <= a && a < high) {
            *out = (struct function_range){low + bias, high + bias, entry + bias, name, true};
            return true;
        }
    }
    return false;
}

/* Identity from .symtab/.dynsym, only when the symbol really holds addr (see the top). */
bool symbol_function(struct module_entry *e, Dwarf_Addr addr, struct function_range *out)
{
    GElf_Off off;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(e->mod, addr, &off, &sym, NULL, NULL, NULL);
    if (!name || !*name)
        return false;
    int type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
        return false;
    uint64_t start = addr - off;
    if (sym.st_size > 0) {
        if (off >= sym.st_size)
            return false;
        *out = (struct function_range){start, start + sym.st_size, start, name, true};
        return true;
    }
    struct fde_range fde;
    if (find_fde(e, addr, &fde)) {
        if (fde.low != start)
            return false; /* a sizeless symbol before this function, not its name */
        *out = (struct function_range){fde.low, fde.high, start, name, true};
        return true;
    }
    /* Sizeless and no unwind table (hand-written assembly): the best we know, for this
     * address only. */
    *out = (struct function_range){addr, addr + 1, start, name, true};
    return true;
}

static bool fde_function(struct module_entry *e, Dwarf_Addr addr, struct function_range *out)
{
    struct fde_range fde;
    if (!find_fde(e, addr, &fde))
        return false;
    *out = (struct function_range){fde.low, fde.high, fde.low, NULL, true};
    return true;
}

/* Index of the cached function range holding addr, or of where one would go (*hit false). */
static size_t find_function(const struct module_entry *e, uint64_t addr, bool *hit)
{
    size_t lo = count_starting_at_or_below(e->functions, e->function_count,
                                           sizeof *e->functions, addr);
    *hit = lo > 0 && addr < e->functions[lo - 1].high;
    return *hit ? lo - 1 : lo;
}

/* Remembers f, unless it overlaps a range already cached (then it is only not cached). */
static void cache_function(struct module_entry *e, const struct function_range *f)
{
    bool hit;
    size_t at = find_function(e, f->low, &hit);
    if (hit || (at < e->function_count && e->functions[at].low < f->high))
        return;
    if (e->function_count == e->function_capacity) {
        size_t n = e->function_capacity ? e->function_capacity * 2 : 64;
        struct function_range *r = realloc(e->functions, n * sizeof *r);
        if (!r)
            return;
        e->functions = r;
        e->function_capacity = n;
    }
    memmove(&e->functions[at + 1], &e->functions[at],
            (e->function_count - at) * sizeof *e->functions);
    e->functions[at] = *f;
    e->function_count++;
}

/* Cache every out-of-line function of the CU at once, the first time an address falls in it:
 * finding one function by address (dwarf_getscopes) walks the CU's DIEs from its start, so
 * looking up the functions of a large CU one by one costs its size once per function. */
static void index_cu(struct module_entry *e, Dwarf_Die *cu, Dwarf_Addr bias)
{
    Dwarf_Off offset = dwarf_dieoffset(cu);
    size_t at = 0;
    while (at < e->indexed_count && e->indexed_cus[at] < offset)
        at++;
    if (at < e->indexed_count && e->indexed_cus[at] == offset)
        return;
    if (e->indexed_count == e->indexed_capacity) {
        size_t n = e->indexed_capacity ? e->indexed_capacity * 2 : 16;
        Dwarf_Off *grown = realloc(e->indexed_cus, n * sizeof *grown);
        if (!grown)
            return;
        e->indexed_cus = grown;
        e->indexed_capacity = n;
    }
    memmove(&e->indexed_cus[at + 1], &e->indexed_cus[at],
            (e->indexed_count - at) * sizeof *e->indexed_cus);
    e->indexed_cus[at] = offset;
    e->indexed_count++;
    Dwarf_Die child;
    if (dwarf_child(cu, &child) != 0)
        return;
    do {
        /* Top-level subprograms: what C has. Functions nested in namespaces or classes are
           found address by address (dwarf_function), as before. */
        if (dwarf_tag(&child) != DW_TAG_subprogram)
            continue;
        const char *name = die_name(&child);
        if (!name || !*name)
            continue;
        Dwarf_Addr base, low, high, entry = 0;
        bool have_entry = dwarf_lowpc(&child, &entry) == 0;
        ptrdiff_t off = 0;
        while ((off = dwarf_ranges(&child, off, &base, &low, &high)) > 0) {
            if (!have_entry) {
                entry = low;
                have_entry = true;
            }
            if (low < high)
                cache_function(e, &(struct function_range){low + bias, high + bias, entry + bias,
                                                           name, true});
        }
    } while (dwarf_siblingof(&child, &child) == 0);
}

/* The function holding module address addr: DWARF first (it names static and inlined-into
 * functions that .dynsym never has), then the symbol tables, then the FDE. Cached per module
 * by address range, so the frames of one function cost one binary search after the first;
 * misses are remembered per address (each costs a symbol table scan in libdwfl). */
static bool function_identity(struct module_entry *e, Dwarf_Addr addr, struct function_range *out)
{
    bool hit;
    size_t at = find_function(e, addr, &hit);
    if (hit) {
        *out = e->functions[at];
        return out->covered;
    }
    Dwarf_Die cu;
    Dwarf_Addr bias;
    if (find_cu(e, addr, &cu, &bias)) {
        index_cu(e, &cu, bias);
        at = find_function(e, addr, &hit);
        if (hit) {
            *out = e->functions[at];
            return out->covered;
        }
    }
    if (!dwarf_function(e, addr, out) && !symbol_function(e, addr, out) &&
        !fde_function(e, addr, out)) {
        cache_function(e, &(struct function_range){addr, addr + 1, 0, NULL, false});
        return false;
    }
    cache_function(e, out);
    return true;
}

static void function_name(const struct function_range *f, char *name, size_t size)
{
    if (f->name)
        copy_text(name, size, f->name);
    else
        snprintf(name, size, "fn_%" PRIx64, f->start);
}

bool symboliser_function(struct symboliser *s, const char *path, uint64_t offset,
                         bool is_return_address, uint64_t *start, char *name, size_t name_size)
{
    if (!s || !path || !*path)
        return false;
    struct module_entry *e = get_module(s, path);
    if (!e || !e->mod)
        return false;
    Dwarf_Addr addr = offset;
    if (is_return_address && addr > 0)
        addr--;
    struct function_range f;
    if (!function_identity(e, addr, &f))
        return false;
    if (start)
        *start = f.start;
    if (name && name_size > 0)
        function_name(&f, name, name_size);
    return true;
}

/* ---- debug info: is there any, and how to get it ---- */

static bool module_has_lines(struct module_entry *e)
{
    Dwarf_Addr bias;
    if (!dwfl_module_getdwarf(e->mod, &bias))
        return false;
    for (Dwarf_Die *cu = dwfl_module_nextcu(e->mod, NULL, &bias); cu;
         cu = dwfl_module_nextcu(e->mod, cu, &bias)) {
        Dwarf_Lines *lines;
        size_t count;
        if (dwarf_getsrclines(cu, &lines, &count) == 0 && count > 0)
            return true;
    }
    return false;
}

bool symboliser_has_debug_info(struct symboliser *s, const char *path)
{
    if (!s || !path || !*path)
        return false;
    struct module_entry *e = get_module(s, path);
    if (!e || !e->mod)
        return false;
    if (e->debug_info < 0)
        e->debug_info = module_has_lines(e);
    return e->debug_info == 1;
}

/* The slot of `key` in e->answers (its own, or the empty one where it would go); NULL when the
   table is empty. */
static struct lookup_answer *answer_slot(struct module_entry *e, uint64_t key)
{
    if (!e->answer_capacity)
        return NULL;
    size_t mask = e->answer_capacity - 1;
    for (size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & mask;; i = (i + 1) & mask)
        if (e->answers[i].key == key || e->answers[i].key == 0)
            return &e->answers[i];
}

/* Remembers the answer for `key` (a failed allocation only forgets it). */
static void remember_answer(struct module_entry *e, uint64_t key, int max,
                            const struct symbol_frame *frames, int count)
{
    if (2 * (e->answer_count + 1) > e->answer_capacity) {
        size_t capacity = e->answer_capacity ? 2 * e->answer_capacity : 256;
        struct lookup_answer *old = e->answers, *grown = calloc(capacity, sizeof *grown);
        if (!grown)
            return;
        size_t old_capacity = e->answer_capacity;
        e->answers = grown;
        e->answer_capacity = capacity;
        for (size_t i = 0; i < old_capacity; i++)
            if (old[i].key)
                *answer_slot(e, old[i].key) = old[i];
        free(old);
    }
    struct lookup_answer *slot = answer_slot(e, key);
    struct symbol_frame *copy = malloc((size_t)count * sizeof *copy);
    if (!copy)
        return;
    memcpy(copy, frames, (size_t)count * sizeof *copy);
    if (slot->key)
        free(slot->frames); /* asked with another max */
    else
        e->answer_count++;
    *slot = (struct lookup_answer){key, max, count, copy};
}

static int lookup_in_module(struct module_entry *e, uint64_t offset, bool is_return_address,
                            struct symbol_frame *out, int max);

int symboliser_lookup(struct symboliser *s, const char *path, uint64_t offset,
                      bool is_return_address, struct symbol_frame *out, int max)
{
    if (!s || !out || max < 1)
        return 0;
    unknown_frame(&out[0]);
    if (!path || !*path)
        return 1;

    struct module_entry *e = get_module(s, path);
    if (!e || !e->mod)
        return 1;
    uint64_t key = offset * 2 + (is_return_address ? 1 : 0) + 2; /* never 0 */
    const struct lookup_answer *known = answer_slot(e, key);
    if (known && known->key == key && known->max == max) {
        memcpy(out, known->frames, (size_t)known->count * sizeof *out);
        return known->count;
    }
    int count = lookup_in_module(e, offset, is_return_address, out, max);
    remember_answer(e, key, max, out, count);
    return count;
}

static int lookup_in_module(struct module_entry *e, uint64_t offset, bool is_return_address,
                            struct symbol_frame *out, int max)
{
    Dwarf_Addr addr = offset;
    if (is_return_address && addr > 0)
        addr--;

    Dwarf_Die cu;
    Dwarf_Addr bias = 0;
    struct location loc;
    memset(&loc, 0, sizeof loc);
    if (find_cu(e, addr, &cu, &bias)) {
        int n = dwarf_frames(e->mod, &cu, addr - bias, addr, out, max);
        if (n > 0)
            return n;
        line_table_location(&cu, addr - bias, &loc);
    }

    /* No DWARF function here: the function's identity (its .symtab or .dynsym symbol, or
     * fn_<start> from its FDE), plus whatever line table there is (assembly sources have one
     * without function DIEs). */
    struct function_range function;
    char name[sizeof out[0].function];
    if (function_identity(e, addr, &function))
        function_name(&function, name, sizeof name);
    else
        copy_text(name, sizeof name, "??");
    fill_frame(&out[0], name, &loc, false);
    return 1;
}
