/*
 * workload.c — the program `failrun kernel` sweeps in the test VM (tests/kernel/guest-kernel.sh)
 * and on the host (tests/integration/test_kernel.sh): one pass over many of the kernel's
 * subsystems through ordinary libc calls — files and folders, pipes, unix and loopback inet
 * sockets, epoll, eventfd, timerfd, signalfd, inotify, memfd, mmap and mprotect, SysV shared
 * memory, semaphores and messages, POSIX message queues, a thread, fork, vfork, exec and
 * posix_spawn, a signal handler — about seventy different system calls, many of them made
 * inside libc (the openat inside fopen).
 *
 *   workload DIR     run every step in a fresh folder under DIR (DIR is created if missing;
 *                    the fresh folder is removed at the end, not after a failure)
 *   workload child HOW   what the children of fork and vfork execute: one line, exit 0
 *
 * Each step prints one line on success. A failed call is reported on standard error with its
 * step and errno, and the program exits 1 at once: an error leg that works, so every fault a
 * sweep injects ends as `handled` (or `absorbed` when the kernel hides it). The output holds no
 * pids, addresses or times, so a run is comparable with the baseline.
 */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/random.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *folder;

/* A failed call: say which, and stop (exit status 1). */
static void fail(const char *step, const char *call)
{
    fprintf(stderr, "workload: %s: %s: %s\n", step, call, strerror(errno));
    exit(1);
}

#define CHECK(step, condition, call)                                                              \
    do {                                                                                          \
        if (!(condition))                                                                         \
            fail(step, call);                                                                     \
    } while (0)

static char *path_in(const char *name)
{
    static char paths[4][512];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, sizeof paths[0], "%s/%s", folder, name);
    return path;
}

/* fopen, fputs, fclose, fopen, fgets: openat, write, read, close inside stdio. */
static void step_stdio(void)
{
    FILE *out = fopen(path_in("notes.txt"), "w");
    CHECK("stdio", out, "fopen");
    CHECK("stdio", fputs("first line\nsecond line\n", out) >= 0, "fputs");
    CHECK("stdio", fclose(out) == 0, "fclose");
    FILE *in = fopen(path_in("notes.txt"), "r");
    CHECK("stdio", in, "fopen");
    char line[64];
    int lines = 0;
    while (fgets(line, sizeof line, in))
        lines++;
    fclose(in);
    printf("stdio: %d lines\n", lines);
}

/* open, pwrite, pread, lseek, fsync, ftruncate, fstat, stat, rename, link, symlink, readlink,
   chmod, utimensat, access, mkdir, opendir/readdir, unlink, rmdir. */
static void step_files(void)
{
    int fd = open(path_in("data.bin"), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    CHECK("files", fd >= 0, "open");
    CHECK("files", pwrite(fd, "abcdefgh", 8, 0) == 8, "pwrite");
    char buffer[8];
    CHECK("files", pread(fd, buffer, 4, 4) == 4, "pread");
    CHECK("files", lseek(fd, 0, SEEK_END) == 8, "lseek");
    CHECK("files", fsync(fd) == 0, "fsync");
    CHECK("files", ftruncate(fd, 4) == 0, "ftruncate");
    struct stat st;
    CHECK("files", fstat(fd, &st) == 0 && st.st_size == 4, "fstat");
    close(fd);
    CHECK("files", mkdir(path_in("sub"), 0700) == 0, "mkdir");
    CHECK("files", rename(path_in("data.bin"), path_in("sub/moved.bin")) == 0, "rename");
    CHECK("files", link(path_in("sub/moved.bin"), path_in("hard.bin")) == 0, "link");
    CHECK("files", symlink("sub/moved.bin", path_in("soft.bin")) == 0, "symlink");
    char target[64] = {0};
    CHECK("files", readlink(path_in("soft.bin"), target, sizeof target - 1) > 0, "readlink");
    CHECK("files", chmod(path_in("hard.bin"), 0640) == 0, "chmod");
    CHECK("files", utimensat(AT_FDCWD, path_in("hard.bin"), NULL, 0) == 0, "utimensat");
    CHECK("files", access(path_in("hard.bin"), R_OK) == 0, "access");
    CHECK("files", stat(path_in("soft.bin"), &st) == 0, "stat");
    DIR *directory = opendir(folder);
    CHECK("files", directory, "opendir");
    int entries = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)))
        entries += entry->d_name[0] != '.';
    closedir(directory);
    CHECK("files", unlink(path_in("soft.bin")) == 0, "unlink");
    CHECK("files", unlink(path_in("hard.bin")) == 0, "unlink");
    CHECK("files", unlink(path_in("sub/moved.bin")) == 0, "unlink");
    CHECK("files", rmdir(path_in("sub")) == 0, "rmdir");
    printf("files: %d entries, link to %s\n", entries, target);
}

