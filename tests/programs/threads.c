/* threads.c — four threads allocating and freeing while the main thread forks a child that
   allocates, then waits. Under the preload this must neither hang nor crash, and the child's own
   allocation site must be recorded. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 4
#define ROUNDS 100000

static void *worker(void *argument)
{
    unsigned seed = (unsigned)(size_t)argument;
    void *held[16] = {0};
    for (int i = 0; i < ROUNDS; i++) {
        int slot = (int)(rand_r(&seed) % 16);
        free(held[slot]);
        held[slot] = malloc(1 + rand_r(&seed) % 4096);
    }
    for (int i = 0; i < 16; i++)
        free(held[i]);
    return NULL;
}

static int child_work(void)
{
    char *p = malloc(256); /* the child's own site */
    if (!p)
        return 7;
    free(p);
    return 0;
}

int main(void)
{
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&threads[i], NULL, worker, (void *)(size_t)(i + 1)) != 0)
            return 1;
    for (int round = 0; round < 20; round++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(child_work());
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status))
            return 2;
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    puts("threads: done");
    return 0;
}
