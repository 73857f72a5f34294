/*
 * provoke.c — makes the kernel report a bug of its own on demand, for the test of `failrun
 * kernel`'s kernel findings (tests/kernel/guest-kernel.sh): one write(2) of a crash type's name
 * to LKDTM's /sys/kernel/debug/provoke-crash/DIRECT (CONFIG_LKDTM) runs it in the kernel, every
 * time: WARNING (a WARN_ON), WRITE_AFTER_FREE (a use-after-free KASAN reports),
 * CORRUPT_LIST_ADD (list debugging's).
 * The write's only fault point is LKDTM's page for the text: failing it fails the write (ENOMEM,
 * no report); past it the report comes while the write is still armed.
 *
 *   provoke [TYPE [FILE]]   write TYPE (default WARNING) to FILE (default the LKDTM file), print
 *                           one line, exit 0
 *   provoke ABORT           nothing of the kernel's: a pipe(), and abort() when it fails, so the
 *                           program dies inside a system call of its own (abort's tgkill), which
 *                           failrun kernel's SIGSYS handler makes
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *type = argc > 1 ? argv[1] : "WARNING";
    if (!strcmp(type, "ABORT")) {
        int ends[2];
        if (pipe(ends) != 0) {
            perror("provoke: pipe");
            abort();
        }
        printf("a pipe\n");
        return 0;
    }
    const char *path = argc > 2 ? argv[2] : "/sys/kernel/debug/provoke-crash/DIRECT";
    char text[64];
    int length = snprintf(text, sizeof text, "%s\n", type);
    if (length <= 0 || length >= (int)sizeof text) {
        fprintf(stderr, "provoke: crash type too long\n");
        return 2;
    }
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        perror("provoke: open");
        return 1;
    }
    if (write(fd, text, (size_t)length) != length) {
        perror("provoke: write");
        return 1;
    }
    close(fd);
    printf("provoked %s\n", type);
    return 0;
}