/* pipe2, dup, dup3, fcntl, write, read; epoll on the pipe. */
static void step_pipe_epoll(void)
{
    int ends[2];
    CHECK("pipe", pipe2(ends, O_CLOEXEC) == 0, "pipe2");
    int copy = dup(ends[1]);
    CHECK("pipe", copy >= 0, "dup");
    CHECK("pipe", dup3(copy, copy + 10, O_CLOEXEC) == copy + 10, "dup3");
    CHECK("pipe", fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0, "fcntl");
    CHECK("pipe", write(copy + 10, "ping", 4) == 4, "write");
    int poller = epoll_create1(EPOLL_CLOEXEC);
    CHECK("epoll", poller >= 0, "epoll_create1");
    struct epoll_event event = {.events = EPOLLIN, .data.fd = ends[0]};
    CHECK("epoll", epoll_ctl(poller, EPOLL_CTL_ADD, ends[0], &event) == 0, "epoll_ctl");
    struct epoll_event ready[2];
    int count = epoll_wait(poller, ready, 2, 1000);
    CHECK("epoll", count == 1, "epoll_wait");
    char buffer[8] = {0};
    CHECK("pipe", read(ends[0], buffer, sizeof buffer - 1) == 4, "read");
    close(poller);
    close(copy + 10);
    close(copy);
    close(ends[0]);
    close(ends[1]);
    printf("pipe: %s, epoll: %d ready\n", buffer, count);
}

/* socketpair with a descriptor passed over it (sendmsg/recvmsg, SCM_RIGHTS). */
static void step_socketpair(void)
{
    int pair[2];
    CHECK("socketpair", socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0, "socketpair");
    int passed = eventfd(5, EFD_CLOEXEC);
    CHECK("eventfd", passed >= 0, "eventfd");
    char byte = 'x';
    struct iovec vector = {&byte, 1};
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.space,
                             .msg_controllen = sizeof control.space};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &passed, sizeof passed);
    CHECK("socketpair", sendmsg(pair[0], &message, 0) == 1, "sendmsg");
    memset(&control, 0, sizeof control);
    message.msg_controllen = sizeof control.space;
    CHECK("socketpair", recvmsg(pair[1], &message, 0) == 1, "recvmsg");
    int received;
    memcpy(&received, CMSG_DATA(CMSG_FIRSTHDR(&message)), sizeof received);
    uint64_t value = 0;
    CHECK("eventfd", read(received, &value, sizeof value) == sizeof value, "read");
    close(received);
    close(passed);
    close(pair[0]);
    close(pair[1]);
    printf("socketpair: passed an eventfd holding %llu\n", (unsigned long long)value);
}

/* A listening socket, a client, accept4, send, recv, shutdown: unix or TCP on loopback. */
static void stream_exchange(const char *step, int domain, struct sockaddr *address,
                            socklen_t length)
{
    int server = socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(step, server >= 0, "socket");
    int yes = 1;
    CHECK(step, setsockopt(server, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes) == 0, "setsockopt");
    CHECK(step, bind(server, address, length) == 0, "bind");
    CHECK(step, listen(server, 4) == 0, "listen");
    CHECK(step, getsockname(server, address, &length) == 0, "getsockname");
    int client = socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(step, client >= 0, "socket");
    CHECK(step, connect(client, address, length) == 0, "connect");
    int accepted = accept4(server, NULL, NULL, SOCK_CLOEXEC);
    CHECK(step, accepted >= 0, "accept4");
    CHECK(step, send(client, "hello", 5, 0) == 5, "send");
    CHECK(step, shutdown(client, SHUT_WR) == 0, "shutdown");
    char buffer[8] = {0};
    CHECK(step, recv(accepted, buffer, sizeof buffer - 1, MSG_WAITALL) == 5, "recv");
    close(accepted);
    close(client);
    close(server);
    printf("%s: %s\n", step, buffer);
}

static void step_sockets(void)
{
    struct sockaddr_un local = {.sun_family = AF_UNIX};
    snprintf(local.sun_path, sizeof local.sun_path, "%s", path_in("socket"));
    stream_exchange("unix", AF_UNIX, (struct sockaddr *)&local, sizeof local);
    unlink(local.sun_path);
    struct sockaddr_in inet = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    stream_exchange("tcp", AF_INET, (struct sockaddr *)&inet, sizeof inet);
    /* UDP: a datagram to itself. */
    int datagram = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK("udp", datagram >= 0, "socket");
    struct sockaddr_in self = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof self;
    CHECK("udp", bind(datagram, (struct sockaddr *)&self, sizeof self) == 0, "bind");
    CHECK("udp", getsockname(datagram, (struct sockaddr *)&self, &length) == 0, "getsockname");
    CHECK("udp", sendto(datagram, "dgram", 5, 0, (struct sockaddr *)&self, length) == 5, "sendto");
    char buffer[8] = {0};
    CHECK("udp", recvfrom(datagram, buffer, sizeof buffer - 1, 0, NULL, NULL) == 5, "recvfrom");
    close(datagram);
    printf("udp: %s\n", buffer);
}

