/*
 * provoke.c — makes the kernel report a bug of its own on demand, for the test of `failrun
 * kernel`'s kernel findings (tests/kernel/guest-kernel.sh): one write(2) of "WARNING" to LKDTM's
 * /sys/kernel/debug/provoke-crash/DIRECT (CONFIG_LKDTM) runs a WARN_ON in the kernel, every time.
 * The write's only fault point is LKDTM's page for the text: failing it fails the write (ENOMEM,
 * no warning); past it the warning comes while the write is still armed.
 *
 *   provoke [FILE]   write "WARNING" to FILE (default the LKDTM file), print one line, exit 0
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "/sys/kernel/debug/provoke-crash/DIRECT";
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        perror("provoke: open");
        return 1;
    }
    if (write(fd, "WARNING\n", 8) != 8) {
        perror("provoke: write");
        return 1;
    }
    close(fd);
    puts("provoked");
    return 0;
}
