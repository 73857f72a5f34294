/*
 * symbolise.h — turn (module path, offset) pairs from the event records into function names
 * and source locations, for failrun's reports.
 *
 * Why here and not in the target: the writer inside the target records only raw offsets
 * (address minus load bias), because resolving symbols there would mean allocating and reading
 * files inside a process we are trying to fail. The CLI does the expensive part afterwards,
 * once per distinct frame, with libdw/libdwfl, which understands DWARF (including inline
 * chains and separate debuginfo under /usr/lib/debug) and falls back to .symtab/.dynsym.
 *
 * Why a handle: a run can produce thousands of frames in the same few modules; the
 * symboliser keeps one opened libdwfl session per module path so each lookup after the first
 * is cheap. It is not thread-safe; use one per thread.
 */
#ifndef INJECTOR_SYMBOLISE_H
#define INJECTOR_SYMBOLISE_H

#include <stdbool.h>
#include <stdint.h>

struct symbol_frame {
    char function[256]; /* C name, or C++ linkage name (not demangled); "??" when unknown */
    char file[512];     /* source file as in DWARF (absolute if comp_dir allows); "" when unknown */
    int line;           /* 0 when unknown */
    int column;         /* 0 when unknown */
    bool inlined;       /* true for a frame that was inlined into the next one */
};

struct symboliser;

/* NULL only when out of memory. Unsets DEBUGINFOD_URLS: lookups never touch the network. */
struct symboliser *symboliser_new(void);

/* Frees every cached module. NULL is allowed. */
void symboliser_free(struct symboliser *s);

/* Symbolise `offset` in the ELF file at `path`. `offset` is a runtime address minus the
 * module's load bias (dl_iterate_phdr's dlpi_addr), i.e. an address in the ELF's own vaddr
 * space; this holds for PIE executables, shared libraries and non-PIE executables (bias 0).
 * If is_return_address, look up offset-1 (the call instruction) instead.
 *
 * Fills out[0..n-1], innermost first: for inlined code, out[0] is the inlined function at the
 * deepest level with its file:line, then each enclosing function with the call site's file:line
 * (DW_AT_call_file/call_line), the last being the real (out-of-line) function. When the chain
 * is longer than `max`, the innermost `max` frames are kept.
 *
 * Returns n >= 1 (a single "??" frame when nothing is known, e.g. file missing or not ELF),
 * never more than max; returns 0 only when s or out is NULL or max < 1. */
int symboliser_lookup(struct symboliser *s, const char *path, uint64_t offset,
                      bool is_return_address, struct symbol_frame *out, int max);

#endif
