/*
 * leftover.c — no process a campaign started outlives it.
 *
 * A run's processes share its process group, which spawn.c kills when the run ends. A fixture
 * that daemonises (fork, setsid, fork again: a test server) leaves that group and, once its
 * parent exits, would be re-parented to init and run on after the campaign. So failrun is a
 * child subreaper (PR_SET_CHILD_SUBREAPER): such orphans become its children. Which run one
 * belongs to is in its environment: every process of a run inherits LIBFAIL_DIR, the run's
 * folder (a fork child's, a folder inside the fork run's, which spawn.c names as the run's). Then
 * - when a run ends, the orphans whose LIBFAIL_DIR lies in that run's folder end with it
 *   (spawn.c); those of other runs still going on (-j N) are left alone;
 * - when the campaign ends, or failrun gets SIGINT, SIGTERM or SIGHUP, every orphan it adopted
 *   that carries a LIBFAIL_DIR ends;
 * - after SIGKILL (nothing runs in a killed process) the orphans went to init; the next
 *   campaign kills the processes whose LIBFAIL_DIR lies in a scratch folder whose failrun is
 *   gone (scratch.c finds those), or in its own campaign folder with no failrun above them.
 * Each is killed with its process group (a daemon leads its own) and, when failrun adopted it,
 * reaped.
 */
#include "base/leftover.h"
#include "base/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

void leftovers_adopt(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* The process's parent and state from /proc/PID/stat; false when it is gone. */
static bool process_stat(long pid, long *parent, char *state)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    const char *close_paren = strrchr(text, ')'); /* the name may hold spaces and parens */
    return close_paren && sscanf(close_paren + 1, " %c %ld", state, parent) == 2;
}

/* The value of LIBFAIL_DIR in the process's environment as at its exec, trailing slashes
   dropped (failrun pads the folder to one length); NULL when it has none or cannot be read. */
static char *process_run_dir(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/environ", pid);
    size_t length = 0;
    char *text = read_whole_file(path, &length);
    if (!text)
        return NULL;
    char *found = NULL;
    for (size_t at = 0; at < length;) {
        const char *entry = text + at;
        size_t entry_length = strnlen(entry, length - at);
        if (entry_length > 12 && !strncmp(entry, "LIBFAIL_DIR=", 12)) {
            found = xasprintf("%.*s", (int)(entry_length - 12), entry + 12);
            break;
        }
        at += entry_length + 1;
    }
    free(text);
    size_t n = found ? strlen(found) : 0;
    while (n > 1 && found[n - 1] == '/')
        found[--n] = '\0';
    return found;
}

/* `dir` is `folder` or lies inside it. */
static bool inside(const char *dir, const char *folder)
{
    size_t length = strlen(folder);
    while (length > 1 && folder[length - 1] == '/')
        length--;
    return !strncmp(dir, folder, length) && (dir[length] == '\0' || dir[length] == '/');
}

static void end_process(long pid, bool adopted)
{
    kill(-(pid_t)pid, SIGKILL); /* the group it leads, if it leads one */
    kill((pid_t)pid, SIGKILL);
    if (adopted)
        while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
            ;
}

bool process_is_failrun(long pid, bool if_unreadable)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    FILE *file = fopen(path, "r");
    if (!file)
        return errno != ENOENT && if_unreadable;
    char name[32] = "";
    bool failrun = fgets(name, sizeof name, file) && !strcmp(name, "failrun\n");
    fclose(file);
    return failrun;
}

/* A failrun process above `pid` (its parent, grandparent, ...): it is a live campaign's. */
static bool below_failrun(long pid)
{
    for (int hops = 0; hops < 64 && pid > 1; hops++) {
        long parent = 0;
        char state = 0;
        if (!process_stat(pid, &parent, &state))
            return false;
        if (process_is_failrun(parent, false))
            return true;
        pid = parent;
    }
    return false;
}

/* Every process (adopted_only: every child of failrun that `keep` does not hold) whose run
   folder lies in `folder` (NULL: any run folder) ends; adopted zombies are reaped. With
   `unowned`, only processes no failrun is above. Returns how many were ended. */
static int end_matching(const char *folder, bool adopted_only, bool unowned,
                        bool (*keep)(long pid), bool reap_zombies)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    long self = (long)getpid();
    int ended = 0;
    struct dirent *entry;
    while ((entry = readdir(proc))) {
        if (!isdigit((unsigned char)entry->d_name[0]))
            continue;
        long pid = strtol(entry->d_name, NULL, 10);
        long parent = 0;
        char state = 0;
        if (pid == self || !process_stat(pid, &parent, &state))
            continue;
        bool adopted = parent == self;
        if ((adopted_only && !adopted) || (keep && keep(pid)))
            continue;
        if (state == 'Z') {
            /* An orphan that ended by itself: reaped only once no run is being started (a run's
               own process, dead before spawn.c registered it, must be left to its waitpid). */
            if (adopted && reap_zombies)
                waitpid((pid_t)pid, NULL, WNOHANG);
            continue;
        }
        char *dir = process_run_dir(pid);
        bool match = dir && (!folder || inside(dir, folder));
        free(dir);
        if (match && unowned && below_failrun(pid))
            match = false;
        if (match) {
            end_process(pid, adopted);
            ended++;
        }
    }
    closedir(proc);
    return ended;
}

/* failrun's children, from /proc/self/task/TID/children (one file per thread): true when one
   is not held by `keep` (an orphan failrun adopted). */
static bool has_adopted(bool (*keep)(long pid))
{
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks)
        return true; /* cannot tell: look */
    bool found = false;
    struct dirent *entry;
    while (!found && (entry = readdir(tasks))) {
        if (!isdigit((unsigned char)entry->d_name[0]))
            continue;
        char *path = xasprintf("/proc/self/task/%s/children", entry->d_name);
        char *text = read_whole_file(path, NULL);
        free(path);
        if (!text)
            found = true; /* cannot tell (no CONFIG_PROC_CHILDREN): look */
        for (char *at = text; at && *at && !found;) {
            char *end;
            long pid = strtol(at, &end, 10);
            if (end == at)
                break;
            found = !keep || !keep(pid);
            at = end;
        }
        free(text);
    }
    closedir(tasks);
    return found;
}

void leftovers_end_run(const char *run_dir, bool (*keep)(long pid))
{
    if (run_dir && has_adopted(keep))
        end_matching(run_dir, true, false, keep, false);
}

void leftovers_end_all(void)
{
    end_matching(NULL, true, false, NULL, true);
}

int leftovers_end_stale(const char *folder, bool owner_gone)
{
    return end_matching(folder, false, !owner_gone, NULL, false);
}