/* timerfd, signalfd (with SIGUSR1 blocked), inotify. */
static void step_event_files(void)
{
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    CHECK("timerfd", timer >= 0, "timerfd_create");
    struct itimerspec soon = {.it_value = {0, 1000000}};
    CHECK("timerfd", timerfd_settime(timer, 0, &soon, NULL) == 0, "timerfd_settime");
    uint64_t expirations = 0;
    CHECK("timerfd", read(timer, &expirations, sizeof expirations) == sizeof expirations, "read");
    close(timer);

    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    CHECK("signalfd", sigprocmask(SIG_BLOCK, &usr1, NULL) == 0, "sigprocmask");
    int signals = signalfd(-1, &usr1, SFD_CLOEXEC);
    CHECK("signalfd", signals >= 0, "signalfd");
    CHECK("signalfd", kill(getpid(), SIGUSR1) == 0, "kill");
    struct signalfd_siginfo info;
    CHECK("signalfd", read(signals, &info, sizeof info) == sizeof info, "read");
    close(signals);
    CHECK("signalfd", sigprocmask(SIG_UNBLOCK, &usr1, NULL) == 0, "sigprocmask");

    int watcher = inotify_init1(IN_CLOEXEC);
    CHECK("inotify", watcher >= 0, "inotify_init1");
    CHECK("inotify", inotify_add_watch(watcher, folder, IN_CREATE) >= 0, "inotify_add_watch");
    int created = open(path_in("watched"), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK("inotify", created >= 0, "open");
    close(created);
    char events[256] __attribute__((aligned(8)));
    CHECK("inotify", read(watcher, events, sizeof events) > 0, "read");
    close(watcher);
    unlink(path_in("watched"));
    printf("timerfd: %s, signalfd: signal %u, inotify: %s\n", expirations ? "expired" : "quiet",
           info.ssi_signo, ((struct inotify_event *)events)->name);
}

/* memfd_create, ftruncate, mmap shared and anonymous, mprotect, madvise, munmap. */
static void step_memory(void)
{
    int memory = memfd_create("workload", MFD_CLOEXEC);
    CHECK("memfd", memory >= 0, "memfd_create");
    CHECK("memfd", ftruncate(memory, 8192) == 0, "ftruncate");
    char *shared = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0);
    CHECK("memfd", shared != MAP_FAILED, "mmap");
    strcpy(shared + 4096, "in memfd");
    char *anonymous = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK("mmap", anonymous != MAP_FAILED, "mmap");
    memcpy(anonymous + 4096, shared + 4096, 9);
    CHECK("mmap", mprotect(anonymous, 4096, PROT_READ) == 0, "mprotect");
    CHECK("mmap", madvise(anonymous + 8192, 4096, MADV_DONTNEED) == 0, "madvise");
    printf("memfd: %s\n", anonymous + 4096);
    munmap(anonymous, 3 * 4096);
    munmap(shared, 8192);
    close(memory);
}

/* SysV shared memory, a semaphore and a message queue; a POSIX message queue. */
static void step_ipc(void)
{
    int segment = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    CHECK("sysv", segment >= 0, "shmget");
    char *attached = shmat(segment, NULL, 0);
    CHECK("sysv", attached != (void *)-1, "shmat");
    strcpy(attached, "shared");
    CHECK("sysv", shmdt(attached) == 0, "shmdt");
    CHECK("sysv", shmctl(segment, IPC_RMID, NULL) == 0, "shmctl");
    int semaphores = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
    CHECK("sysv", semaphores >= 0, "semget");
    struct sembuf up = {0, 1, 0};
    CHECK("sysv", semop(semaphores, &up, 1) == 0, "semop");
    CHECK("sysv", semctl(semaphores, 0, IPC_RMID) == 0, "semctl");
    int queue = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    CHECK("sysv", queue >= 0, "msgget");
    struct {
        long type;
        char text[16];
    } message = {1, "message"}, received;
    CHECK("sysv", msgsnd(queue, &message, sizeof message.text, 0) == 0, "msgsnd");
    CHECK("sysv", msgrcv(queue, &received, sizeof received.text, 1, 0) > 0, "msgrcv");
    CHECK("sysv", msgctl(queue, IPC_RMID, NULL) == 0, "msgctl");
    printf("sysv: %s\n", received.text);

    struct mq_attr attributes = {.mq_maxmsg = 4, .mq_msgsize = 32};
    char name[64];
    snprintf(name, sizeof name, "/libfail-workload-%d", (int)getpid()); /* runs in parallel */
    mqd_t posix = mq_open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0600, &attributes);
    CHECK("mqueue", posix != (mqd_t)-1, "mq_open");
    CHECK("mqueue", mq_send(posix, "posix", 6, 1) == 0, "mq_send");
    char text[32] = {0};
    CHECK("mqueue", mq_receive(posix, text, sizeof text, NULL) == 6, "mq_receive");
    mq_close(posix);
    CHECK("mqueue", mq_unlink(name) == 0, "mq_unlink");
    printf("mqueue: %s\n", text);
}

