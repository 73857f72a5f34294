/*
 * buildid.c — build-ids of the running kernel and of a vmlinux (buildid.h).
 *
 * /sys/kernel/notes is the kernel's .notes section as it is loaded: a sequence of ELF notes
 * (Elf64_Nhdr: name size, descriptor size, type; then the name and the descriptor, each padded
 * to 4 bytes). The build-id is the note of type NT_GNU_BUILD_ID named "GNU". A vmlinux's is read
 * with libelf and libdw's dwelf_elf_gnu_build_id.
 */
#include "kernel/buildid.h"
#include "base/util.h"

#include <elf.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *build_id_hex(const unsigned char *bytes, size_t length)
{
    char *text = xmalloc(2 * length + 1);
    for (size_t i = 0; i < length; i++)
        snprintf(text + 2 * i, 3, "%02x", bytes[i]);
    text[2 * length] = '\0';
    return text;
}

char *kernel_running_build_id(void)
{
    const char *path = getenv("LIBFAIL_KERNEL_NOTES");
    size_t size = 0;
    unsigned char *notes = (unsigned char *)read_whole_file(path && *path ? path : "/sys/kernel/notes", &size);
    char *id = NULL;
    for (size_t at = 0; notes && !id && at + sizeof(Elf64_Nhdr) <= size;) {
        Elf64_Nhdr header;
        memcpy(&header, notes + at, sizeof header);
        size_t name = at + sizeof header;
        size_t descriptor = name + (((size_t)header.n_namesz + 3) & ~(size_t)3);
        size_t next = descriptor + (((size_t)header.n_descsz + 3) & ~(size_t)3);
        if (next > size || next <= at || descriptor + header.n_descsz > size)
            break;
        if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
            !memcmp(notes + name, "GNU", 4) && header.n_descsz > 0)
            id = build_id_hex(notes + descriptor, header.n_descsz);
        at = next;
    }
    free(notes);
    return id;
}

char *elf_file_build_id(const char *path)
{
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    const void *bits = NULL;
    ssize_t length = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
    char *id = length > 0 ? build_id_hex(bits, (size_t)length) : NULL;
    if (elf)
        elf_end(elf);
    close(fd);
    return id;
}

void kernel_check_vmlinux(const char *vmlinux, const char *expected)
{
    char *running = expected ? NULL : kernel_running_build_id();
    const char *kernel = expected ? expected : running;
    char *file = elf_file_build_id(vmlinux);
    if (kernel && file && strcmp(kernel, file) != 0)
        fatal("%s is not the %s kernel's vmlinux: its build-id is %s, the kernel's %s; give the "
              "vmlinux of the same build (the kernel build folder's vmlinux)",
              vmlinux, expected ? "campaign's" : "running", file, kernel);
    if (!file)
        warn("%s has no build-id that could be read: cannot check that it is the %s kernel's",
             vmlinux, expected ? "campaign's" : "running");
    else if (!kernel)
        warn("cannot read the running kernel's build-id (/sys/kernel/notes; root?): cannot check "
             "that %s is its vmlinux", vmlinux);
    free(running);
    free(file);
}
