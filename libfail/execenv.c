/*
 * execenv.c — keep the campaign's preload in every program the command starts, or say which
 * program ran without it.
 *
 * A test harness may replace LD_PRELOAD for the programs it starts (git's test library sets
 * LD_PRELOAD=libc_malloc_debug.so.0 around every test body), clear it (env -i, env -u), or start
 * a set-user-ID program, whose loader ignores LD_PRELOAD. Each such program would run unseen and
 * the campaign would look complete. So before an exec or posix_spawn (the wrappers are in
 * injector/preload/preload.c) a process of a campaign looks at the environment the new program
 * gets:
 * - LD_PRELOAD set without our library, the run's LIBFAIL_* variables still there: our library
 *   goes first in the chain, the others stay behind it (what failrun does with the user's own
 *   LD_PRELOAD, injector/store/campaign.c);
 * - LD_PRELOAD or the LIBFAIL_* variables gone, or a program the kernel starts with AT_SECURE:
 *   left as it is, and an UNPRELOADED record names the program and why (failrun counts them).
 *
 * Runs inside the target, often in a vfork child (posix_spawn, vfork + exec) that shares its
 * parent's memory: no allocation, no lock, no mapping; state on the caller's stack, the path of
 * our own library found once at initialisation (exec_environment_init).
 */
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

_Static_assert(sizeof ((struct exec_decision *)0)->program == PATH_MAX, "a whole path");

/* Our library's path as the loader knows it (from LD_PRELOAD); empty when libfail is not a
   preload here (linked into the program, libfail.so): then nothing is rewritten. */
static char own_preload[PATH_MAX];
static size_t own_preload_length;
/* Numbers the UNPRELOADED records of this image, so a failed exec takes back its own. */
static _Atomic uint64_t attempts;

void LF_TEXT exec_environment_init(void)
{
    Dl_info info;
    if (!dladdr((void *)exec_environment_init, &info) || !info.dli_fname)
        return;
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    size_t length = strlen(info.dli_fname);
    if (!starts_with(base, "libfail-") || length >= sizeof own_preload)
        return;
    memcpy(own_preload, info.dli_fname, length + 1);
    own_preload_length = length;
}

/* The value of the last NAME= entry (the one the loader reads), its index in *index. */
static const char *LF_TEXT environment_value(char *const *envp, const char *name, size_t *index)
{
    size_t length = strlen(name);
    const char *value = NULL;
    for (size_t i = 0; envp && envp[i]; i++)
        if (!strncmp(envp[i], name, length) && envp[i][length] == '=') {
            value = envp[i] + length + 1;
            if (index)
                *index = i;
        }
    return value;
}

/* Is our library (or another of libfail's preloads) in a list the loader splits at ':' and ' '? */
static bool LF_TEXT list_has_ours(const char *list)
{
    while (*list) {
        size_t length = strcspn(list, ": ");
        const char *base = list;
        for (size_t i = 0; i < length; i++)
            if (list[i] == '/')
                base = list + i + 1;
        size_t base_length = length - (size_t)(base - list);
        if ((own_preload_length && length == own_preload_length &&
             !memcmp(list, own_preload, length)) ||
            (base_length >= 15 && !memcmp(base, "libfail-preload", 15)) ||
            (base_length >= 14 && !memcmp(base, "libfail-kernel", 14)))
            return true;
        list += length;
        if (*list)
            list++;
    }
    return false;
}

static bool LF_TEXT join_path(char *out, const char *dir, size_t dir_length, const char *file)
{
    size_t file_length = strlen(file);
    if (dir_length + 1 + file_length >= PATH_MAX)
        return false;
    memcpy(out, dir, dir_length);
    out[dir_length] = '/';
    memcpy(out + dir_length + 1, file, file_length + 1);
    return true;
}

/* The program the call will run, as a path: a PATH search as execvp does it (the caller's PATH,
   "/bin:/usr/bin" without one), a relative path made absolute, an fd's file by its link. */
static void LF_TEXT resolve_program(char *out, const struct exec_target *target)
{
    out[0] = '\0';
    if (target->fd >= 0 || (target->path && !target->path[0] && (target->flags & AT_EMPTY_PATH))) {
        char link[32] = "/proc/self/fd/";
        size_t used = strlen(link);
        link[used + format_decimal(link + used, (uint64_t)(target->fd >= 0 ? target->fd
                                                                            : target->dirfd))] = 0;
        ssize_t n = readlink(link, out, PATH_MAX - 1);
        out[n > 0 ? n : 0] = '\0';
        return;
    }
    const char *path = target->path ? target->path : "";
    if (target->search && *path && !strchr(path, '/')) {
        const char *list = getenv("PATH");
        if (!list)
            list = "/bin:/usr/bin";
        while (true) {
            size_t length = strcspn(list, ":");
            char candidate[PATH_MAX];
            struct stat st;
            if (join_path(candidate, length ? list : ".", length ? length : 1, path) &&
                stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && access(candidate, X_OK) == 0) {
                memcpy(out, candidate, strlen(candidate) + 1);
                break;
            }
            if (!list[length])
                break;
            list += length + 1;
        }
        if (out[0] && out[0] == '/')
            return;
        if (!out[0]) { /* not found: the call fails; name the file as asked */
            size_t length = strnlen(path, PATH_MAX - 1);
            memcpy(out, path, length);
            out[length] = '\0';
            return;
        }
        path = out; /* found through a relative folder of PATH */
    }
    while (path[0] == '.' && path[1] == '/') /* ./prog names $PWD/prog */
        path += 2 + strspn(path + 2, "/");
    char copy[PATH_MAX];
    size_t length = strnlen(path, PATH_MAX - 1);
    memcpy(copy, path, length);
    copy[length] = '\0';
    if (copy[0] != '/' && target->dirfd == AT_FDCWD && getcwd(out, PATH_MAX) &&
        join_path(out, out, strlen(out), copy))
        return;
    memcpy(out, copy, length + 1);
}

