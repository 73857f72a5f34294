/*
 * scratch.c — the campaign's scratch folder in memory, and how failrun ends without leaving it.
 *
 * Runs execute in a folder failrun-PID.XXXXXX on a tmpfs (/dev/shm): tens of megabytes of
 * memory that nothing else frees. It is removed
 * - when the campaign ends, normally (close_scratch) or by exit() on an error (the exit handler);
 * - on SIGINT, SIGTERM and SIGHUP: one thread of failrun waits for them (the others block them,
 *   so no handler ever interrupts failrun's own work); it kills the runs' processes with their
 *   groups and waits until they are reaped, since a process still running could write into the
 *   folder after it was removed, then removes it and ends failrun with the same signal. A thread
 *   whose run was killed, or that meets the missing folder, waits for that end instead of
 *   concluding anything (failrun_stopping), so the database holds only what ran to its end;
 *   the same command resumes, as after SIGKILL. A signal ignored when failrun started (nohup,
 *   a script's `cmd &`) stays ignored;
 * - after SIGKILL (nothing runs in a killed process) by the next campaign, which also ends the
 *   processes its runs left (leftover.c): the owner holds an
 *   flock on its folder for its lifetime, which the kernel drops when it dies, so a folder
 *   whose lock is free and whose failrun is gone is a leftover. The lock, not the pid, decides:
 *   a pid is reused, and a campaign in another pid namespace sharing /dev/shm has a pid that
 *   means nothing here; its lock still holds.
 */
#include "engine/campaign_run.h"
#include "base/leftover.h"
#include "base/spawn.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define SCRATCH_PREFIX "failrun-"
#define DEFAULT_ROOT "/dev/shm"

/* How long failrun, ending, waits for its runs' processes to be reaped, and then for its
   folder to stay removed (a run's forked child dies with the run, a moment later). */
#define STOP_WAIT_MS 5000
#define REMOVE_WAIT_MS 2000

static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static char *scratch_path; /* the folder to remove while failrun can still end; under stop_lock */
static int scratch_lock = -1;

/* A process still alive that may be the owner of failrun-PID.* in the moment between creating
   and locking its folder (or a failrun without the lock): keep its folder. A pid reused by
   another program does not keep it. */
static bool may_be_owner(long pid)
{
    return process_is_failrun(pid, true); /* unreadable: alive, assume the worst */
}

