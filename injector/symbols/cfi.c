/*
 * cfi.c — function starts from the unwind tables (.eh_frame, .debug_frame): every FDE covers one
 * function, so a stripped function still has a stable identity; read once per module into a
 * sorted table (see symbolise.c on why libdw's own CFI calls do not give it).
 */
#include "symbols/module.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* How many entries of a table sorted by `low` start at or below addr: the index just past the
 * rightmost one that could hold it. `low` is the first member of every table's entries. */
size_t count_starting_at_or_below(const void *table, size_t count, size_t stride, uint64_t addr)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t low;
        memcpy(&low, (const char *)table + mid * stride, sizeof low);
        if (low <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- function identity: DWARF subprogram, ELF symbol, or the FDE's start ---- */

/* Reads an unsigned LEB128 at *p; false when it runs past end. */
static bool read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *value)
{
    uint64_t v = 0;
    for (unsigned shift = 0; *p < end; shift += 7) {
        uint8_t byte = *(*p)++;
        if (shift < 64)
            v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *value = v;
            return true;
        }
    }
    return false;
}

static bool read_sleb(const uint8_t **p, const uint8_t *end, uint64_t *value)
{
    uint64_t v = 0;
    unsigned shift = 0;
    while (*p < end) {
        uint8_t byte = *(*p)++;
        if (shift < 64)
            v |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
        if (!(byte & 0x80)) {
            if (shift < 64 && (byte & 0x40))
                v |= ~UINT64_C(0) << shift;
            *value = v;
            return true;
        }
    }
    return false;
}

/* How to read the pointers of one .eh_frame/.debug_frame section. */
struct cfi_section {
    const uint8_t *base; /* the section's bytes */
    uint64_t vaddr;      /* the section's address, for pc-relative pointers */
    bool big_endian;
    unsigned address_size;
};

/* Reads one DW_EH_PE-encoded pointer at *p: absolute or pc-relative, which is all that FDE
 * ranges use in practice. `encoding` 0 (absptr) is what .debug_frame always uses. */
static bool read_encoded(const struct cfi_section *sec, const uint8_t **p, const uint8_t *end,
                         uint8_t encoding, uint64_t *value)
{
    const uint8_t *field = *p;
    uint64_t v = 0;
    size_t size = 0;
    bool is_signed = false;
    switch (encoding & 0x0f) {
    case DW_EH_PE_absptr: size = sec->address_size; break;
    case DW_EH_PE_udata2: size = 2; break;
    case DW_EH_PE_udata4: size = 4; break;
    case DW_EH_PE_udata8: size = 8; break;
    case DW_EH_PE_sdata2: size = 2; is_signed = true; break;
    case DW_EH_PE_sdata4: size = 4; is_signed = true; break;
    case DW_EH_PE_sdata8: size = 8; is_signed = true; break;
    case DW_EH_PE_uleb128:
        if (!read_uleb(p, end, &v))
            return false;
        break;
    case DW_EH_PE_sleb128:
        if (!read_sleb(p, end, &v))
            return false;
        break;
    default:
        return false;
    }
    if (size) {
        if ((size_t)(end - *p) < size)
            return false;
        for (size_t i = 0; i < size; i++)
            v |= (uint64_t)(*p)[sec->big_endian ? i : size - 1 - i] << (8 * (size - 1 - i));
        if (is_signed && size < 8 && (v >> (8 * size - 1)) & 1)
            v |= ~UINT64_C(0) << (8 * size);
        *p += size;
    }
    switch (encoding & 0x70) {
    case DW_EH_PE_absptr: break;
    case DW_EH_PE_pcrel: v += sec->vaddr + (uint64_t)(field - sec->base); break;
    default: return false; /* textrel, datarel, funcrel, aligned: never seen on FDE ranges */
    }
    *value = v;
    return true;
}

/* The pointer encoding of the FDEs that use this CIE (its 'R' augmentation), or DW_EH_PE_omit
 * when the augmentation cannot be read. */
static uint8_t fde_encoding(const struct cfi_section *sec, const Dwarf_CIE *cie)
{
    const char *aug = cie->augmentation;
    if (aug[0] != 'z')
        return aug[0] == '\0' ? DW_EH_PE_absptr : DW_EH_PE_omit;
    const uint8_t *p = cie->augmentation_data, *end = p + cie->augmentation_data_size;
    for (const char *a = aug + 1; *a; a++) {
        uint64_t ignored;
        switch (*a) {
        case 'R':
            return p < end ? *p : DW_EH_PE_omit;
        case 'L':
            if (p++ >= end)
                return DW_EH_PE_omit;
            break;
        case 'P':
            if (p >= end)
                return DW_EH_PE_omit;
            uint8_t personality = *p++;
            if (!read_encoded(sec, &p, end, personality & 0x0f, &ignored))
                return DW_EH_PE_omit;
            break;
        case 'S': case 'B':
            break;
        default:
            return DW_EH_PE_omit;
        }
    }
    return DW_EH_PE_absptr;
}

