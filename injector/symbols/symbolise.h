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
#include <stddef.h>
#include <stdint.h>

struct symbol_frame {
    char function[256]; /* C name, or C++ linkage name (not demangled); "??" when unknown */
    char file[512];     /* source file as in DWARF (absolute if comp_dir allows); "" when unknown */
    int line;           /* 0 when unknown */
    int column;         /* 0 when unknown */
    bool inlined;       /* true for a frame that was inlined into the next one */
};

struct symboliser;

/* NULL only when out of memory. Missing debug info is looked for locally (beside the file,
 * .gnu_debuglink, /usr/lib/debug/.build-id/xx/yyyy.debug) and, only when the user set
 * DEBUGINFOD_URLS, on those debuginfod servers (elfutils' client, its cache and timeouts:
 * DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT). Unset or empty: never touches the network. */
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
 * Where DWARF has no function for the address, out[0] is one frame named as
 * symboliser_function names it (a symbol, or "fn_<hex start>" from the unwind table) with the
 * line table's file:line if any ("" and 0 otherwise).
 *
 * Returns n >= 1 (a single "??" frame when nothing is known, e.g. file missing or not ELF),
 * never more than max; returns 0 only when s or out is NULL or max < 1. */
int symboliser_lookup(struct symboliser *s, const char *path, uint64_t offset,
                      bool is_return_address, struct symbol_frame *out, int max);

/* Function identity, for deduplicating bugs by the function they happen in, also on stripped
 * code. `offset` and is_return_address as for symboliser_lookup. On success stores the start
 * of the (out-of-line) function holding the address in *start (an ELF vaddr, the same space as
 * offset) and its name in name[name_size] (truncated, NUL-terminated), each when non-NULL:
 *   - the DWARF subprogram's name and entry (the function an inlined frame was inlined into);
 *   - else the .symtab/.dynsym symbol whose size covers the address (a sizeless symbol only
 *     if it starts the FDE that covers the address), its value as start;
 *   - else "fn_<hex start>" (e.g. "fn_1189"), start being that of the .eh_frame (or
 *     .debug_frame) FDE covering the address: stable across runs and builds' reruns.
 * false only when none of them covers the address (or the file is missing or not ELF).
 * Cached per module by address range: after the first frame in a function, one binary search. */
bool symboliser_function(struct symboliser *s, const char *path, uint64_t offset,
                         bool is_return_address, uint64_t *start, char *name, size_t name_size);

/* The function that the call instruction just before `return_offset` (a return address in the
 * ELF file at path, as for symboliser_lookup) calls, by name, into name[name_size]: a direct
 * call's target symbol, or through the PLT or the GOT (call *f@GOTPCREL) the symbol its
 * relocation binds, the name the program called ("fopen", not glibc's internal one). x86_64
 * code only; false when the instruction is no such call or the name cannot be found. */
bool symboliser_call_target(struct symboliser *s, const char *path, uint64_t return_offset,
                            char *name, size_t name_size);

/* True when DWARF line information for the file at path was found: in the file itself, in a
 * separate debug file found locally, or through debuginfod when DEBUGINFOD_URLS is set.
 * Cached per module. */
bool symboliser_has_debug_info(struct symboliser *s, const char *path);

/* One line telling the user how to get debug info for the ELF file at path, for a report to
 * print when symboliser_has_debug_info is false: its GNU build-id and, on Debian, the -dbgsym
 * package of the package owning it (dpkg-query -S, symlinks resolved, /usr-merge aware), e.g.
 *   no debug info for /usr/bin/jq (build-id 1a2b...): apt-get install jq-dbgsym (from the
 *   debian-debug archive), or set DEBUGINFOD_URLS=https://debuginfod.debian.net
 * (one line, wrapped here). malloc'ed, the caller frees it; NULL when path is not a readable
 * ELF file or out of memory. Cached per path for the process (thread-safe). */
char *symboliser_debug_hint(const char *path);

#endif