/* Would the kernel start the program with AT_SECURE, so that the loader ignores LD_PRELOAD?
   It does when the new effective ids differ from the real ones: a set-user-ID or set-group-ID
   file (on a mount without nosuid, no_new_privs not set), a script's interpreter deciding for
   the script. File capabilities are not looked at. */
static bool LF_TEXT starts_secure(const char *program, const struct exec_target *target)
{
    int fd = target->fd;
    bool own_fd = false;
    if (fd < 0 && target->path && !target->path[0] && (target->flags & AT_EMPTY_PATH))
        fd = target->dirfd;
    if (fd < 0) {
        if (target->dirfd != AT_FDCWD && target->path && target->path[0] != '/')
            fd = openat(target->dirfd, target->path, O_RDONLY | O_CLOEXEC);
        else
            fd = program[0] ? open(program, O_RDONLY | O_CLOEXEC) : -1;
        own_fd = fd >= 0;
    }
    struct stat st;
    bool known = fd >= 0 ? fstat(fd, &st) == 0 : (program[0] && stat(program, &st) == 0);
    bool nosuid = false;
    char head[256]; /* the kernel reads no more of a "#!" line (BINPRM_BUF_SIZE) */
    ssize_t head_length = 0;
    if (known && fd >= 0) {
        struct statvfs fs;
        nosuid = fstatvfs(fd, &fs) == 0 && (fs.f_flag & ST_NOSUID);
        head_length = pread(fd, head, sizeof head - 1, 0);
    }
    if (own_fd)
        close(fd);
    if (!known || nosuid || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
        return false;
    if (head_length > 2 && head[0] == '#' && head[1] == '!') {
        /* A script: Linux ignores its set-ID bits; its interpreter's count. One level. */
        head[head_length] = '\0';
        char *interpreter = head + 2;
        interpreter += strspn(interpreter, " \t");
        interpreter[strcspn(interpreter, " \t\n")] = '\0';
        if (!*interpreter || stat(interpreter, &st) != 0)
            return false;
    }
    uid_t real_uid, effective_uid, saved_uid;
    gid_t real_gid, effective_gid, saved_gid;
    if (getresuid(&real_uid, &effective_uid, &saved_uid) != 0 ||
        getresgid(&real_gid, &effective_gid, &saved_gid) != 0)
        return false;
    uid_t new_uid = st.st_mode & S_ISUID ? st.st_uid : effective_uid;
    gid_t new_gid = (st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) ? st.st_gid
                                                                             : effective_gid;
    /* The kernel's test (security/commoncap.c): the ids change, or differ from the real ones. */
    return new_uid != effective_uid || new_uid != real_uid || new_gid != real_gid;
}

static bool LF_TEXT present(const char *value)
{
    return value && *value;
}

void LF_TEXT exec_decide(struct exec_decision *decision, const struct exec_target *target,
                         char *const *envp)
{
    decision->rewrite = false;
    decision->reason = 0;
    decision->program[0] = '\0';
    if (!runtime_campaign())
        return;
    int saved_guard = runtime_guard;
    runtime_guard = 1; /* our open, read and stat are not the program's (--faults io, kernel) */
    char selector = own_syscalls_begin();
    size_t index = 0;
    const char *preload = environment_value(envp, "LD_PRELOAD", &index);
    bool variables = present(environment_value(envp, "LIBFAIL_DIR", NULL)) &&
                     present(environment_value(envp, "LIBFAIL_PLAN", NULL));
    bool ours = present(preload) && list_has_ours(preload);
    resolve_program(decision->program, target);
    if (starts_secure(decision->program, target))
        decision->reason = UNPRELOADED_SETUID;
    else if (!variables || !present(preload))
        decision->reason = UNPRELOADED_CLEARED;
    else if (!ours && own_preload_length) {
        decision->rewrite = true;
        decision->preload_index = index;
        /* "LD_PRELOAD=" + ours + ":" + theirs + NUL */
        decision->entry_length = 11 + own_preload_length + 1 + strlen(preload) + 1;
    }
    if (decision->reason) {
        decision->attempt = atomic_fetch_add(&attempts, 1);
        runtime_note_unpreloaded(decision->program, decision->reason, decision->attempt, false);
    }
    own_syscalls_end(selector);
    runtime_guard = saved_guard;
}

void LF_TEXT exec_preload_entry(const struct exec_decision *decision, char *const *envp,
                                char *entry)
{
    const char *theirs = envp[decision->preload_index] + 11; /* after "LD_PRELOAD=" */
    size_t used = 0, length = strlen(theirs);
    memcpy(entry, "LD_PRELOAD=", 11);
    used += 11;
    memcpy(entry + used, own_preload, own_preload_length);
    used += own_preload_length;
    entry[used++] = ':';
    memcpy(entry + used, theirs, length + 1);
}

void LF_TEXT exec_failed(const struct exec_decision *decision)
{
    if (!decision->reason)
        return;
    int saved_errno = errno;
    int saved_guard = runtime_guard;
    runtime_guard = 1;
    runtime_note_unpreloaded(decision->program, decision->reason, decision->attempt, true);
    runtime_guard = saved_guard;
    errno = saved_errno;
}
