/*
 * module.h — the symboliser's per-module state, shared by the files of the symbols part:
 * symbolise.c (modules, lines, function identity), cfi.c (the FDE table), calltarget.c.
 */
#ifndef FAILRUN_SYMBOLS_MODULE_H
#define FAILRUN_SYMBOLS_MODULE_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symbolise.h"

/* One address range of one CU, in libdw's address space (module address - dwarf bias). */
struct cu_range {
    Dwarf_Addr low, high; /* [low, high) */
    Dwarf_Addr reach;     /* max `high` over this and every earlier entry, for the search */
    Dwarf_Die cu;
};

/* One FDE: the code range of one function, in module addresses. */
struct fde_range {
    uint64_t low, high; /* [low, high) */
};

/* A function identity already found, and the addresses it covers (see function_identity). */
struct function_range {
    uint64_t low, high; /* [low, high): module addresses known to belong to this function */
    uint64_t start;     /* the function's start (its symbol's or its FDE's) */
    const char *name;   /* owned by libdw/libelf (lives as long as the Dwfl); NULL: fn_<start> */
    bool covered;       /* false: a remembered miss, nothing covers [low, high) */
};

/* One address's frames as symboliser_lookup gave them (a report names the same callers in every
   site's stack: json-c's 2,000 sites made libdw find the same scopes again and again). */
struct lookup_answer {
    uint64_t key; /* 2 + the address looked up times 2, + 1 for a return address; 0: empty */
    int max, count;
    struct symbol_frame *frames;
};

struct module_entry {
    struct module_entry *next; /* hash chain */
    uint64_t hash;
    Dwfl *dwfl;       /* NULL when the path could not be opened as ELF: a cached failure */
    Dwfl_Module *mod; /* owned by dwfl */
    bool ranges_built;
    struct cu_range *ranges; /* sorted by low; the fallback when there are no aranges */
    size_t range_count;
    bool fdes_built;
    struct fde_range *fdes; /* sorted by low; from .eh_frame and .debug_frame */
    size_t fde_count;
    struct function_range *functions; /* sorted by low, disjoint: the identity cache */
    size_t function_count, function_capacity;
    Dwarf_Off *indexed_cus; /* sorted: CUs whose functions are all in the cache (index_cu) */
    size_t indexed_count, indexed_capacity;
    int debug_info; /* symboliser_has_debug_info's answer: -1 not asked yet, 0 no, 1 yes */
    struct lookup_answer *answers; /* symboliser_lookup's, by address (open addressing) */
    size_t answer_count, answer_capacity; /* capacity: 0 or a power of two */
    char path[];
};

struct symboliser {
    struct module_entry **buckets;
    size_t bucket_count; /* a power of two */
    size_t entry_count;
    struct module_entry *last; /* consecutive lookups are usually in the same module */
};

/* ---- symbolise.c ---- */
/* The module of `path`, opened once (a failure is cached too: its dwfl is NULL). */
struct module_entry *get_module(struct symboliser *s, const char *path);
/* The ELF symbol that names `addr`, when its size covers it (or, sizeless, it starts the FDE). */
bool symbol_function(struct module_entry *e, Dwarf_Addr addr, struct function_range *out);
/* Copies `src` (NULL: "") into `dst` of `size` bytes, cut and NUL-terminated. */
void copy_text(char *dst, size_t size, const char *src);

/* ---- cfi.c ---- */
/* How many entries of a table sorted by its first uint64_t (`stride` bytes each) start at or
   below `addr`. */
size_t count_starting_at_or_below(const void *table, size_t count, size_t stride, uint64_t addr);
/* Read the module's FDEs (.eh_frame and .debug_frame) into e->fdes, sorted; once. */
void build_fde_table(struct module_entry *e);
/* The FDE covering `addr`; false when none does. */
bool find_fde(struct module_entry *e, uint64_t addr, struct fde_range *found);

#endif
