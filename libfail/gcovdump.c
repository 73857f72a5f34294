/*
 * gcovdump.c — when the target dies of a fatal signal, write the coverage of every loaded module
 * built with --coverage, not only the executable's.
 *
 * Why it is needed: libgcov is linked statically into each instrumented module (the executable
 * and every --coverage shared library), and each copy writes its module's .gcda files from a
 * destructor. A process killed by a signal runs no destructor, so without help a crashing run
 * leaves no coverage at all. dlsym finds at most one `__gcov_dump`, and only when a module
 * exports it (the executable linked with -Wl,--undefined=__gcov_dump,--export-dynamic-symbol=
 * __gcov_dump): it dumps the modules that share that module's gcov master list, but a library
 * whose libgcov copy keeps its own list (a dlopen'ed one, say) is missed.
 *
 * What it does: for each module of the module table (stack.c) it maps the module's file
 * read-only, checks that the file is the one loaded (same GNU build-id; without one, the
 * symbol must fall inside the module's mapping), and looks up libgcov's per-module exit
 * function `__gcov_exit` (a local symbol, so in .symtab, present unless the file is stripped),
 * else an exported `__gcov_dump` (.symtab or .dynsym), and calls it. libgcov marks a module's
 * data as written, so a module dumped twice (by the exported `__gcov_dump`, then by its own
 * `__gcov_exit`) is written once.
 *
 * Runs inside the target, from the fatal-signal handler: no malloc (the file is mapped with
 * mmap, every offset checked against its size), no lock, no stdio; a module whose file cannot
 * be opened (fds used up, file gone) is skipped. The gcov functions themselves use stdio: they
 * are what the program's own exit would have run.
 */
#include "internal.h"

#include <stdatomic.h>

/* The address of the module's dump function, 0 when it has none we can trust. */
static uintptr_t LF_TEXT module_dump_function(const struct module_info *module)
{
    /* libgcov's per-module exit function is local (.symtab); __gcov_dump may be exported. */
    struct elf_function wanted[] = {{.name = "__gcov_exit"}, {.name = "__gcov_dump"}};
    if (!elf_module_functions(module, wanted, 2))
        return 0;
    uint64_t value = wanted[0].value ? wanted[0].value : wanted[1].value;
    return value ? module->bias + (uintptr_t)value : 0;
}

void LF_TEXT gcov_dump_modules(void (*exported_dump)(void))
{
    static _Atomic bool dumping;
    if (atomic_exchange(&dumping, true))
        return; /* once: another thread crashed too, or the dump itself faulted */
    if (exported_dump)
        exported_dump();
    int count = 0;
    const struct module_info *modules = module_table_current(&count);
    for (int i = 0; i < count; i++) {
        uintptr_t dump = module_dump_function(&modules[i]);
        if (dump)
            ((void (*)(void))dump)();
    }
}
