/*
 * spawn.h — the one place failrun starts target processes: environment, stdio, process group,
 * timeout, and decoding of the exit status (git's run-command.c in spirit).
 */
#ifndef FAILRUN_SPAWN_H
#define FAILRUN_SPAWN_H

#include <stdbool.h>
#include <stdint.h>

struct spawn_request {
    char *const *argv;
    const char *executable;               /* the file to run; NULL: argv[0], looked up in PATH */
    const char *cwd;                      /* the folder to run in; NULL: ours */
    const char *const *extra_environment; /* "NAME=value" entries added to (or replacing) ours */
    const char *const *environment;       /* the whole environment instead; NULL: as above */
    const char *stdin_path;               /* NULL: inherit */
    const char *stdout_path;              /* NULL: inherit */
    const char *stderr_path;              /* NULL: inherit */
    int64_t timeout_ms;                   /* 0: none */
    const char *run_dir; /* the folder whose processes are the run's (leftover.c); NULL: the
                            LIBFAIL_DIR the environment gives */
};

struct spawn_result {
    bool started;   /* false: exec failed (exit_code 127) */
    bool timed_out; /* killed by failrun after timeout_ms */
    int exit_code;  /* valid when signal == 0 */
    int signal;     /* the terminating signal, 0 when the process exited */
    int64_t wall_ms;
    int64_t cpu_ms; /* user + system, its own and its reaped descendants' */
    int pid; /* of the process started (the command) */
};

/* Run and wait. The child leads its own process group; on timeout, or when the child ends while
   others of its group are still running, the whole group is killed. */
struct spawn_result spawn_and_wait(const struct spawn_request *request);

/* failrun is ending (failrun_stopping is set): kill every process spawn_and_wait started, with
   its group, and wait until their threads have reaped them (they then stop_here). False when
   some were still not reaped after timeout_ms. */
bool spawn_stop_all(int64_t timeout_ms);

/* Compose an environment: ours, with each extra "NAME=value" replacing any same NAME. */
char **environment_with(const char *const *extra);

#endif