/* Remove the folders failrun-PID.* under root that no live failrun owns. */
static void remove_stale_scratch(const char *root)
{
    DIR *folder = opendir(root);
    if (!folder)
        return;
    struct dirent *entry;
    while ((entry = readdir(folder))) {
        if (strncmp(entry->d_name, SCRATCH_PREFIX, strlen(SCRATCH_PREFIX)))
            continue;
        char *end;
        long pid = strtol(entry->d_name + strlen(SCRATCH_PREFIX), &end, 10);
        if (*end != '.' || pid <= 0 || pid == (long)getpid())
            continue;
        int fd = openat(dirfd(folder), entry->d_name,
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat st;
        /* Locked: its owner lives. Free: the owner is gone, or is just creating it. */
        if (fstat(fd, &st) == 0 && st.st_uid == getuid() && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
            !may_be_owner(pid)) {
            char *path = xasprintf("%s/%s", root, entry->d_name);
            /* Its runs' daemonised fixtures went to init when their failrun was killed. */
            leftovers_end_stale(path, true);
            remove_tree(path); /* holding its lock: a scan of another campaign skips it */
            free(path);
        }
        close(fd);
    }
    closedir(folder);
}

/* The scratch file system: LIBFAIL_SCRATCH (a folder; empty for none), else /dev/shm when it is
   a writable tmpfs. Per run, the preload writes a record file per process, and failrun an
   output file per stream and a folder: on ext4 that inode work was a quarter of a fork
   campaign's time (perf); in memory it is next to nothing, and only what is kept touches disk. */
static bool default_root_usable(void)
{
    struct statfs fs;
    return statfs(DEFAULT_ROOT, &fs) == 0 && fs.f_type == TMPFS_MAGIC &&
           access(DEFAULT_ROOT, W_OK) == 0;
}

static const char *scratch_root(void)
{
    const char *chosen = getenv("LIBFAIL_SCRATCH");
    if (chosen)
        return *chosen ? chosen : NULL;
    return default_root_usable() ? DEFAULT_ROOT : NULL;
}

/* Remove the folder; a process that was still dying may have added to it, so until it stays
   gone (bounded). Under stop_lock. */
static void remove_scratch(void)
{
    if (!scratch_path)
        return;
    int64_t deadline = now_ms() + REMOVE_WAIT_MS;
    for (;;) {
        remove_tree(scratch_path);
        if (access(scratch_path, F_OK) != 0 || now_ms() >= deadline)
            break;
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    free(scratch_path);
    scratch_path = NULL;
    if (scratch_lock >= 0)
        close(scratch_lock);
    scratch_lock = -1;
}

/* failrun ends while runs may be under way: stop them, then remove the folder. */
static void stop_campaign(void)
{
    pthread_mutex_lock(&stop_lock);
    if (scratch_path) {
        failrun_stopping = 1;
        if (!spawn_stop_all(STOP_WAIT_MS))
            warn("processes of runs still running after %d s; removing %s anyway",
                 STOP_WAIT_MS / 1000, scratch_path);
        remove_scratch();
    }
    pthread_mutex_unlock(&stop_lock);
}

static void stop_at_exit(void)
{
    stop_campaign();
}

static void *wait_for_signal(void *unused)
{
    (void)unused;
    int sig = 0;
    while (sigwait(&stop_signals, &sig) != 0)
        ;
    failrun_stopping = 1; /* also without a scratch folder: no run is concluded from now on */
    spawn_stop_all(STOP_WAIT_MS);
    leftovers_end_all(); /* the fixtures the runs left behind */
    stop_campaign();
    char line[128];
    int length = snprintf(line, sizeof line,
                          "%s: stopped by SIG%s; the same command resumes the campaign\n",
                          program_name, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
    if (length > 0 && write(STDERR_FILENO, line, (size_t)length) < 0)
        length = 0;
    /* End as the signal would have ended failrun, for the shell and the caller's status. */
    signal(sig, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    pthread_sigmask(SIG_UNBLOCK, &only, NULL);
    raise(sig);
    _exit(128 + sig);
}

void stop_signals_start(void)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    sigemptyset(&stop_signals);
    sigset_t blocked;
    pthread_sigmask(SIG_SETMASK, NULL, &blocked);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction action;
        if (sigaction(signals[i], NULL, &action) == 0 && action.sa_handler == SIG_IGN)
            continue; /* ignored by who started failrun: stays so */
        if (sigismember(&blocked, signals[i]) == 1)
            continue;
        sigaddset(&stop_signals, signals[i]);
    }
    if (sigisemptyset(&stop_signals))
        return;
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    if (pthread_create(&thread, &attributes, wait_for_signal, NULL) != 0) {
        pthread_sigmask(SIG_UNBLOCK, &stop_signals, NULL); /* signals end failrun as before */
        sigemptyset(&stop_signals);
    }
    pthread_attr_destroy(&attributes);
}

/* mkdtemp, then the lock. A scan of another campaign that found the new folder unlocked in
   between may have removed it: then again. */
static char *create_locked(const char *root)
{
    for (int attempt = 0; attempt < 5; attempt++) {
        char *template = xasprintf("%s/" SCRATCH_PREFIX "%ld.XXXXXX", root, (long)getpid());
        if (!mkdtemp(template)) {
            int saved = errno;
            free(template);
            errno = saved;
            return NULL;
        }
        int fd = open(template, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd >= 0 && flock(fd, LOCK_EX) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0) {
            scratch_lock = fd;
            return template;
        }
        int saved = errno;
        if (fd >= 0)
            close(fd);
        rmdir(template);
        free(template);
        errno = saved;
    }
    return NULL;
}

void open_scratch(struct campaign_context *context)
{
    context->kept_dir = xasprintf("%s/runs", context->state_dir);
    leftovers_end_stale(context->kept_dir, false); /* a killed run of this campaign's, in place */
    const char *root = scratch_root();
    /* Leftovers of killed campaigns, where this one puts its folder and where the default is. */
    if (root)
        remove_stale_scratch(root);
    if ((!root || strcmp(root, DEFAULT_ROOT)) && default_root_usable())
        remove_stale_scratch(DEFAULT_ROOT);
    if (root) {
        char *created = create_locked(root);
        if (created) {
            context->scratch_dir = created;
            pthread_mutex_lock(&stop_lock);
            scratch_path = xstrdup(created);
            pthread_mutex_unlock(&stop_lock);
            static bool registered;
            if (!registered)
                atexit(stop_at_exit);
            registered = true;
        } else {
            warn("cannot create a scratch folder in %s (%s); runs use %s", root, strerror(errno),
                 context->kept_dir);
        }
    }
    context->runs_dir = context->scratch_dir ? xasprintf("%s/runs", context->scratch_dir)
                                             : xstrdup(context->kept_dir);
    if (!make_directories(context->runs_dir) || !make_directories(context->kept_dir))
        fatal("cannot create %s: %s; check the folder of --db", context->runs_dir,
              strerror(errno));
}

void close_scratch(struct campaign_context *context)
{
    leftovers_end_all();
    pthread_mutex_lock(&stop_lock);
    remove_scratch();
    pthread_mutex_unlock(&stop_lock);
    free(context->scratch_dir);
    free(context->runs_dir);
    free(context->kept_dir);
    context->scratch_dir = context->runs_dir = context->kept_dir = NULL;
}
