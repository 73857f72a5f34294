/* robust.c — stress for the preload (tests/integration/test_robust.sh). Modes:
 *   threads N   8 threads, N allocations each of random sizes, blocks freed by other threads
 *   forks N     N forks while 3 threads allocate; each child allocates, then execs true
 *   chain K     execve itself K times (a chain of images in one pid), then posix_spawn and vfork
 *   signals N   a timer signal handler that allocates, interrupting a main loop that allocates
 *               N times; it allocates only between the loop's calls (inside glibc's malloc it
 *               would be undefined behaviour, which crashed 1 run in 8 even without the preload)
 * Prints one line of figures and exits 0 when everything completed. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define SLOTS 4096
static _Atomic(void *) shared[SLOTS];
static long rounds;
static atomic_bool stop;

static void *churn(void *argument)
{
    unsigned seed = (unsigned)(size_t)argument;
    for (long i = 0; i < rounds; i++) {
        void *block = malloc(1 + rand_r(&seed) % 2048);
        if (block)
            *(char *)block = 1;
        /* Swap it into a shared slot: whatever was there, another thread's block, is freed here. */
        free(atomic_exchange(&shared[rand_r(&seed) % SLOTS], block));
    }
    return NULL;
}

static int threads(long count)
{
    pthread_t workers[8];
    rounds = count;
    for (int i = 0; i < 8; i++)
        if (pthread_create(&workers[i], NULL, churn, (void *)(size_t)(i + 1)) != 0)
            return 1;
    for (int i = 0; i < 8; i++)
        pthread_join(workers[i], NULL);
    for (int i = 0; i < SLOTS; i++)
        free(atomic_exchange(&shared[i], NULL));
    printf("threads: %ld allocations\n", 8 * count);
    return 0;
}

static void *churn_until_stopped(void *argument)
{
    unsigned seed = (unsigned)(size_t)argument;
    while (!atomic_load(&stop))
        free(atomic_exchange(&shared[rand_r(&seed) % SLOTS], malloc(1 + rand_r(&seed) % 512)));
    return NULL;
}

static int forks(long count)
{
    pthread_t workers[3];
    for (int i = 0; i < 3; i++)
        if (pthread_create(&workers[i], NULL, churn_until_stopped, (void *)(size_t)(i + 7)) != 0)
            return 1;
    long done = 0;
    for (long i = 0; i < count; i++) {
        pid_t pid = fork();
        if (pid < 0)
            return 2;
        if (pid == 0) {
            char *note = malloc(64); /* the child allocates before exec */
            if (note)
                snprintf(note, 64, "child %ld", i);
            execl("/bin/true", "true", (char *)NULL);
            _exit(127);
        }
        int status;
        if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
            done++;
    }
    atomic_store(&stop, true);
    for (int i = 0; i < 3; i++)
        pthread_join(workers[i], NULL);
    printf("forks: %ld of %ld children exec'd and exited 0\n", done, count);
    return done == count ? 0 : 3;
}

static int chain(const char *self, int depth)
{
    char *block = malloc(32); /* every image allocates */
    free(block);
    if (depth > 0) {
        char next[16];
        snprintf(next, sizeof next, "%d", depth - 1);
        execl(self, self, "chain", next, (char *)NULL);
        return 4;
    }
    pid_t pid;
    char *argv[] = {"true", NULL};
    if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) != 0)
        return 5;
    int status;
    waitpid(pid, &status, 0);
    pid_t child = vfork();
    if (child == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    waitpid(child, &status, 0);
    puts("chain: 3 execs, posix_spawn and vfork done");
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 6;
}

static atomic_long handled;
static volatile sig_atomic_t in_allocator;

static void on_timer(int signo)
{
    (void)signo;
    if (in_allocator)
        return;
    free(malloc(24));
    atomic_fetch_add(&handled, 1);
}

static int signals(long count)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_timer;
    sigaction(SIGALRM, &action, NULL);
    struct itimerval timer = {{0, 200}, {0, 200}};
    setitimer(ITIMER_REAL, &timer, NULL);
    for (long i = 0; i < count; i++) {
        in_allocator = 1;
        free(malloc(1 + (size_t)(i % 300)));
        in_allocator = 0;
        for (volatile int spin = 0; spin < 20; spin++) /* time outside the allocator too */
            ;
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("signals: %ld allocations, %ld handler calls\n", count, atomic_load(&handled));
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long count = argc > 2 ? atol(argv[2]) : 0;
    if (!strcmp(mode, "threads"))
        return threads(count);
    if (!strcmp(mode, "forks"))
        return forks(count);
    if (!strcmp(mode, "chain"))
        return chain(argv[0], (int)count);
    if (!strcmp(mode, "signals"))
        return signals(count);
    fputs("usage: robust threads|forks|chain|signals N\n", stderr);
    return 2;
}
