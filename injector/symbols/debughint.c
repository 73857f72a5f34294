/*
 * debughint.c — how to get the debug info a stripped module lacks: its build-id, the Debian
 * package that owns it, and the -dbgsym package or debuginfod to ask, as one hint per module.
 */
#include "symbols/symbolise.h"

#include <errno.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The GNU build-id of the ELF file at path, in hex, into hex[size]; false when it has none. */
static bool read_build_id(const char *path, char *hex, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        elf_version(EV_CURRENT);
        Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
        const void *bits;
        ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
        if (len > 0 && (size_t)len * 2 < size) {
            for (ssize_t i = 0; i < len; i++)
                snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)bits)[i]);
            ok = true;
        }
        elf_end(elf);
    }
    close(fd);
    return ok;
}

/* Runs `dpkg-query -S file`; its standard output (truncated) into out[size]. True when it
 * exited 0. fork+exec, not posix_spawn: injector/base/spawn.h shadows <spawn.h> on our include
 * path. */
static bool run_dpkg_query(const char *file, char *out, size_t size)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return false;
    pid_t pid = fork();
    if (pid == 0) {
        sigset_t none; /* not the signals failrun's campaign blocks in its threads */
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int null = open("/dev/null", O_RDWR);
        dup2(pipefd[1], STDOUT_FILENO);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execlp("dpkg-query", "dpkg-query", "-S", file, (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    size_t used = 0;
    char spill[512];
    while (pid > 0) { /* read to the end, keeping what fits: a full pipe would block the child */
        bool room = used < size - 1;
        ssize_t n = read(pipefd[0], room ? out + used : spill, room ? size - 1 - used : sizeof spill);
        if (n == 0 || (n < 0 && errno != EINTR))
            break;
        if (n > 0 && room)
            used += (size_t)n;
    }
    out[used] = '\0';
    close(pipefd[0]);
    int status = 1;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The Debian package that owns `file` according to dpkg-query -S, into package[size]. */
static bool dpkg_owner(const char *file, char *package, size_t size)
{
    static const char *const packaged_trees[] = {"/usr/", "/bin/", "/sbin/", "/lib", "/opt/"};
    bool packaged_tree = false;
    for (size_t i = 0; i < sizeof packaged_trees / sizeof packaged_trees[0]; i++)
        packaged_tree |= strncmp(file, packaged_trees[i], strlen(packaged_trees[i])) == 0;
    /* Each dpkg-query reads every package's file list (~0.1 s): not for a build tree's files;
     * not for a name dpkg-query would take as a pattern; not off Debian. */
    char out[4096];
    if (!packaged_tree || strpbrk(file, "*?[\\\n") || access("/var/lib/dpkg/info", F_OK) != 0 ||
        !run_dpkg_query(file, out, sizeof out))
        return false;
    /* Lines are "pkg[:arch][, pkg2...]: /path"; skip "diversion by ..." lines. */
    for (char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "diversion ", 10) == 0)
            continue;
        size_t len = strcspn(line, ":, \n");
        if (len == 0 || len >= size)
            return false;
        memcpy(package, line, len);
        package[len] = '\0';
        return true;
    }
    return false;
}

/* The Debian package owning path: tried as given, resolved (symlinks, alternatives) and, for
 * each, in its other merged-/usr spelling (dpkg knows /lib/x/libc.so.6, not /usr/lib/...). */
static bool package_of(const char *path, char *package, size_t size)
{
    char resolved[PATH_MAX];
    const char *names[2] = {path, realpath(path, resolved) ? resolved : NULL};
    static const char *const merged[] = {"/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/",
                                         "/libx32/"};
    for (int i = 0; i < 2; i++) {
        if (!names[i] || (i == 1 && strcmp(names[0], names[1]) == 0))
            continue;
        if (dpkg_owner(names[i], package, size))
            return true;
        char other[PATH_MAX + 8];
        const char *n = names[i];
        for (size_t m = 0; m < sizeof merged / sizeof merged[0]; m++) {
            const char *dir = merged[m];
            bool usr = strncmp(n, "/usr", 4) == 0 && strncmp(n + 4, dir, strlen(dir)) == 0;
            bool root = strncmp(n, dir, strlen(dir)) == 0;
            if (usr)
                snprintf(other, sizeof other, "%s", n + 4);
            else if (root)
                snprintf(other, sizeof other, "/usr%s", n);
            if ((usr || root) && dpkg_owner(other, package, size))
                return true;
        }
    }
    return false;
}

/* The hint for one path (see symbolise.h); NULL when path is not an ELF file we can read. */
static char *make_debug_hint(const char *path)
{
    char build_id[129];
    bool have_id = read_build_id(path, build_id, sizeof build_id);
    if (!have_id) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
            return NULL;
        char magic[4];
        bool elf = read(fd, magic, 4) == 4 && memcmp(magic, ELFMAG, SELFMAG) == 0;
        close(fd);
        if (!elf)
            return NULL;
    }
    char package[256];
    bool packaged = package_of(path, package, sizeof package);
    const char *urls = getenv("DEBUGINFOD_URLS");
    bool debuginfod = urls && *urls;
    char id_text[160];
    if (have_id)
        snprintf(id_text, sizeof id_text, "build-id %s", build_id);
    else
        snprintf(id_text, sizeof id_text, "no build-id");
    char *hint = NULL;
    int n;
    if (packaged)
        n = asprintf(&hint, "no debug info for %s (%s): apt-get install %s-dbgsym (from the "
                     "debian-debug archive)%s", path, id_text, package,
                     debuginfod ? "; the debuginfod servers in DEBUGINFOD_URLS have none"
                                : ", or set DEBUGINFOD_URLS=https://debuginfod.debian.net");
    else if (have_id)
        n = asprintf(&hint, "no debug info for %s (%s): rebuild it with -g, or install its debug "
                     "file as /usr/lib/debug/.build-id/%.2s/%s.debug%s", path, id_text, build_id,
                     build_id + 2,
                     debuginfod ? "; the debuginfod servers in DEBUGINFOD_URLS have none"
                                : ", or set DEBUGINFOD_URLS to a debuginfod server that has it");
    else
        n = asprintf(&hint, "no debug info for %s (%s): rebuild it with -g (and -Wl,--build-id, "
                     "which separate debug files and debuginfod need)", path, id_text);
    return n < 0 ? NULL : hint;
}

/* Hints cached per path for the whole process: each may cost a few dpkg-query runs. */
struct hint_entry {
    struct hint_entry *next;
    char *hint; /* NULL: no hint for this path */
    char path[];
};
static struct hint_entry *hints;
static pthread_mutex_t hints_lock = PTHREAD_MUTEX_INITIALIZER;

char *symboliser_debug_hint(const char *path)
{
    if (!path || !*path)
        return NULL;
    pthread_mutex_lock(&hints_lock);
    struct hint_entry *h = hints;
    while (h && strcmp(h->path, path) != 0)
        h = h->next;
    if (!h) {
        size_t len = strlen(path);
        h = malloc(sizeof *h + len + 1);
        if (h) {
            memcpy(h->path, path, len + 1);
            h->hint = make_debug_hint(path);
            h->next = hints;
            hints = h;
        }
    }
    char *copy = h && h->hint ? strdup(h->hint) : NULL;
    pthread_mutex_unlock(&hints_lock);
    return copy;
}
