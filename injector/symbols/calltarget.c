/*
 * calltarget.c — the function a call instruction calls: the direct target, or the symbol of the
 * PLT slot an indirect call goes through.
 */
#include "symbols/symbolise.h"
#include "symbols/module.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <string.h>

/* ---- the function a call instruction calls ---- */

/* `count` bytes of the module's code or data at vaddr `address`, from the section holding them. */
static bool read_vaddr(Elf *elf, GElf_Addr bias, uint64_t address, uint8_t *out, size_t count,
                       char *section_name, size_t name_size)
{
    size_t strings;
    if (elf_getshdrstrndx(elf, &strings) != 0)
        return false;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr header;
        if (!gelf_getshdr(scn, &header) || header.sh_type != SHT_PROGBITS ||
            !(header.sh_flags & SHF_ALLOC))
            continue;
        uint64_t low = header.sh_addr + bias;
        if (address < low || address + count > low + header.sh_size)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        if (!data || !data->d_buf || address - low + count > data->d_size)
            return false;
        memcpy(out, (const uint8_t *)data->d_buf + (address - low), count);
        const char *name = elf_strptr(elf, strings, header.sh_name);
        copy_text(section_name, name_size, name);
        return true;
    }
    return false;
}

/* The symbol a dynamic relocation of the GOT slot at `slot` binds (R_X86_64_JUMP_SLOT or
   GLOB_DAT in .rela.plt / .rela.dyn). */
static bool slot_symbol(Elf *elf, GElf_Addr bias, uint64_t slot, char *name, size_t size)
{
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr header;
        if (!gelf_getshdr(scn, &header) || header.sh_type != SHT_RELA || !header.sh_entsize)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        Elf_Scn *symbols = elf_getscn(elf, header.sh_link);
        GElf_Shdr symbols_header;
        if (!data || !symbols || !gelf_getshdr(symbols, &symbols_header))
            continue;
        Elf_Data *symbol_data = elf_getdata(symbols, NULL);
        size_t count = header.sh_size / header.sh_entsize;
        for (size_t i = 0; i < count && symbol_data; i++) {
            GElf_Rela rela;
            if (!gelf_getrela(data, (int)i, &rela) || rela.r_offset + bias != slot)
                continue;
            GElf_Sym symbol;
            if (!GELF_R_SYM(rela.r_info) ||
                !gelf_getsym(symbol_data, (int)GELF_R_SYM(rela.r_info), &symbol))
                return false;
            const char *text = elf_strptr(elf, symbols_header.sh_link, symbol.st_name);
            if (!text || !*text)
                return false;
            copy_text(name, size, text);
            return true;
        }
    }
    return false;
}

static int32_t little_endian32(const uint8_t *bytes)
{
    return (int32_t)((uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 |
                     (uint32_t)bytes[3] << 24);
}

/* The GOT slot a PLT entry at `entry` jumps through: `jmp *slot(%rip)`, after an endbr64 and a
   bnd prefix when present. */
static bool plt_slot(Elf *elf, GElf_Addr bias, uint64_t entry, uint64_t *slot)
{
    uint8_t code[16];
    char section[64];
    if (!read_vaddr(elf, bias, entry, code, sizeof code, section, sizeof section))
        return false;
    size_t at = 0;
    if (code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa)
        at = 4; /* endbr64 */
    if (code[at] == 0xf2)
        at++; /* bnd */
    if (code[at] != 0xff || code[at + 1] != 0x25)
        return false;
    *slot = entry + at + 6 + (uint64_t)(int64_t)little_endian32(code + at + 2);
    return true;
}

bool symboliser_call_target(struct symboliser *s, const char *path, uint64_t return_offset,
                            char *name, size_t name_size)
{
    if (!s || !path || !*path || return_offset < 6)
        return false;
    struct module_entry *e = get_module(s, path);
    if (!e || !e->mod)
        return false;
    GElf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(e->mod, &bias);
    if (!elf)
        return false;
    uint8_t code[6];
    char section[64];
    if (!read_vaddr(elf, bias, return_offset - 6, code, sizeof code, section, sizeof section))
        return false;
    uint64_t slot;
    if (code[0] == 0xff && code[1] == 0x15) /* call *slot(%rip) (-fno-plt) */
        return slot_symbol(elf, bias, return_offset + (uint64_t)(int64_t)little_endian32(code + 2),
                           name, name_size);
    if (code[1] != 0xe8) /* call rel32 */
        return false;
    uint64_t target = return_offset + (uint64_t)(int64_t)little_endian32(code + 2);
    uint8_t first;
    if (!read_vaddr(elf, bias, target, &first, 1, section, sizeof section))
        return false;
    if (!strncmp(section, ".plt", 4))
        return plt_slot(elf, bias, target, &slot) && slot_symbol(elf, bias, slot, name, name_size);
    struct function_range f;
    if (!symbol_function(e, target, &f) || f.start != target || !f.name)
        return false;
    copy_text(name, name_size, f.name);
    return true;
}