static bool append_fde(struct module_entry *e, size_t *capacity, uint64_t low, uint64_t high)
{
    if (e->fde_count == *capacity) {
        size_t n = *capacity ? *capacity * 2 : 256;
        struct fde_range *r = realloc(e->fdes, n * sizeof *r);
        if (!r)
            return false;
        e->fdes = r;
        *capacity = n;
    }
    e->fdes[e->fde_count++] = (struct fde_range){low, high};
    return true;
}

/* Adds the FDEs of one .eh_frame or .debug_frame section, shifted by bias into module
 * addresses. Stops quietly at the first entry it cannot read. */
static void add_fdes(struct module_entry *e, size_t *capacity, Elf *elf, Elf_Scn *scn,
                     bool eh_frame, Dwarf_Addr bias)
{
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS || (shdr.sh_flags & SHF_COMPRESSED))
        return;
    Elf_Data *data = elf_getdata(scn, NULL);
    const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
    if (!data || !data->d_buf || !ident)
        return;
    struct cfi_section sec = {
        .base = data->d_buf,
        .vaddr = shdr.sh_addr,
        .big_endian = ident[EI_DATA] == ELFDATA2MSB,
        .address_size = ident[EI_CLASS] == ELFCLASS32 ? 4 : 8,
    };
    const uint8_t *section_end = sec.base + data->d_size;
    Dwarf_Off offset = 0, next, cie_offset = (Dwarf_Off)-1;
    uint8_t encoding = DW_EH_PE_omit;
    Dwarf_CFI_Entry entry;
    while (dwarf_next_cfi(ident, data, eh_frame, offset, &next, &entry) == 0) {
        offset = next;
        if (dwarf_cfi_cie_p(&entry))
            continue;
        if (entry.fde.CIE_pointer != cie_offset) {
            Dwarf_CFI_Entry cie;
            Dwarf_Off after;
            cie_offset = entry.fde.CIE_pointer;
            encoding = dwarf_next_cfi(ident, data, eh_frame, cie_offset, &after, &cie) == 0 &&
                               dwarf_cfi_cie_p(&cie)
                           ? fde_encoding(&sec, &cie.cie)
                           : DW_EH_PE_omit;
        }
        const uint8_t *p = entry.fde.start;
        uint64_t start, length;
        if (encoding == DW_EH_PE_omit || !read_encoded(&sec, &p, section_end, encoding, &start) ||
            !read_encoded(&sec, &p, section_end, encoding & 0x0f, &length))
            continue;
        if (length == 0 || start == 0 || start + length < start)
            continue; /* empty, or code the linker discarded (relocated to 0) */
        if (!append_fde(e, capacity, start + bias, start + length + bias))
            return;
    }
}

/* Adds the FDEs of every .eh_frame / .debug_frame section of elf. */
static void add_elf_fdes(struct module_entry *e, size_t *capacity, Elf *elf, Dwarf_Addr bias,
                         bool eh_frame_too)
{
    size_t strndx;
    if (!elf || elf_getshdrstrndx(elf, &strndx) != 0)
        return;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        const char *name = gelf_getshdr(scn, &shdr) ? elf_strptr(elf, strndx, shdr.sh_name) : NULL;
        if (!name)
            continue;
        if (eh_frame_too && strcmp(name, ".eh_frame") == 0)
            add_fdes(e, capacity, elf, scn, true, bias);
        else if (strcmp(name, ".debug_frame") == 0)
            add_fdes(e, capacity, elf, scn, false, bias);
    }
}

static int compare_fdes(const void *a, const void *b)
{
    const struct fde_range *x = a, *y = b;
    return x->low < y->low ? -1 : x->low > y->low ? 1 : x->high < y->high ? -1 : x->high > y->high;
}

/* Reads every FDE of the module once: .eh_frame and .debug_frame of the file itself, and
 * .debug_frame of its separate debug file when libdwfl found one. */
void build_fde_table(struct module_entry *e)
{
    e->fdes_built = true;
    size_t capacity = 0;
    Dwarf_Addr bias;
    Elf *elf = dwfl_module_getelf(e->mod, &bias);
    add_elf_fdes(e, &capacity, elf, bias, true);
    Dwarf_Addr debug_bias;
    Dwarf *dwarf = dwfl_module_getdwarf(e->mod, &debug_bias);
    Elf *debug = dwarf ? dwarf_getelf(dwarf) : NULL;
    if (debug && debug != elf)
        add_elf_fdes(e, &capacity, debug, debug_bias, false);
    qsort(e->fdes, e->fde_count, sizeof *e->fdes, compare_fdes);
}

/* The FDE covering module address addr. When two cover it (the same function described in
 * .eh_frame and .debug_frame), the one starting last: the innermost. */
bool find_fde(struct module_entry *e, uint64_t addr, struct fde_range *found)
{
    if (!e->fdes_built)
        build_fde_table(e);
    size_t lo = count_starting_at_or_below(e->fdes, e->fde_count, sizeof *e->fdes, addr);
    /* FDEs do not overlap in practice; look back a few entries in case they do. */
    for (size_t i = lo, steps = 0; i-- > 0 && steps < 4; steps++) {
        if (addr < e->fdes[i].high) {
            *found = e->fdes[i];
            return true;
        }
    }
    return false;
}
