/*
 * buildid.h — which kernel a vmlinux is: the GNU build-id of the running kernel (its ELF notes in
 * /sys/kernel/notes) and of a vmlinux file, as hex text, so that failrun kernel never symbolises
 * KCOV's PCs against another build's line tables (they would name wrong lines, silently).
 */
#ifndef BUILDID_H
#define BUILDID_H

#include <stddef.h>

/* A build-id's bytes as hex text, malloc'ed. */
char *build_id_hex(const unsigned char *bytes, size_t length);

/* The running kernel's build-id, malloc'ed hex; NULL when its notes cannot be read (not root,
   no sysfs) or hold none. LIBFAIL_KERNEL_NOTES names another notes file (tests). */
char *kernel_running_build_id(void);

/* The build-id of the ELF file at `path`, malloc'ed hex; NULL when it cannot be read or has
   none. */
char *elf_file_build_id(const char *path);

/* Refuse a vmlinux that is not the kernel `expected` names (a build-id, NULL: the running
   kernel's): fatal with both ids on a mismatch; a warning when either id is unknown. */
void kernel_check_vmlinux(const char *vmlinux, const char *expected);

#endif
