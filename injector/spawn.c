/*
 * spawn.c — start a target, wait for it with a timeout, decode how it ended.
 *
 * Why a pidfd and poll: a timeout without signals or busy waiting, and no race with pid reuse.
 * Why a process group: a test harness's children must not outlive a run (a hang in a grandchild
 * would otherwise keep the next run's output files busy); killing the group ends them all.
 */
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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

static void redirect(const char *path, int target_fd, int flags)
{
    if (!path)
        return;
    int fd = open(path, flags, 0644);
    if (fd < 0) {
        dprintf(2, "failrun: cannot open %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    if (fd != target_fd) {
        dup2(fd, target_fd);
        close(fd);
    }
}

static void run_child(const struct spawn_request *request, char **environment, pid_t parent)
{
    setpgid(0, 0);
    /* If failrun is killed, its run dies with it instead of racing the resumed campaign. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    signal(SIGPIPE, SIG_DFL);
    redirect(request->stdin_path, 0, O_RDONLY);
    redirect(request->stdout_path, 1, O_WRONLY | O_CREAT | O_TRUNC);
    redirect(request->stderr_path, 2, O_WRONLY | O_CREAT | O_TRUNC);
    if (request->cwd && chdir(request->cwd) != 0) {
        dprintf(2, "failrun: cannot enter %s: %s\n", request->cwd, strerror(errno));
        _exit(127);
    }
    environ = environment;
    if (request->executable)
        execv(request->executable, request->argv);
    else
        execvp(request->argv[0], request->argv);
    dprintf(2, "failrun: cannot run %s: %s\n",
            request->executable ? request->executable : request->argv[0], strerror(errno));
    _exit(127);
}

static int wait_with_timeout(pid_t pid, int64_t timeout_ms, bool *timed_out)
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
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

struct spawn_result spawn_and_wait(const struct spawn_request *request)
{
    struct spawn_result result = {0};
    char **environment = request->environment ? (char **)request->environment
                                              : environment_with(request->extra_environment);
    fflush(NULL);
    int64_t start = now_ms();
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        fatal("cannot fork: %s; lower -j or raise the process limit", strerror(errno));
    if (pid == 0)
        run_child(request, environment, parent);
    setpgid(pid, pid); /* also here, so a kill of the group cannot race the child's own setpgid */
    result.pid = pid;
    int status = wait_with_timeout(pid, request->timeout_ms, &result.timed_out);
    kill(-pid, SIGKILL); /* stray members of the group: the run is over */
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
