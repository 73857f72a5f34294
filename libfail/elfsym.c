/*
 * elfsym.c — find functions by name in a loaded module's file, inside the target: libgcov's dump
 * functions for a crashing process (gcovdump.c), a test runner's functions for fork mode's test
 * cases (testcase.c).
 *
 * The module's file is mapped read-only and trusted only when it is the one loaded: the same GNU
 * build-id, or, without one, an absolute path and symbols that fall inside the module's mapping.
 * The symbol tables read are .symtab (local functions too: present unless the file is stripped)
 * and then .dynsym. No malloc (the file is mapped with mmap, every offset checked against its
 * size), no lock, no stdio: safe in a fatal-signal handler. A file that cannot be opened (fds used
 * up, file gone) finds nothing.
 */
#include "internal.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
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

/* Fill each wanted function still unfound from the symbol tables of `table_type` (SHT_SYMTAB or
   SHT_DYNSYM): the first defined function symbol of its name. */
static void LF_TEXT find_functions(const struct mapped_file *file, const ElfW(Ehdr) *header,
                                   uint32_t table_type, struct elf_function *wanted, int count)
{
    if (header->e_shentsize != sizeof(ElfW(Shdr)))
        return;
    const ElfW(Shdr) *sections = file_range(file, header->e_shoff, header->e_shnum,
                                            sizeof *sections);
    for (int i = 0; sections && i < header->e_shnum; i++) {
        const ElfW(Shdr) *table = &sections[i];
        if (table->sh_type != table_type || table->sh_entsize != sizeof(ElfW(Sym)) ||
            table->sh_link >= header->e_shnum)
            continue;
        const ElfW(Shdr) *strings = &sections[table->sh_link];
        const char *names = file_range(file, strings->sh_offset, strings->sh_size, 1);
        uint64_t symbol_count = table->sh_size / sizeof(ElfW(Sym));
        const ElfW(Sym) *symbols = file_range(file, table->sh_offset, symbol_count,
                                              sizeof(ElfW(Sym)));
        if (!names || !symbols)
            continue;
        for (uint64_t s = 0; s < symbol_count; s++) {
            const ElfW(Sym) *symbol = &symbols[s];
            if (ELF64_ST_TYPE(symbol->st_info) != STT_FUNC || symbol->st_shndx == SHN_UNDEF ||
                symbol->st_name >= strings->sh_size)
                continue;
            const char *name = names + symbol->st_name;
            size_t room = strings->sh_size - symbol->st_name;
            for (int w = 0; w < count; w++) {
                size_t length = strlen(wanted[w].name) + 1;
                if (!wanted[w].value && room >= length && !memcmp(name, wanted[w].name, length)) {
                    wanted[w].value = symbol->st_value;
                    wanted[w].size = symbol->st_size;
                }
            }
        }
    }
}

bool LF_TEXT elf_module_functions(const struct module_info *module, struct elf_function *wanted,
                                  int count)
{
    for (int w = 0; w < count; w++)
        wanted[w].value = wanted[w].size = 0;
    /* A relative name (a library found through a relative rpath) is opened from the current
       folder, which may have changed since: only a matching build-id makes it trustworthy. */
    if (!module->path[0] || (module->path[0] != '/' && !module->build_id_length))
        return false;
    int fd = open(module->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat info;
    void *bytes = MAP_FAILED;
    if (fstat(fd, &info) == 0 && info.st_size > 0)
        bytes = mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (bytes == MAP_FAILED)
        return false;
    struct mapped_file file = {bytes, (size_t)info.st_size};
    const ElfW(Ehdr) *header = elf_header(&file);
    bool trusted = header && same_build_id(&file, header, module);
    if (trusted) {
        find_functions(&file, header, SHT_SYMTAB, wanted, count);
        find_functions(&file, header, SHT_DYNSYM, wanted, count);
        /* The executable of a non-PIE program has bias 0 and absolute symbol values; a symbol
           outside the module's mapping belongs to another file. */
        for (int w = 0; w < count; w++) {
            uintptr_t address = module->bias + (uintptr_t)wanted[w].value;
            if (wanted[w].value && (address < module->start || address >= module->end))
                wanted[w].value = wanted[w].size = 0;
        }
    }
    munmap(bytes, file.size);
    return trusted;
}
