/*
 * fixture_client.c — the program under test of tests/integration/test_fixtures.sh: it asks the
 * server on SOCKET to echo a line it builds in a block of its own, and prints the answer, read
 * into a block taken once connected (a fork child there would share the connection).
 * usage: fixture_client SOCKET
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: fixture_client SOCKET\n", stderr);
        return 2;
    }
    char *question = strdup("hello fixture\n");
    if (!question) {
        fputs("fixture_client: out of memory\n", stderr);
        return 1;
    }
    int connection = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof address.sun_path, "%s", argv[1]);
    if (connection < 0 || connect(connection, (struct sockaddr *)&address, sizeof address) != 0 ||
        write(connection, question, strlen(question)) < 0) {
        perror("fixture_client");
        free(question);
        return 1;
    }
    free(question);
    char *answer = malloc(256);
    if (!answer) {
        fputs("fixture_client: out of memory\n", stderr);
        close(connection);
        return 1;
    }
    ssize_t n = read(connection, answer, 255);
    close(connection);
    if (n <= 0) {
        fputs("fixture_client: no answer\n", stderr);
        free(answer);
        return 1;
    }
    answer[n] = '\0';
    fputs(answer, stdout);
    free(answer);
    return 0;
}
