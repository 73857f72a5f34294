/*
 * fixture_server.c — a test server as suites start them (tests/integration/test_fixtures.sh):
 * it listens on a Unix socket, answers each connection's line with "echo: LINE" built in a
 * block of its own, and serves until it is killed; with "once" it serves one connection and
 * exits 0 by itself, as a test of a network library that talks to itself does. The socket is
 * bound under a name of its own and renamed to SOCKET once listening, so that a harness that
 * waits for SOCKET to exist never connects between bind and listen (ECONNREFUSED). A client
 * that hangs up before its answer does not end the server (SIGPIPE is ignored, as servers do);
 * the line "stop" does (exit 0). With "log FILE" it appends each line it is asked to echo to
 * FILE, as a test server keeps the requests it served for its harness to check.
 * usage: fixture_server SOCKET [once | log FILE]
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char *log_path;

/* False when the line asked the server to stop. */
static bool answer(int connection)
{
    char line[256];
    ssize_t n = read(connection, line, sizeof line - 1);
    if (n <= 0)
        return true;
    line[n] = '\0';
    if (!strcmp(line, "stop\n"))
        return false;
    FILE *log = log_path ? fopen(log_path, "a") : NULL;
    if (log) {
        fputs(line, log);
        fclose(log);
    }
    char *reply = malloc((size_t)n + 8);
    if (!reply)
        return true;
    snprintf(reply, (size_t)n + 8, "echo: %s", line);
    if (write(connection, reply, strlen(reply)) < 0 && errno != EPIPE)
        perror("write");
    free(reply);
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (argc > 2 && !strcmp(argv[2], "log") && argc != 4)) {
        fputs("usage: fixture_server SOCKET [once | log FILE]\n", stderr);
        return 2;
    }
    if (argc == 4)
        log_path = argv[3];
    int server = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof address.sun_path, "%s.bind", argv[1]);
    unlink(address.sun_path);
    unlink(argv[1]);
    if (server < 0 || bind(server, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(server, 8) != 0 || rename(address.sun_path, argv[1]) != 0) {
        perror("fixture_server");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    bool once = argc > 2 && !strcmp(argv[2], "once");
    for (;;) {
        int connection = accept(server, NULL, NULL);
        if (connection < 0)
            continue;
        bool more = answer(connection);
        close(connection);
        if (once || !more)
            break;
    }
    close(server);
    unlink(argv[1]);
    return 0;
}
