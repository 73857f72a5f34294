/* got_probe.c — whether this program's calls into libshelf.so are audited, and whether its
 * other calls are left alone (test_boundary.sh).
 *
 * With lazy binding the first call of a function through the PLT has the dynamic linker find it
 * and write its address into the program's GOT slot, so later calls go straight to it. failrun's
 * LD_AUDIT module has the linker write a trampoline's address instead for the functions of the
 * code under test (la_symbind64), and nothing else changes: a module with PLT hooks would send
 * every call through the linker's profiling trampoline and leave every slot unfilled. Prints two
 * words, for shelf_count (libshelf.so) and strtol (the C library): "audited" when the slot does
 * not hold the function's address after two calls, "direct" when it does. */
#define _GNU_SOURCE
#include "shelf.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern ElfW(Dyn) _DYNAMIC[];

/* The GOT slot of the program's PLT relocation for `name`, or NULL. */
static void **plt_slot(const char *name)
{
    /* The main program's load address (a PIE is relocated); the dynamic linker has made the
       section's addresses absolute already, or has not (a value below the base is relative). */
    struct link_map *self = dlopen(NULL, RTLD_NOW);
    ElfW(Addr) base = self ? self->l_addr : 0;
#define ADDRESS(value) ((value) < base ? base + (value) : (value))
    const ElfW(Rela) *relocations = NULL;
    size_t size = 0;
    const ElfW(Sym) *symbols = NULL;
    const char *strings = NULL;
    for (const ElfW(Dyn) *d = _DYNAMIC; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_JMPREL)
            relocations = (const ElfW(Rela) *)ADDRESS(d->d_un.d_ptr);
        else if (d->d_tag == DT_PLTRELSZ)
            size = d->d_un.d_val;
        else if (d->d_tag == DT_SYMTAB)
            symbols = (const ElfW(Sym) *)ADDRESS(d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB)
            strings = (const char *)ADDRESS(d->d_un.d_ptr);
    }
    if (!relocations || !symbols || !strings)
        return NULL;
    for (size_t i = 0; i < size / sizeof *relocations; i++) {
        const ElfW(Sym) *symbol = &symbols[ELF64_R_SYM(relocations[i].r_info)];
        if (!strcmp(strings + symbol->st_name, name))
            return (void **)(base + relocations[i].r_offset);
    }
    return NULL;
}

static const char *bound(const char *name)
{
    void **slot = plt_slot(name);
    void *function = dlsym(RTLD_DEFAULT, name);
    if (!slot || !function) {
        fprintf(stderr, "got_probe: no PLT slot for %s (linked with -z now?)\n", name);
        exit(2);
    }
    return *slot == function ? "direct" : "audited";
}

int main(void)
{
    int total = shelf_count("one") + shelf_count("three");
    total += (int)strtol("0", NULL, 10) + (int)strtol("0", NULL, 10);
    if (total != 8)
        return 2;
    const char *library = bound("shelf_count");
    printf("%s %s\n", library, bound("strtol"));
    return 0;
}
