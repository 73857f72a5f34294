/*
 * audit.c — libfail-audit.so, the LD_AUDIT module of scoped campaigns: it shows the preload each
 * call the program makes into a library under test, and what the call returned.
 *
 * glibc's audit interface (rtld-audit(7)) lets a module choose the address each binding gets:
 * for each binding from an object marked BINDFROM to one marked BINDTO, the dynamic linker calls
 * la_symbind64, and the address it returns is what the caller's GOT holds. Bindings from the
 * program (the main executable) to the non-system shared objects are given a trampoline of the
 * preload's (libfail_boundary_bind, libfail/boundary.c), which reports the call and its return;
 * failrun's own libraries and the system's never are. LIBFAIL_API_MODULES (':'-separated globs on
 * the module's path, failrun's --module) narrows the objects under test. The module defines no
 * PLT hooks (la_pltenter, la_pltexit): with them the linker sends every call of every object
 * through its profiling trampoline, the C library's too, and never fills in a GOT.
 *
 * The module runs in a link namespace of its own, without a C library (the few functions it uses
 * are auditlibc.c's, so that no second libc is loaded into every process): the preload of the
 * main namespace, where the faults are and the records are written, is found by its symbols
 * (libfail_boundary_bind, libfail/boundary.c) when the dynamic linker opens it. Without the
 * preload nothing is audited; in a process out of the campaign's scope (LIBFAIL_EXE) the module
 * has the dynamic linker drop it before anything is bound.
 */
#include "internal.h"

#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uintptr_t (*boundary_bind)(uintptr_t function, const char *name);

static uintptr_t dynamic_address(struct link_map *map, ElfW(Addr) value)
{
    return value < map->l_addr ? map->l_addr + value : value;
}

static uint32_t gnu_hash(const char *name)
{
    uint32_t hash = 5381;
    for (; *name; name++)
        hash = hash * 33 + (unsigned char)*name;
    return hash;
}

/* A defined symbol of an object, by its GNU hash table. */
static void *find_symbol(struct link_map *map, const char *name)
{
    const uint32_t *table = NULL;
    const ElfW(Sym) *symbols = NULL;
    const char *strings = NULL;
    for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_GNU_HASH)
            table = (const uint32_t *)dynamic_address(map, d->d_un.d_ptr);
        else if (d->d_tag == DT_SYMTAB)
            symbols = (const ElfW(Sym) *)dynamic_address(map, d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB)
            strings = (const char *)dynamic_address(map, d->d_un.d_ptr);
    }
    if (!table || !symbols || !strings || table[0] == 0)
        return NULL;
    uint32_t buckets = table[0], first = table[1], bloom_words = table[2];
    const uint32_t *bucket = (const uint32_t *)((const ElfW(Addr) *)&table[4] + bloom_words);
    const uint32_t *chain = bucket + buckets;
    uint32_t hash = gnu_hash(name);
    uint32_t index = bucket[hash % buckets];
    if (index < first)
        return NULL;
    for (;; index++) {
        uint32_t entry = chain[index - first];
        if ((entry | 1) == (hash | 1) && !strcmp(strings + symbols[index].st_name, name) &&
            symbols[index].st_shndx != SHN_UNDEF)
            return (void *)(map->l_addr + symbols[index].st_value);
        if (entry & 1)
            return NULL;
    }
}

/* Whether the program is in the campaign's scope (LIBFAIL_EXE, decided as the preload decides
   it: runtime.c). One out of it (a suite's driver after the baseline: ctest, perl, make; a
   fixture) fails nothing and its calls tell nothing. */
static bool program_in_scope(void)
{
    char exe[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (length <= 0)
        return true; /* no /proc: audited, as before the scope was known */
    exe[length] = '\0';
    return scope_match(getenv("LIBFAIL_EXE"), exe);
}

LF_EXPORT unsigned la_version(unsigned version)
{
    /* Read the environment now (auditlibc.c), before the program can change it. */
    (void)getenv("LIBFAIL_API_MODULES");
    /* A module with PLT hooks makes the dynamic linker send every call through every object's
       PLT (the C library's, libstdc++'s, whatever the object's flags) through its profiling
       trampoline, which never fills in the GOT: a suite's driver paid it for every call, in
       every run. Out of scope, 0 has the linker drop the module (rtld-audit(7)). */
    if (!program_in_scope())
        return 0;
    return version < LAV_CURRENT ? version : LAV_CURRENT;
}

/* Each object's cookie says what it is to the audit: la_symbind64 is asked about more than
   the bindings from a BINDFROM object to a BINDTO one (glibc's dlsym path asks when either end
   is marked), and follows only the program's into the code under test. */
enum { OTHER_OBJECT, THE_PROGRAM, UNDER_TEST };

static unsigned object_flags(struct link_map *map, Lmid_t namespace);

LF_EXPORT unsigned la_objopen(struct link_map *map, Lmid_t namespace, uintptr_t *cookie)
{
    unsigned flags = object_flags(map, namespace);
    *cookie = flags == LA_FLG_BINDFROM ? THE_PROGRAM : flags == LA_FLG_BINDTO ? UNDER_TEST
                                                                               : OTHER_OBJECT;
    return flags;
}

static unsigned object_flags(struct link_map *map, Lmid_t namespace)
{
    if (namespace != LM_ID_BASE)
        return 0;
    const char *path = map->l_name ? map->l_name : "";
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!strncmp(base, "libfail", 7)) {
        /* The preload (or libfail.so linked into the program): its entry points. */
        void *bind = find_symbol(map, "libfail_boundary_bind");
        if (bind && !boundary_bind)
            boundary_bind = (uintptr_t (*)(uintptr_t, const char *))bind;
        return 0;
    }
    if (!path[0])
        return LA_FLG_BINDFROM; /* the program */
    if (path_is_system(path) || !strncmp(base, "linux-vdso", 10) || !strncmp(base, "ld-linux", 8))
        return 0;
    const char *modules = getenv("LIBFAIL_API_MODULES");
    if (modules && *modules && !glob_list_match(modules, path))
        return 0;
    return LA_FLG_BINDTO;
}

LF_EXPORT uintptr_t la_symbind64(ElfW(Sym) *symbol, unsigned index, uintptr_t *from, uintptr_t *to,
                                 unsigned *flags, const char *name)
{
    (void)index;
    unsigned type = ELF64_ST_TYPE(symbol->st_info);
    /* Only the program's calls into the code under test; without the preload nothing would hear
       of them: the function itself. */
    /* A dlsym's result stays the function's own address (the program may compare it). */
    if (boundary_bind && *from == THE_PROGRAM && *to == UNDER_TEST && !(*flags & LA_SYMB_DLSYM) &&
        (type == STT_FUNC || type == STT_GNU_IFUNC))
        return boundary_bind((uintptr_t)symbol->st_value, name);
    return symbol->st_value;
}
