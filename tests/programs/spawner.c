/* spawner.c — starts programs the ways a test harness does, through posix_spawn and exec, for
   tests/integration/test_preload_chain.sh:
     spawner fail           an exec and a spawn of a missing program: -1 and ENOENT, and ENOENT
     spawner other SO PROG  posix_spawn PROG with LD_PRELOAD replaced by SO
     spawner clear PROG     posix_spawnp PROG (a name looked up in PATH) without LD_PRELOAD */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* environ without LD_PRELOAD, plus `extra` when not NULL. */
static char **environment_with(char *extra)
{
    size_t count = 0;
    while (environ[count])
        count++;
    char **copy = calloc(count + 2, sizeof *copy);
    size_t used = 0;
    for (size_t i = 0; copy && i < count; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11))
            copy[used++] = environ[i];
    if (copy && extra)
        copy[used++] = extra;
    return copy;
}

static int spawn_and_wait(int search, const char *program, char **environment)
{
    char *argv[] = {(char *)program, NULL};
    pid_t pid;
    int error = search ? posix_spawnp(&pid, program, NULL, NULL, argv, environment)
                       : posix_spawn(&pid, program, NULL, NULL, argv, environment);
    int status = 0;
    if (error) {
        fprintf(stderr, "spawner: %s: %s\n", program, strerror(error));
        return 1;
    }
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "fail")) {
        char *args[] = {"missing", NULL}, *empty[] = {NULL};
        errno = 0;
        int result = execve("/nonexistent/missing", args, empty);
        printf("execve: %d %s\n", result, errno == ENOENT ? "ENOENT" : strerror(errno));
        pid_t pid;
        errno = 0;
        int error = posix_spawn(&pid, "/nonexistent/missing", NULL, NULL, args, empty);
        printf("posix_spawn: %s, errno %d\n", error == ENOENT ? "ENOENT" : strerror(error), errno);
        return 0;
    }
    if (!strcmp(mode, "other") && argc == 4) {
        char *entry = malloc(strlen(argv[2]) + 12);
        if (!entry)
            return 1;
        sprintf(entry, "LD_PRELOAD=%s", argv[2]);
        return spawn_and_wait(0, argv[3], environment_with(entry));
    }
    if (!strcmp(mode, "clear") && argc == 3)
        return spawn_and_wait(1, argv[2], environment_with(NULL));
    fputs("usage: spawner fail | other SO PROG | clear PROG\n", stderr);
    return 2;
}
