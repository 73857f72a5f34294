/*
 * spawn.c — start a target, wait for it with a timeout, decode how it ended.
 *
 * Why a pidfd and poll: a timeout without signals or busy waiting, and no race with pid reuse.
 * Why a process group: a test harness's children must not outlive a run (a hang in a grandchild
 * would otherwise keep the next run's output files busy); killing the group ends them all.
 */
#include "base/spawn.h"
#include "base/leftover.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The processes started and not yet reaped, so that failrun, ending on a signal or an exit,
   can stop them before it removes the folders they write into (spawn_stop_all). */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static VECTOR(pid_t) live;
static size_t starting; /* between the check of failrun_stopping and the pid's registration */

static void live_remove(pid_t pid)
{
    pthread_mutex_lock(&live_lock);
    for (size_t i = 0; i < live.count; i++)
        if (live.items[i] == pid) {
            live.items[i] = live.items[--live.count];
            break;
        }
    pthread_mutex_unlock(&live_lock);
}

/* A process spawn_and_wait still waits for (leftover.c leaves it alone). */
static bool spawn_is_live(long pid)
{
    pthread_mutex_lock(&live_lock);
    bool found = false;
    for (size_t i = 0; i < live.count && !found; i++)
        found = live.items[i] == (pid_t)pid;
    pthread_mutex_unlock(&live_lock);
    return found;
}

/* The run's folder, from the LIBFAIL_DIR the request gives it; NULL for none. */
static const char *run_dir_of(const struct spawn_request *request)
{
    if (request->run_dir)
        return request->run_dir;
    const char *const *lists[] = {request->extra_environment, request->environment};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; lists[l] && lists[l][i]; i++)
            if (!strncmp(lists[l][i], "LIBFAIL_DIR=", 12))
                return lists[l][i] + 12;
    return NULL;
}