static int handler_pipe = -1;

static void on_usr2(int signo)
{
    (void)signo;
    char byte = 's';
    if (write(handler_pipe, &byte, 1) != 1)
        _exit(3);
}

/* A signal handler that makes a system call, and returns through rt_sigreturn. */
static void step_signal_handler(void)
{
    int ends[2];
    CHECK("handler", pipe2(ends, O_CLOEXEC) == 0, "pipe2");
    handler_pipe = ends[1];
    struct sigaction action = {.sa_handler = on_usr2};
    sigemptyset(&action.sa_mask);
    CHECK("handler", sigaction(SIGUSR2, &action, NULL) == 0, "sigaction");
    CHECK("handler", raise(SIGUSR2) == 0, "raise");
    char byte = 0;
    CHECK("handler", read(ends[0], &byte, 1) == 1, "read");
    close(ends[0]);
    close(ends[1]);
    printf("handler: wrote '%c'\n", byte);
}

static int thread_error;

static void *thread_main(void *argument)
{
    int *ends = argument;
    char random[8];
    struct timespec pause = {0, 1000000};
    if (getrandom(random, sizeof random, 0) != sizeof random || nanosleep(&pause, NULL) != 0 ||
        write(ends[1], "thread", 6) != 6)
        thread_error = errno;
    return NULL;
}

/* A thread (clone3) that makes calls of its own; joined (futex). */
static void step_thread(void)
{
    int ends[2];
    CHECK("thread", pipe2(ends, O_CLOEXEC) == 0, "pipe2");
    pthread_t thread;
    errno = pthread_create(&thread, NULL, thread_main, ends);
    CHECK("thread", errno == 0, "pthread_create");
    errno = pthread_join(thread, NULL);
    CHECK("thread", errno == 0, "pthread_join");
    errno = thread_error;
    CHECK("thread", errno == 0, "getrandom, nanosleep or write");
    char buffer[8] = {0};
    CHECK("thread", read(ends[0], buffer, 6) == 6, "read");
    close(ends[0]);
    close(ends[1]);
    printf("thread: %s\n", buffer);
}

/* This program again, as `workload child HOW`, from a child made by `how`. */
static void execute_self(const char *self, const char *how)
{
    char *arguments[] = {(char *)self, "child", (char *)how, NULL};
    execve(self, arguments, environ);
    _exit(127);
}

/* fork and vfork, each child executing this program again, and posix_spawn of /bin/true. */
static void step_processes(const char *self)
{
    int status;
    pid_t child = fork();
    CHECK("fork", child >= 0, "fork");
    if (child == 0)
        execute_self(self, "fork");
    CHECK("fork", waitpid(child, &status, 0) == child, "waitpid");
    CHECK("fork", WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child");

    child = vfork();
    CHECK("vfork", child >= 0, "vfork");
    if (child == 0)
        execute_self(self, "vfork");
    CHECK("vfork", waitpid(child, &status, 0) == child, "waitpid");
    CHECK("vfork", WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child");

    char *arguments[] = {"true", NULL};
    CHECK("spawn", (errno = posix_spawn(&child, "/bin/true", NULL, NULL, arguments, environ)) == 0,
          "posix_spawn");
    CHECK("spawn", waitpid(child, &status, 0) == child, "waitpid");
    printf("spawn: status %d\n", WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "child")) {
        printf("%s: the child ran\n", argv[2]);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: workload DIR | workload child HOW\n");
        return 2;
    }
    if (mkdir(argv[1], 0700) != 0 && errno != EEXIST)
        fail("start", "mkdir");
    /* A folder of its own: what a failed run left behind does not change the next one. */
    static char fresh[512];
    snprintf(fresh, sizeof fresh, "%s/run.XXXXXX", argv[1]);
    folder = mkdtemp(fresh);
    if (!folder)
        fail("start", "mkdtemp");
    setvbuf(stdout, NULL, _IOLBF, 0);
    step_stdio();
    step_files();
    step_pipe_epoll();
    step_socketpair();
    step_sockets();
    step_event_files();
    step_memory();
    step_ipc();
    step_signal_handler();
    step_thread();
    step_processes(argv[0]);
    unlink(path_in("notes.txt"));
    rmdir(folder);
    printf("done\n");
    return 0;
}
