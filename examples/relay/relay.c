/*
 * relay.c — an example for `failrun kernel`: it moves a message through a socket pair and a pipe.
 * Its socketpair() error leg is right (report and exit 1); its pipe() error leg is not: it
 * reports the error and carries on with the pipe's ends unset, so the first write through it
 * crashes. Only a kernel allocation failing inside pipe() reaches that leg, which is why no
 * ordinary test finds it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char message[] = "hello through the relay\n";

int main(void)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) {
        perror("relay: socketpair");
        return 1;
    }
    if (write(pair[0], message, sizeof message - 1) != (ssize_t)(sizeof message - 1)) {
        perror("relay: write");
        return 1;
    }
    char buffer[64] = {0};
    ssize_t got = read(pair[1], buffer, sizeof buffer - 1);
    if (got <= 0) {
        perror("relay: read");
        return 1;
    }
    int ends[2] = {-1, -1};
    if (pipe(ends) < 0)
        perror("relay: pipe"); /* and carries on */
    FILE *out = fdopen(ends[1], "w");
    fputs(buffer, out); /* BUG(pipe-unchecked): out is NULL when pipe() failed */
    fclose(out);
    char echo[64] = {0};
    if (read(ends[0], echo, sizeof echo - 1) <= 0) {
        perror("relay: read");
        return 1;
    }
    fputs(echo, stdout);
    return 0;
}