bool spawn_stop_all(int64_t timeout_ms)
{
    int64_t deadline = now_ms() + timeout_ms;
    for (;;) {
        pthread_mutex_lock(&live_lock);
        for (size_t i = 0; i < live.count; i++) {
            kill(-live.items[i], SIGKILL);
            kill(live.items[i], SIGKILL);
        }
        bool none = live.count == 0 && starting == 0;
        pthread_mutex_unlock(&live_lock);
        if (none)
            return true;
        if (now_ms() >= deadline)
            return false;
        struct timespec pause = {0, 2 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

char **environment_with(const char *const *extra)
{
    size_t ours = 0, theirs = 0;
    while (environ[ours])
        ours++;
    while (extra && extra[theirs])
        theirs++;
    char **result = xcalloc(ours + theirs + 1, sizeof *result);
    size_t count = 0;
    for (size_t i = 0; i < ours; i++) {
        const char *equals = strchr(environ[i], '=');
        size_t name_length = equals ? (size_t)(equals - environ[i]) : strlen(environ[i]);
        bool replaced = false;
        for (size_t j = 0; j < theirs && !replaced; j++)
            replaced = !strncmp(extra[j], environ[i], name_length) && extra[j][name_length] == '=';
        if (!replaced)
            result[count++] = environ[i];
    }
    for (size_t j = 0; j < theirs; j++)
        result[count++] = (char *)extra[j];
    result[count] = NULL;
    return result;
}

/* What the child may do runs on memory it shares with failrun (see spawn_and_wait): system
   calls only, no allocation, no stdio, nothing written that failrun reads. */
static void child_fail(const char *what, const char *path)
{
    const char *reason = strerror(errno); /* a static table's string for known errors */
    const char *parts[] = {"failrun: ", what, " ", path, ": ", reason, "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (write(2, parts[i], strlen(parts[i])) < 0)
            break;
    _exit(127);
}

static void redirect(const char *path, int target_fd, int flags)
{
    if (!path)
        return;
    int fd = open(path, flags, 0644);
    if (fd < 0)
        child_fail("cannot open", path);
    if (fd != target_fd) {
        dup2(fd, target_fd);
        close(fd);
    }
}

struct child_start {
    const struct spawn_request *request;
    char **environment;
    pid_t parent;
    sigset_t mask; /* failrun's signal mask, restored just before the exec */
};

static int run_child(void *argument)
{
    const struct child_start *start = argument;
    setpgid(0, 0);
    /* If failrun is killed, its run dies with it instead of racing the resumed campaign (on
       INT, TERM and HUP failrun stops its runs itself first: spawn_stop_all). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != start->parent)
        _exit(127);
    /* The child has its own copy of the handlers (no CLONE_SIGHAND); failrun sets none but
       SIGPIPE's SIG_IGN, which an exec would keep. Its mask is failrun's without the signals
       failrun's waiting thread takes (stop_signals). */
    signal(SIGPIPE, SIG_DFL);
    redirect(start->request->stdin_path, 0, O_RDONLY);
    redirect(start->request->stdout_path, 1, O_WRONLY | O_CREAT | O_TRUNC);
    redirect(start->request->stderr_path, 2, O_WRONLY | O_CREAT | O_TRUNC);
    if (start->request->cwd && chdir(start->request->cwd) != 0)
        child_fail("cannot enter", start->request->cwd);
    /* One campaign, one process layout: without address-space randomisation every run (and
       every process it starts: the personality is inherited) maps its libraries, heap and stack
       where the baseline's were. A program that hashes addresses (an interpreter's allocator,
       a pointer-keyed table) otherwise takes other paths, and reaches other allocation sites,
       from run to run. Where the personality cannot be set (a container's seccomp), runs keep
       the system's randomisation. */
    int persona = personality(0xffffffff);
    if (persona != -1 && !(persona & ADDR_NO_RANDOMIZE))
        personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
    sigprocmask(SIG_SETMASK, &start->mask, NULL);
    if (start->request->executable)
        execve(start->request->executable, start->request->argv, start->environment);
    else
        execvpe(start->request->argv[0], start->request->argv, start->environment);
    child_fail("cannot run", start->request->executable ? start->request->executable
                                                       : start->request->argv[0]);
    return 127;
}

static int wait_with_timeout(pid_t pid, int64_t timeout_ms, bool *timed_out, int64_t *cpu_ms)
{
    int status = 0;
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd >= 0 && timeout_ms > 0) {
        struct pollfd poll_fd = {.fd = pidfd, .events = POLLIN};
        int64_t deadline = now_ms() + timeout_ms;
        for (;;) {
            int64_t left = deadline - now_ms();
            if (left <= 0) {
                *timed_out = true;
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                break;
            }
            int n = poll(&poll_fd, 1, left > 1000000 ? 1000000 : (int)left);
            if (n > 0)
                break;
            if (n < 0 && errno != EINTR)
                break;
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    /* Its CPU time with that of the descendants it waited for (the kernel sums them at exit). */
    struct rusage usage;
    memset(&usage, 0, sizeof usage);
    while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR)
        ;
    *cpu_ms = (int64_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 +
              (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000;
    return status;
}

struct spawn_result spawn_and_wait(const struct spawn_request *request)
{
    struct spawn_result result = {0};
    char **environment = request->environment ? (char **)request->environment
                                              : environment_with(request->extra_environment);
    int64_t start = now_ms();
    /* The child shares failrun's memory until its exec (CLONE_VM | CLONE_VFORK, as posix_spawn
       does; posix_spawn itself cannot set PR_SET_PDEATHSIG): a fork copied failrun's page tables
       and then faulted in copies of what both touched, per run, a sixth of a re-run campaign's
       CPU (perf, jq). Signals stay blocked until the child has reset what it inherited. */
    enum { CHILD_STACK = 64 * 1024 };
    char *stack = xmalloc(CHILD_STACK);
    struct child_start child = {.request = request, .environment = environment,
                                .parent = getpid()};
    /* Once failrun is stopping no run starts; one that was starting is killed as it registers. */
    pthread_mutex_lock(&live_lock);
    if (failrun_stopping) {
        pthread_mutex_unlock(&live_lock);
        stop_here();
    }
    starting++;
    pthread_mutex_unlock(&live_lock);
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &child.mask);
    sigset_t ours = child.mask;
    signals_for_child(&child.mask);
    pid_t pid = clone(run_child, stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &ours, NULL);
    free(stack);
    if (pid > 0)
        setpgid(pid, pid); /* also here, so a kill of the group cannot race the child's own */
    pthread_mutex_lock(&live_lock);
    starting--;
    if (pid > 0)
        VECTOR_PUSH(live, pid);
    if (pid > 0 && failrun_stopping) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
    }
    pthread_mutex_unlock(&live_lock);
    if (pid < 0)
        fatal("cannot start a process: %s; lower -j or raise the process limit",
              strerror(saved));
    result.pid = pid;
    int status = wait_with_timeout(pid, request->timeout_ms, &result.timed_out, &result.cpu_ms);
    kill(-pid, SIGKILL); /* stray members of the group: the run is over */
    live_remove(pid);
    /* and what left the group (a daemonised fixture), which failrun adopted */
    leftovers_end_run(run_dir_of(request), spawn_is_live);
    if (failrun_stopping) /* killed by failrun as it ends: nothing to conclude */
        stop_here();
    result.wall_ms = now_ms() - start;
    if (!request->environment)
        free(environment);
    if (WIFSIGNALED(status)) {
        result.signal = WTERMSIG(status);
        result.started = true;
    } else {
        result.exit_code = WEXITSTATUS(status);
        result.started = result.exit_code != 127;
    }
    return result;
}
