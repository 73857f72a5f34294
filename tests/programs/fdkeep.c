/* fdkeep.c — a program whose descriptors must stay its own while the preload unwinds its stacks.
 *
 * Its allocations go through a function with no unwind information (written in assembly without
 * CFI), so libunwind falls back to frame pointers and checks each stack address it reads: the
 * check that uses libunwind's pipe. Each allocation is made from a deeper stack, on other pages,
 * so the check is not answered from libunwind's cache of good pages.
 *
 *   fdkeep shell    — puts /dev/null on 3..9 as a shell's `exec 3>/dev/null` does, allocates, and
 *                     checks that 3..9 are still /dev/null;
 *   fdkeep dup2     — puts a file of its own on every descriptor above 2 it did not open itself (the
 *                     preload's), allocates, and checks that the file's bytes, its offset and every
 *                     such descriptor are untouched;
 *   fdkeep closeall — closes every descriptor above 2, allocates, and checks that the next file it
 *                     opens gets descriptor 3.
 * Exit 0 when the check holds, 3 when it does not (with a line on stderr), 1 when an allocation
 * failed (its error leg).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void *no_cfi_alloc(size_t size);
__asm__(".text\n"
        ".globl no_cfi_alloc\n"
        ".type no_cfi_alloc, @function\n"
        "no_cfi_alloc:\n"
        "    push %rbp\n"
        "    mov %rsp, %rbp\n"
        "    call malloc@PLT\n"
        "    pop %rbp\n"
        "    ret\n"
        ".size no_cfi_alloc, .-no_cfi_alloc\n");

/* An allocation `depth` pages of stack further down than at depth 0. */
static __attribute__((noinline)) void *deep_alloc(size_t size, int depth)
{
    volatile char pad[4096];
    pad[0] = (char)depth;
    void *p = depth > 0 ? deep_alloc(size, depth - 1) : no_cfi_alloc(size);
    return pad[0] == (char)depth ? p : NULL;
}

static int allocate_deeper(int rounds)
{
    for (int i = 1; i <= rounds; i++) {
        void *p = deep_alloc(32, 2 * i);
        if (!p)
            return 1;
        free(p);
    }
    return 0;
}

static int shell(void)
{
    int null = open("/dev/null", O_WRONLY);
    for (int fd = 3; fd <= 9; fd++)
        if (fd != null)
            dup2(null, fd);
    if (null > 9)
        close(null);
    struct stat want;
    if (stat("/dev/null", &want) != 0)
        return 2;
    if (allocate_deeper(8))
        return 1;
    for (int fd = 3; fd <= 9; fd++) {
        struct stat st;
        if (fstat(fd, &st) != 0 || st.st_rdev != want.st_rdev || !S_ISCHR(st.st_mode)) {
            fprintf(stderr, "fdkeep: descriptor %d is no longer /dev/null\n", fd);
            return 3;
        }
    }
    puts("fds 3-9 fine");
    return 0;
}

static int dup2_held(void)
{
    char path[] = "/tmp/fdkeep-XXXXXX";
    int file = mkstemp(path);
    if (file < 0)
        return 2;
    unlink(path);
    if (write(file, "DATA", 4) != 4 || lseek(file, 0, SEEK_SET) != 0)
        return 2;
    /* The descriptors above 2 we did not open: the preload's (and libunwind's, which the first
       allocation made). */
    int held[64], count = 0;
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return 2;
    struct dirent *entry;
    while ((entry = readdir(dir)) && count < 64) {
        int fd = atoi(entry->d_name);
        if (entry->d_name[0] != '.' && fd > 2 && fd != file && fd != dirfd(dir))
            held[count++] = fd;
    }
    closedir(dir);
    for (int i = 0; i < count; i++)
        dup2(file, held[i]);
    if (allocate_deeper(8))
        return 1;
    char bytes[8] = {0};
    struct stat mine;
    fstat(file, &mine);
    if (pread(file, bytes, sizeof bytes, 0) != 4 || memcmp(bytes, "DATA", 4) != 0 ||
        lseek(file, 0, SEEK_CUR) != 0) {
        fprintf(stderr, "fdkeep: our file was read or written: '%.8s'\n", bytes);
        return 3;
    }
    for (int i = 0; i < count; i++) {
        struct stat st;
        if (fstat(held[i], &st) != 0 || st.st_ino != mine.st_ino || st.st_dev != mine.st_dev) {
            fprintf(stderr, "fdkeep: descriptor %d is no longer our file\n", held[i]);
            return 3;
        }
    }
    printf("%d held descriptors replaced, all fine\n", count);
    return 0;
}

static int closeall(void)
{
    for (int fd = 3; fd < 4096; fd++)
        close(fd);
    if (allocate_deeper(8))
        return 1;
    int fd = open("/dev/null", O_RDONLY);
    if (fd != 3) {
        fprintf(stderr, "fdkeep: the first free descriptor is %d, not 3\n", fd);
        return 3;
    }
    puts("descriptor 3 free");
    return 0;
}

int main(int argc, char **argv)
{
    /* The first allocation starts the unwinder (and makes its pipe). */
    void *first = deep_alloc(16, 0);
    if (!first)
        return 1;
    free(first);
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "shell"))
        return shell();
    if (!strcmp(mode, "dup2"))
        return dup2_held();
    if (!strcmp(mode, "closeall"))
        return closeall();
    fprintf(stderr, "usage: fdkeep shell|dup2|closeall\n");
    return 2;
}
