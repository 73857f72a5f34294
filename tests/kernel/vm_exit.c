/*
 * vm_exit.c — end the qemu guest with an exit status: `vm-exit STATUS` writes STATUS to qemu's
 * isa-debug-exit port (0xf4), and qemu exits with (STATUS << 1) | 1.
 *
 * Built static (gcc -static) by run-vm.sh: it is /init's last act and must not depend on
 * anything in the initramfs. Needs CONFIG_X86_IOPL_IOPERM in the guest kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>

#define DEBUG_EXIT_PORT 0xf4

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: vm-exit STATUS (0-127)\n");
        return 2;
    }
    int status = atoi(argv[1]);
    if (status < 0 || status > 127)
        status = 127;
    if (ioperm(DEBUG_EXIT_PORT, 4, 1) != 0) {
        perror("vm-exit: ioperm(0xf4) (is CONFIG_X86_IOPL_IOPERM set?)");
        return 1;
    }
    outb((unsigned char)status, DEBUG_EXIT_PORT);
    /* qemu stops at the write; reaching here means there is no isa-debug-exit device. */
    fprintf(stderr, "vm-exit: no isa-debug-exit device at port 0xf4\n");
    return 1;
}
