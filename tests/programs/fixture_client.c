/*
 * fixture_client.c — the program under test of tests/integration/test_fixtures.sh: it asks the
 * server on SOCKET to echo a line it builds in a block of its own, and prints the answer, read
 * into a block taken once connected (a fork child there would share the connection). With
 * "stop-on-error", the error leg of that last block also tells the server to stop, as a client
 * that shuts its fixture down on failure does: the server is then gone for whoever comes next.
 * With "test N" (1 to 3) the line is built at a call of its own for each N, as each test of a
 * suite reaches sites of its own. With "pid" it also prints its process id: output that differs
 * from run to run. With "stdin" the line is read from standard input. With "leg" the error leg
 * of the answer's block words its message in a block of its own: a site reached only after a
 * failure. With "lock" the error leg of the answer's block leaves fixture_client.lock behind in
 * the working folder (a stale lock, as a program that forgets to clean up on failure does), and
 * a run that finds it there, once it printed its answer, fails. With "fds" it first prints the
 * descriptor its first open gets: a run forked at its start must find the program's own. With
 * "hang" the error leg of the answer's block waits for ever (a client that waits for a reply it
 * can no longer take); with "hang-once" only where it makes fixture_client.hung in the working
 * folder (the first time: a hang that a second try does not meet). With "overlap" it first holds
 * fixture_client.busy in the working folder for 50 ms, and appends a line to
 * fixture_client.overlap when another run holds it: two runs at once. With FIXTURE_CLIENT_WHERE
 * set to a file, every run first appends to it whether valgrind runs it ("valgrind", its
 * preload in LD_PRELOAD, or "native") and its LIBFAIL_DIR (a fork run's own or a child's).
 * With FIXTURE_CLIENT_STATUS set to N, a run that printed its answer ends with status N.
 * usage: fixture_client SOCKET [stop-on-error | test N | pid | stdin | leg | lock | fds | hang |
 *                               hang-once | overlap]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* A connection to the server with `line` sent on it; -1 (said on stderr) when it fails. */
static int say(const char *socket_path, const char *line)
{
    int connection = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof address.sun_path, "%s", socket_path);
    if (connection < 0 || connect(connection, (struct sockaddr *)&address, sizeof address) != 0 ||
        write(connection, line, strlen(line)) < 0) {
        perror("fixture_client");
        if (connection >= 0)
            close(connection);
        return -1;
    }
    return connection;
}

/* The line to send, made at a call of its own for each test. */
static char *question_for(int test)
{
    switch (test) {
    case 2:
        return strdup("hello fixture\n");
    case 3:
        return strdup("hello fixture\n");
    default:
        return strdup("hello fixture\n");
    }
}

int main(int argc, char **argv)
{
    bool stop_on_error = argc == 3 && !strcmp(argv[2], "stop-on-error");
    int test = argc == 4 && !strcmp(argv[2], "test") ? atoi(argv[3]) : 0;
    bool print_pid = argc == 3 && !strcmp(argv[2], "pid");
    bool from_input = argc == 3 && !strcmp(argv[2], "stdin");
    bool worded_leg = argc == 3 && !strcmp(argv[2], "leg");
    bool stale_lock = argc == 3 && !strcmp(argv[2], "lock");
    bool first_fd = argc == 3 && !strcmp(argv[2], "fds");
    bool hang = argc == 3 && !strcmp(argv[2], "hang");
    bool hang_once = argc == 3 && !strcmp(argv[2], "hang-once");
    bool overlap = argc == 3 && !strcmp(argv[2], "overlap");
    if (argc != 2 && !stop_on_error && !(test >= 1 && test <= 3) && !print_pid && !from_input &&
        !worded_leg && !stale_lock && !first_fd && !hang && !hang_once && !overlap) {
        fputs("usage: fixture_client SOCKET [stop-on-error | test N | pid | stdin | leg | lock | "
              "fds | hang | hang-once | overlap]\n",
              stderr);
        return 2;
    }
    const char *where = getenv("FIXTURE_CLIENT_WHERE");
    if (where) {
        const char *preload = getenv("LD_PRELOAD"), *dir = getenv("LIBFAIL_DIR");
        char line[4200];
        int length = snprintf(line, sizeof line, "%s %s\n",
                              preload && strstr(preload, "vgpreload") ? "valgrind" : "native",
                              dir ? dir : "-");
        int log = open(where, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (log < 0 || length < 0 || write(log, line, (size_t)length) != length)
            perror("fixture_client");
        if (log >= 0)
            close(log);
    }
    if (overlap) {
        int busy = open("fixture_client.busy", O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (busy < 0) {
            int log = open("fixture_client.overlap", O_WRONLY | O_CREAT | O_APPEND, 0644);
            if (log >= 0 && write(log, "overlap\n", 8) < 0)
                perror("fixture_client");
            if (log >= 0)
                close(log);
        }
        usleep(50000);
        if (busy >= 0) {
            close(busy);
            unlink("fixture_client.busy");
        }
    }
    if (first_fd) {
        int fd = open("/dev/null", O_RDONLY);
        printf("first descriptor %d\n", fd);
        if (fd >= 0)
            close(fd);
    }
    if (print_pid)
        printf("pid %ld\n", (long)getpid());
    char *question = from_input ? malloc(128) : question_for(test);
    if (question && from_input && !fgets(question, 128, stdin)) {
        fputs("fixture_client: no line on standard input\n", stderr);
        free(question);
        return 1;
    }
    if (!question) {
        fputs("fixture_client: out of memory\n", stderr);
        return 1;
    }
    int connection = say(argv[1], question);
    free(question);
    if (connection < 0)
        return 1;
    char *answer = malloc(256);
    if (!answer && hang_once) {
        int made = open("fixture_client.hung", O_WRONLY | O_CREAT | O_EXCL, 0644);
        hang = made >= 0;
        if (made >= 0)
            close(made);
    }
    while (!answer && hang)
        pause();
    if (!answer && stale_lock) {
        FILE *lock = fopen("fixture_client.lock", "w");
        if (lock)
            fclose(lock);
    }
    if (!answer && worded_leg) {
        char *message = strdup("fixture_client: no room for the answer\n");
        fputs(message ? message : "fixture_client: out of memory\n", stderr);
        free(message);
        close(connection);
        return 1;
    }
    if (!answer) {
        fputs("fixture_client: out of memory\n", stderr);
        close(connection);
        if (stop_on_error) {
            int stop = say(argv[1], "stop\n");
            if (stop >= 0)
                close(stop);
        }
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
    if (stale_lock && access("fixture_client.lock", F_OK) == 0) {
        fputs("fixture_client: fixture_client.lock is there: another run holds it\n", stderr);
        return 1;
    }
    const char *status = getenv("FIXTURE_CLIENT_STATUS");
    return status ? atoi(status) : 0;
}
