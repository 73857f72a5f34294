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

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct mapped_file {
    const unsigned char *bytes;
    size_t size;
};

/* A pointer to `count` objects of `size` bytes at `offset`, or NULL when that leaves the file. */
static const void *LF_TEXT file_range(const struct mapped_file *file, uint64_t offset,
                                      uint64_t count, uint64_t size)
{
    if (size && count > (file->size / size))
        return NULL;
    if (offset > file->size || count * size > file->size - offset)
        return NULL;
    return file->bytes + offset;
}

static const ElfW(Ehdr) *LF_TEXT elf_header(const struct mapped_file *file)
{
    const ElfW(Ehdr) *header = file_range(file, 0, 1, sizeof(ElfW(Ehdr)));
    if (!header || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
        header->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
        return NULL;
    return header;
}

/* True when the file's GNU build-id is the loaded module's (or neither has one). */
static bool LF_TEXT same_build_id(const struct mapped_file *file, const ElfW(Ehdr) *header,
                                  const struct module_info *module)
{
    if (header->e_phentsize != sizeof(ElfW(Phdr)))
        return false;
    const ElfW(Phdr) *phdrs = file_range(file, header->e_phoff, header->e_phnum, sizeof *phdrs);
    for (int i = 0; phdrs && i < header->e_phnum; i++) {
        if (phdrs[i].p_type != PT_NOTE)
            continue;
        const char *note = file_range(file, phdrs[i].p_offset, phdrs[i].p_filesz, 1);
        const char *end = note ? note + phdrs[i].p_filesz : NULL;
        while (note && note + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)note;
            const char *name = note + sizeof *nh;
            const char *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (desc > end || nh->n_descsz > (size_t)(end - desc))
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
                uint32_t length = nh->n_descsz < RECORD_BUILD_ID_MAX ? nh->n_descsz
                                                                     : RECORD_BUILD_ID_MAX;
                return length == module->build_id_length &&
                       !memcmp(desc, module->build_id, length);
            }
            note = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return module->build_id_length == 0;
}

/* The value of the first defined function symbol named `wanted` in a symbol table of the given
   type (SHT_SYMTAB or SHT_DYNSYM); 0 when there is none. */
static uint64_t LF_TEXT find_function(const struct mapped_file *file, const ElfW(Ehdr) *header,
                                      uint32_t table_type, const char *wanted)
{
    if (header->e_shentsize != sizeof(ElfW(Shdr)))
        return 0;
    const ElfW(Shdr) *sections = file_range(file, header->e_shoff, header->e_shnum,
                                            sizeof *sections);
    size_t wanted_length = strlen(wanted) + 1;
    for (int i = 0; sections && i < header->e_shnum; i++) {
        const ElfW(Shdr) *table = &sections[i];
        if (table->sh_type != table_type || table->sh_entsize != sizeof(ElfW(Sym)) ||
            table->sh_link >= header->e_shnum)
            continue;
        const ElfW(Shdr) *strings = &sections[table->sh_link];
        const char *names = file_range(file, strings->sh_offset, strings->sh_size, 1);
        uint64_t count = table->sh_size / sizeof(ElfW(Sym));
        const ElfW(Sym) *symbols = file_range(file, table->sh_offset, count, sizeof(ElfW(Sym)));
        if (!names || !symbols)
            continue;
        for (uint64_t s = 0; s < count; s++) {
            const ElfW(Sym) *symbol = &symbols[s];
            if (ELF64_ST_TYPE(symbol->st_info) != STT_FUNC || symbol->st_shndx == SHN_UNDEF ||
                symbol->st_name >= strings->sh_size ||
                strings->sh_size - symbol->st_name < wanted_length)
                continue;
            if (!memcmp(names + symbol->st_name, wanted, wanted_length))
                return symbol->st_value;
        }
    }
    return 0;
}

/* The address of the module's dump function, 0 when it has none we can trust. */
static uintptr_t LF_TEXT module_dump_function(const struct module_info *module)
{
    /* A relative name (a library found through a relative rpath) is opened from the current
       folder, which may have changed since: only a matching build-id makes it trustworthy. */
    if (!module->path[0] || (module->path[0] != '/' && !module->build_id_length))
        return 0;
    int fd = open(module->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat info;
    void *bytes = MAP_FAILED;
    if (fstat(fd, &info) == 0 && info.st_size > 0)
        bytes = mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (bytes == MAP_FAILED)
        return 0;
    struct mapped_file file = {bytes, (size_t)info.st_size};
    uintptr_t address = 0;
    const ElfW(Ehdr) *header = elf_header(&file);
    if (header && same_build_id(&file, header, module)) {
        uint64_t value = find_function(&file, header, SHT_SYMTAB, "__gcov_exit");
        if (!value)
            value = find_function(&file, header, SHT_SYMTAB, "__gcov_dump");
        if (!value)
            value = find_function(&file, header, SHT_DYNSYM, "__gcov_dump");
        /* The executable of a non-PIE program has bias 0 and absolute symbol values. */
        address = value ? module->bias + (uintptr_t)value : 0;
        if (address < module->start || address >= module->end)
            address = 0;
    }
    munmap(bytes, file.size);
    return address;
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
