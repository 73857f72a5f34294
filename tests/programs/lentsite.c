/*
 * lentsite.c — a program that starts itself again (tests/integration/test_every_start.sh): the
 * first process (the command's own) and its child reach the same allocation site, and the child
 * cannot run alone (it needs the flag file its parent made). The site's run is the whole
 * command's, lent to the child's start: it must stay a run, not be taken for one --every-start
 * added (a review found such runs deleted).
 *
 * usage: lentsite [child]
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *copy(const char *text)
{
    char *out = malloc(strlen(text) + 1);
    if (out)
        strcpy(out, text);
    return out;
}

int main(int argc, char **argv)
{
    char *word = copy("word"); /* both processes: one site */
    if (!word)
        return 1;
    free(word);
    if (argc > 1) {
        char *own = copy("child only");
        if (!own)
            return 1;
        free(own);
        return access("lentsite.flag", F_OK) == 0 ? 0 : 3;
    }
    int fd = open("lentsite.flag", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    unlink("lentsite.flag");
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
