/*
 * daemon.c — a fixture that daemonises as test servers do (tests/integration/test_leftovers.sh):
 * it forks, the child calls setsid and forks again, and the grandchild appends its pid to PIDLOG
 * and waits until killed, its standard streams on /dev/null; the first process exits 0 once the
 * pid is written. The daemon is in no process group of its starter and, once the child exits,
 * has no parent of the suite's.
 * usage: daemon PIDLOG
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: daemon PIDLOG\n", stderr);
        return 2;
    }
    int ready[2];
    if (pipe(ready) != 0)
        return 1;
    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        setsid();
        if (fork() != 0)
            _exit(0);
        FILE *log = fopen(argv[1], "a");
        if (!log)
            _exit(1);
        fprintf(log, "%d\n", (int)getpid());
        fclose(log);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        close(ready[0]);
        close(ready[1]);
        for (;;)
            pause();
    }
    close(ready[1]);
    char c;
    int status = read(ready[0], &c, 1) == 1 ? 0 : 1;
    waitpid(child, NULL, 0);
    return status;
}
