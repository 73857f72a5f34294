/*
 * forkstart.c — PLAN_START inside the target: the fault runs of a program forked at its start.
 *
 * failrun writes, for each program started inside the command whose sites are failed this way,
 * ROOT/starts/HASH-N (HASH: its command line's hash as RECORD_START gives it; N from 0: several
 * programs can share a command line): its executable's path, its working folder, and then one
 * line per site, "SIGNATURE PLAN" (the plan of the site's run), after one "+SIGNATURE SIZE" line
 * per site the program reached in the baseline (its children then record only new sites). A
 * working folder inside the baseline's run folder is written "@/REST": the same folder inside
 * this run's. The third line is "restore=R own-time=T", then maybe "rounds=PID" and
 * "one-at-a-time=1": with R 1 the working folder is put back after the children
 * (forkrestore.c); with T 1 the fault children's time is bounded by the unfailed child's (the
 * plan's timeout otherwise: the user's --timeout); with rounds, failrun (process PID) judges the
 * children while the start waits and gives it more (fork_at_start); one at a time, its
 * children never run two at once. The first process
 * that starts as that program takes the file (renames it to HASH-N.taken) and forks before
 * main: a child that runs unfailed in ROOT/start-HASH-N (failrun compares it with the program
 * alone), then one child per site in ROOT/SIGNATURE running with the site's plan; then it goes
 * on unfailed.
 *
 * The start's input is read out first when it is a pipe its writer closed (spool_input), and the
 * start forks two more unfailed children, one before and one after the sites', to tell an
 * unstable start from children that changed what the program depends on.
 */
#include "forkmode.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h> /* kill(pid, 0): whether failrun still runs */
#include <stdio.h> /* rename(2) only: no stdio stream is used */
#include <stdlib.h> /* getenv, unsetenv: neither allocates */
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define START_FILES_MAX 64
#define START_ROUNDS_MAX 8            /* a site and chains up to the plan's faults, and a retry */
#define START_ROUND_WAIT_NS 120000000000ull /* failrun judges a round in far less */

struct line_reader {
    int fd;
    size_t start, end;
    size_t lines; /* the site lines read (fork_lines) */
    char buffer[8192];
};

/* The next line into `out` (NUL instead of the newline); false at the end of the file. A line
   longer than `size` is skipped. */
static bool LF_TEXT read_line(struct line_reader *reader, char *out, size_t size)
{
    size_t length = 0;
    bool too_long = false;
    for (;;) {
        if (reader->start == reader->end) {
            ssize_t got = read(reader->fd, reader->buffer, sizeof reader->buffer);
            if (got <= 0)
                return false;
            reader->start = 0;
            reader->end = (size_t)got;
        }
        char c = reader->buffer[reader->start++];
        if (c == '\n') {
            if (!too_long) {
                out[length] = '\0';
                return true;
            }
            length = 0;
            too_long = false;
            continue;
        }
        if (length + 1 < size)
            out[length++] = c;
        else
            too_long = true;
    }
}

/* Standard input that is a pipe, at a start, when its writer has closed it (the harness piped
   the test's input in: `printf ... | prog`): every byte is in the pipe, and is read out once into
   ROOT/CONTROL.stdin, which becomes the program's standard input, and each child's through a
   description of its own (reopen_input). Whether the writer closed it is seen without reading
   (POLLHUP), for up to SPOOL_WAIT_MS: a pipe still open (an interactive peer, a launcher's idle
   stdin), or one the parent holds too (parent_shares_pipe), is left alone, unread, and the
   start forks no children. */
#define SPOOL_WAIT_MS 300

/* Whether the process that started this one holds the pipe on standard input too (a shell's
   `while read` loop that starts the program for each line, `{ prog; cat; }`): its bytes are
   then not all this program's, and reading them out would take them from the others. Also true
   when that cannot be told. */
static bool LF_TEXT parent_shares_pipe(const struct stat *input)
{
    char path[48];
    size_t n = fork_append(path, 0, "/proc/");
    n += format_decimal(path + n, (uint64_t)getppid());
    fork_append(path, n, "/fd");
    static struct fork_dir folder;
    if (!fork_dir_open(&folder, AT_FDCWD, path))
        return true;
    bool shared = false;
    for (const char *name; !shared && (name = fork_dir_next(&folder, NULL));) {
        struct stat held;
        shared = name[0] != '.' && fstatat(folder.fd, name, &held, 0) == 0 &&
                 held.st_dev == input->st_dev && held.st_ino == input->st_ino;
    }
    fork_dir_close(&folder);
    return shared;
}

static void LF_TEXT spool_input(const char *control)
{
    struct stat input;
    if (fstat(0, &input) != 0 || !S_ISFIFO(input.st_mode))
        return;
    bool closed = false;
    for (int waited = 0; !closed && waited <= SPOOL_WAIT_MS; waited += 2) {
        struct pollfd peek = {.fd = 0, .events = POLLIN};
        if (poll(&peek, 1, 0) == 1 && (peek.revents & POLLHUP))
            closed = true;
        else if (waited < SPOOL_WAIT_MS)
            nanosleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
    }
    if (!closed || parent_shares_pipe(&input))
        return;
    char path[PATH_MAX];
    size_t n = fork_append(path, 0, fork_state.root);
    n = fork_append(path, n, "/");
    n = fork_append(path, n, control);
    fork_append(path, n, ".stdin");
    int file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (file < 0)
        return;
    /* Once a byte is read it is the program's only through the file: a file that could not be
       written whole (a full disk) is still given, as the most of its input there is. */
    static char buffer[1 << 16];
    bool more = true;
    while (more) {
        ssize_t got = read(0, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == EAGAIN) { /* a non-blocking pipe: its last bytes are there */
            struct pollfd wait = {.fd = 0, .events = POLLIN};
            poll(&wait, 1, 1000);
            continue;
        }
        more = got > 0;
        for (ssize_t done = 0; more && done < got;) {
            ssize_t put = write(file, buffer + done, (size_t)(got - done));
            if (put < 0 && errno == EINTR)
                continue;
            more = put > 0;
            done += put > 0 ? put : 0;
        }
    }
    close(file);
    int spooled = open(path, O_RDONLY | O_CLOEXEC);
    if (spooled < 0)
        return;
    dup2(spooled, 0); /* without close-on-exec, as standard input is */
    close(spooled);
}

/* Under valgrind, one fork of the guest (fork_exec_zygote) becomes a native image of the
   program that forks this start's children, natively: ROOT/CONTROL-z is its folder, where its
   own records and output go. The guest waits for it. Then either
   - the zygote ran the program itself, natively, once its children were done (it made
     ROOT/CONTROL-z/main first: fork_zygote_become_program): ZYGOTE_RAN_MAIN, `status` how it
     ended, and the guest ends so too;
   - or it ended before main: ZYGOTE_BEFORE_MAIN, and the guest goes on as the program;
   - or it could not fork them all: ZYGOTE_NONE, and the guest forks what is left itself (each
     child's folder is claimed once: none runs twice).
   Never for a set-user-ID or set-group-ID program: its native exec would be a secure one,
   without our preload, and would run main. */
enum zygote_end { ZYGOTE_NONE, ZYGOTE_BEFORE_MAIN, ZYGOTE_RAN_MAIN };

static enum zygote_end LF_TEXT start_zygote(const char *control, const char *exe,
                                            const char *run_dir, int *status)
{
    static char variable[PATH_MAX + 64];
    char name[48], dir[PATH_MAX];
    struct stat program;
    if (stat(exe, &program) != 0 || (program.st_mode & (S_ISUID | S_ISGID)))
        return ZYGOTE_NONE;
    fork_append(name, fork_append(name, 0, control), "-z");
    fork_folder_path(dir, name);
    size_t n = fork_append(variable, 0, "LIBFAIL_START_ZYGOTE=");
    n = fork_append(variable, n, control);
    if (run_dir[0] != '/' || n + strlen(run_dir) + 2 > sizeof variable || mkdir(dir, 0755) != 0)
        return ZYGOTE_NONE;
    fork_append(variable, n, run_dir);
    pid_t parent = getpid();
    long child = syscall(SYS_clone, 0ul, NULL, NULL, NULL, 0ul);
    if (child < 0)
        return ZYGOTE_NONE;
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            syscall(SYS_exit_group, FORK_ZYGOTE_UNSTARTED);
        /* CONTROL! when the harness's output is kept for the program's own run */
        if (fork_keep_output())
            fork_append(variable, fork_append(variable, n, "!"), run_dir);
        fork_exec_zygote(exe, variable, dir);
        syscall(SYS_exit_group, FORK_ZYGOTE_UNSTARTED);
    }
    pid_t done;
    while ((done = waitpid((pid_t)child, status, __WALL)) < 0 && errno == EINTR)
        ;
    if (done != (pid_t)child)
        return ZYGOTE_NONE;
    char marker[PATH_MAX];
    fork_append(marker, fork_append(marker, 0, dir), "/main");
    if (access(marker, F_OK) == 0)
        return ZYGOTE_RAN_MAIN;
    return WIFEXITED(*status) && WEXITSTATUS(*status) == 0 ? ZYGOTE_BEFORE_MAIN : ZYGOTE_NONE;
}

/* The guest of a start whose zygote ran the program: it ends as that run did, its status or
   its signal, without running main. */
static void LF_TEXT end_as(int status)
{
    if (WIFSIGNALED(status)) {
        int number = WTERMSIG(status);
        struct sigaction plain = {.sa_handler = SIG_DFL};
        sigaction(number, &plain, NULL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, number);
        sigprocmask(SIG_UNBLOCK, &only, NULL);
        kill(getpid(), number);
        syscall(SYS_exit_group, 128 + number);
    }
    syscall(SYS_exit_group, WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* Forks a child for each "SITE PLAN" line left in `reader` ("+SITE SIZE" lines note a site the
   baseline reached here); counts the lines in reader->lines. True in a child. */
static bool LF_TEXT fork_lines(struct line_reader *reader, struct fork_point *point,
                               const char *exe, const struct start_sites *sites, const char *why)
{
    static char line[PATH_MAX + 512];
    while (read_line(reader, line, sizeof line)) {
        uint64_t signature, size;
        size_t length = strlen(line);
        if (line[0] == '+') {
            /* "+SITE SIZE", before the sites' lines: a site the baseline reached here ("*":
               of any size). */
            if (length > 18 && line[17] == ' ' && parse_hex(line + 1, 16, &signature) &&
                (!strcmp(line + 18, "*") ? (size = UINT64_MAX, true)
                                         : parse_decimal(line + 18, length - 18, &size)))
                sites->known(signature, size);
            continue;
        }
        if (length < 18 || line[16] != ' ' || !parse_hex(line, 16, &signature))
            continue;
        reader->lines++;
        if (why || sites->reached(signature)) {
            /* Reached before main (a constructor's): the child could not fail its first call. */
            fork_note_refusal(signature, why ? why : "early");
            continue;
        }
        char name[24], dir[PATH_MAX];
        fork_site_name(name, signature);
        fork_folder_path(dir, name);
        if (mkdir(dir, 0755) != 0)
            continue; /* answered already */
        if (fork_child(name, point)) {
            fork_exec_natively(exe, line + 17);
            runtime_replan(line + 17);
            testcase_at_fault = true;
            return true;
        }
    }
    return false;
}

/* ROOT/starts/NAME plus `suffix` and `round` (control is "start-NAME"). */
static void LF_TEXT round_path(char *out, const char *control, const char *suffix, unsigned round)
{
    size_t n = fork_append(out, fork_append(out, 0, fork_state.root), "/starts/");
    n = fork_append(out, fork_append(out, n, control + 6), suffix);
    out[n + format_decimal(out + n, round)] = '\0';
}

/* Says round `round` is done (ROOT/starts/NAME.waitROUND) and waits for failrun's next one,
   ROOT/starts/NAME.roundROUND+1 (written whole, then renamed there), into `next`. False when
   failrun (process `failrun`) is gone or gave none in START_ROUND_WAIT_NS: the start goes on
   without. */
static bool LF_TEXT next_round(struct line_reader *next, const char *control, unsigned round,
                               pid_t failrun)
{
    char path[PATH_MAX];
    round_path(path, control, ".wait", round);
    int done = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (done < 0)
        return false;
    close(done);
    round_path(path, control, ".round", round + 1);
    for (uint64_t waited = 0; waited < START_ROUND_WAIT_NS;) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            int high = fcntl(fd, F_DUPFD_CLOEXEC, FORK_FD_FLOOR); /* as the start file's */
            if (high >= 0) {
                close(fd);
                fd = high;
            }
            next->fd = fd;
            next->start = next->end = next->lines = 0;
            return true;
        }
        if (kill(failrun, 0) != 0 && errno == ESRCH)
            return false;
        /* 1 ms steps at first (a round is judged in milliseconds), then 10 ms */
        uint64_t step = waited < 200000000ull ? 1000000ull : 10000000ull;
        struct timespec pause = {0, (long)step};
        nanosleep(&pause, NULL);
        waited += step;
    }
    return false;
}

/* "rounds=PID" in a start file's third line: failrun (process PID) gives rounds after the
   first (fork_at_start); 0 when it gives none. */
static pid_t LF_TEXT rounds_of(const char *header)
{
    const char *at = strstr(header, "rounds=");
    if (!at)
        return 0;
    at += 7;
    size_t length = strspn(at, "0123456789");
    uint64_t pid = 0;
    return length && parse_decimal(at, length, &pid) && pid > 1 && pid < INT32_MAX ? (pid_t)pid
                                                                                  : 0;
}

/* Fork the start's children from the lines left in `reader`. True in a child. */
static bool LF_TEXT fork_at_start(struct line_reader *reader, const char *control,
                                  const char *exe, const struct start_sites *sites, bool restore,
                                  const char *header, const char *run_dir)
{
    bool own_time = strstr(header, "own-time=1") != NULL;
    pid_t failrun = rounds_of(header);
    /* "one-at-a-time=1": its children never run two at once, whatever the plan's jobs (a
       program inside the command: they share the suite's live fixtures and files). */
    unsigned jobs = fork_state.jobs;
    if (strstr(header, "one-at-a-time=1"))
        fork_state.jobs = 1;
    struct fork_point point = {.parent = getpid(), .at_start = true};
    spool_input(control);
    const char *why = fork_unforkable_now(&point);
    char control_dir[PATH_MAX];
    fork_folder_path(control_dir, control);
    testcase_prepare(); /* the children end with the test case their fault fires in */
    if (restore && !why)
        fork_restore_note(); /* the working folder as the unfailed program would find it */
    if (!why && fork_state.under_valgrind) {
        int status = 0;
        enum zygote_end end = start_zygote(control, exe, run_dir, &status);
        if (end == ZYGOTE_RAN_MAIN)
            end_as(status); /* the zygote put the working folder back before main */
        if (end == ZYGOTE_BEFORE_MAIN) { /* it put the working folder back itself */
            fork_state.jobs = jobs;
            return false;
        }
    }
    fork_state.reaped_wall_ns = 0;
    if (!why && mkdir(control_dir, 0755) == 0 && fork_child(control, &point)) {
        fork_exec_natively(exe, NULL);
        runtime_replan(NULL); /* only how it ends and what it prints count: no unwinding */
        return true;
    }
    fork_wait_for_children(0); /* the unfailed child alone: children beside it may disturb it */
    /* The children's time is the unfailed child's, three times over and 2 s more, not the
       whole command's: a child of a harness's program that hangs (waits for a server's reply
       that never comes) would hold the harness for as long as ten suites. A child out of time
       is no answer, never a finding (failrun tries it once more, then re-runs its site with
       the run's own limit), so the bound can be tight: each second of it is one the harness
       waits for every child that hangs. */
    uint64_t timeout_ns = fork_state.timeout_ns;
    if (own_time && !why && fork_state.running == 0 && !fork_state.reaped_timed_out &&
        fork_state.reaped_wall_ns) {
        uint64_t own = 3 * fork_state.reaped_wall_ns + 2000000000ull;
        if (!fork_state.timeout_ns || own < fork_state.timeout_ns)
            fork_state.timeout_ns = own;
    }
    if (fork_lines(reader, &point, exe, sites, why))
        return true;
    /* Then rounds, where failrun asks for them ("rounds=PID", PID its own): after each round
       an unfailed child, then failrun judges the round's children while the start waits, and
       gives the next round (the chains on their error legs, the sites a child did not reach
       or ran out of time on, once more) until it gives none. */
    for (unsigned round = 0;; round++) {
        /* One more unfailed child after the round, ROOT/start-NAME-3 (then -3-1, -3-2...):
           where it ends or prints otherwise than the first, the start is unstable (its output
           varies from run to run) or the children changed what the program depends on (a
           file one left behind): either way a child's difference says nothing (failrun,
           start_differs). It is the start's second unfailed run: one more before the
           children would cost the harness a whole run of the program a start and tell only
           which of the two it was. */
        char after[48], after_dir[PATH_MAX];
        size_t n = fork_append(after, fork_append(after, 0, control), "-3");
        if (round) {
            after[n++] = '-';
            after[n + format_decimal(after + n, round)] = '\0';
        }
        fork_folder_path(after_dir, after);
        fork_wait_for_children(0);
        if (!why && mkdir(after_dir, 0755) == 0 && fork_child(after, &point)) {
            fork_exec_natively(exe, NULL);
            runtime_replan(NULL);
            return true;
        }
        fork_wait_for_children(0);
        if (why || !failrun || round + 1 >= START_ROUNDS_MAX)
            break;
        struct line_reader next;
        if (!next_round(&next, control, round, failrun))
            break;
        bool child = fork_lines(&next, &point, exe, sites, NULL);
        bool any = next.lines > 0;
        close(next.fd);
        if (child)
            return true;
        if (!any)
            break;
    }
    fork_wait_for_children(0);
    fork_state.timeout_ns = timeout_ns; /* the program's own forks, if any, as before */
    fork_state.jobs = jobs;
    if (restore && !why)
        fork_restore_put_back();
    return false;
}

/* The start's working folder as failrun wrote it: a path, or "@/REST" for a folder inside the
   run's own (a harness that puts its scratch folder in LIBFAIL_DIR, as json-c's suite does
   here): REST inside `run_dir`, the folder this run was given. */
static bool LF_TEXT same_folder(const char *written, const char *cwd, const char *run_dir)
{
    if (written[0] != '@')
        return !strcmp(written, cwd);
    size_t length = strlen(run_dir);
    while (length > 1 && run_dir[length - 1] == '/')
        length--; /* failrun pads the folder with slashes to one length */
    return !strncmp(cwd, run_dir, length) && !strcmp(cwd + length, written + 1);
}

/* A start file's third line `header` asks with "restore=1" for the working folder to be put
   back after the children (forkrestore.c), but for failrun's own folders. */
static bool LF_TEXT restore_asked(const char *header, const char *run_dir)
{
    if (strncmp(header, "restore=1", 9))
        return false;
    fork_restore_keep_out(fork_state.root);
    fork_restore_keep_out(run_dir);
    return true;
}

/* Takes ROOT/starts/FILE (`name` is "start-FILE") when it is this program's: the same
   executable and working folder. START_CHILD: taken, and this process is one of its children;
   START_PARENT: taken, the parent goes on; START_ABSENT: no such file, taken or not; START_OTHER:
   another program's, or another process took it. */
enum start_taken { START_CHILD, START_PARENT, START_ABSENT, START_OTHER };

static enum start_taken LF_TEXT take_start(const char *name, const char *exe, const char *cwd,
                                          const char *run_dir, const struct start_sites *sites)
{
    static struct line_reader reader;
    static char line[PATH_MAX];
    char path[PATH_MAX], taken[PATH_MAX];
    size_t at = fork_append(path, fork_append(path, 0, fork_state.root), "/starts/");
    fork_append(path, at, name + 6);
    fork_append(taken, fork_append(taken, 0, path), ".taken");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) { /* out of the program's numbers (and of the files a child reopens) */
        int high = fcntl(fd, F_DUPFD_CLOEXEC, FORK_FD_FLOOR);
        if (high >= 0) {
            close(fd);
            fd = high;
        }
    }
    if (fd < 0)
        return errno == ENOENT && access(taken, F_OK) != 0 ? START_ABSENT : START_OTHER;
    reader.fd = fd;
    reader.start = reader.end = 0;
    bool same = read_line(&reader, line, sizeof line) && !strcmp(line, exe) &&
                read_line(&reader, line, sizeof line) && same_folder(line, cwd, run_dir);
    if (!same || rename(path, taken) != 0) {
        close(fd);
        return START_OTHER;
    }
    bool header = read_line(&reader, line, sizeof line);
    bool restore = header && restore_asked(line, run_dir);
    bool child = fork_at_start(&reader, name, exe, sites, restore, header ? line : "", run_dir);
    close(fd);
    return child ? START_CHILD : START_PARENT;
}

/* The zygote of a start under valgrind (start_zygote): `value` is CONTROL followed by the run's
   folder, with a "!" between them when it holds the harness's output (fork_keep_output). It
   takes the start file its guest took and forks the children as the guest would have; then it
   runs the program (false) or ends before main. True in a child. */
static bool LF_TEXT run_zygote(const char *value, const char *exe, const struct start_sites *sites)
{
    static struct line_reader reader;
    static char line[PATH_MAX];
    char control[48], path[PATH_MAX];
    const char *run_dir = strchr(value, '/');
    size_t length = run_dir ? (size_t)(run_dir - value) : 0;
    bool output = length && value[length - 1] == '!';
    if (output)
        length--;
    if (!run_dir || length < 7 || length >= sizeof control || strncmp(value, "start-", 6))
        syscall(SYS_exit_group, FORK_ZYGOTE_UNSTARTED);
    memcpy(control, value, length);
    control[length] = '\0';
    size_t at = fork_append(path, fork_append(path, 0, fork_state.root), "/starts/");
    fork_append(path, fork_append(path, at, control + 6), ".taken");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    /* Out of the program's numbers, as take_start's: a child must find the descriptors the
       program would, and this one is closed in each child below. */
    int high = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, FORK_FD_FLOOR) : -1;
    if (high >= 0) {
        close(fd);
        fd = high;
    }
    reader.fd = fd;
    reader.start = reader.end = 0;
    if (reader.fd < 0 || !read_line(&reader, line, sizeof line) || strcmp(line, exe) ||
        !read_line(&reader, line, sizeof line) || !read_line(&reader, line, sizeof line))
        syscall(SYS_exit_group, FORK_ZYGOTE_UNSTARTED);
    /* The working folder is noted and put back around the children here, as the guest would:
       the program then runs here, natively, unless the line says "guest-main=1"
       (FAILRUN_START_NATIVE=0) or it cannot, and the guest runs it. */
    bool child = fork_at_start(&reader, control, exe, sites, restore_asked(line, run_dir), line,
                               run_dir);
    close(reader.fd);
    if (child) {
        if (output) { /* the harness's: never a child's */
            close(FORK_ZYGOTE_STDOUT);
            close(FORK_ZYGOTE_STDERR);
        }
        return true;
    }
    char name[48];
    fork_append(name, fork_append(name, 0, control), "-z");
    fork_folder_path(path, name);
    fork_append(path, strlen(path), "/main"); /* start_zygote's marker */
    if (output && !strstr(line, "guest-main=1") && fork_zygote_become_program(run_dir, path))
        return false; /* main, natively */
    syscall(SYS_exit_group, 0); /* before main: the guest goes on as the program */
    return false;
}

/* A program that needs the suite around it may be started with other arguments in every run (a
   test server's port in its URL): failrun matches those by order instead. ROOT/starts/exes lists
   their executables, one a line; every process of such an executable takes the next number
   (the first K for which it makes ROOT/starts/claim-I-K, I the executable's line), and its
   start file, if it has one, is ROOT/starts/ord-I-K: the K-th start of that executable in the
   baseline. -1 when the executable is not listed. */
static int LF_TEXT start_ordinal(const char *exe, unsigned *index)
{
    static struct line_reader reader;
    static char line[PATH_MAX];
    char path[PATH_MAX];
    fork_append(path, fork_append(path, 0, fork_state.root), "/starts/exes");
    reader.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (reader.fd < 0)
        return -1;
    reader.start = reader.end = 0;
    bool found = false;
    for (*index = 0; !found && read_line(&reader, line, sizeof line); ++*index)
        found = !strcmp(line, exe);
    close(reader.fd);
    if (!found)
        return -1;
    --*index;
    for (int k = 0; k < 100000; k++) {
        size_t n = fork_append(path, fork_append(path, 0, fork_state.root), "/starts/claim-");
        n += format_decimal(path + n, *index);
        path[n++] = '-';
        path[n + format_decimal(path + n, (uint64_t)k)] = '\0';
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            close(fd);
            return k;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

bool LF_TEXT forkmode_start(uint64_t command_line, const char *exe, const char *run_dir,
                            const struct start_sites *sites)
{
    char cwd[PATH_MAX];
    static char zygote[PATH_MAX + 64];
    const char *asked = getenv("LIBFAIL_START_ZYGOTE");
    if (asked) { /* not seen by what the program starts */
        if (!fork_state.enabled || strlen(asked) >= sizeof zygote)
            syscall(SYS_exit_group, FORK_ZYGOTE_UNSTARTED);
        fork_append(zygote, 0, asked);
        unsetenv("LIBFAIL_START_ZYGOTE"); /* shifts environ's pointers: no allocation */
        return run_zygote(zygote, exe, sites);
    }
    if (!fork_state.enabled || !getcwd(cwd, sizeof cwd))
        return false;
    unsigned index = 0;
    int ordinal = start_ordinal(exe, &index); /* before anything: the order counts every start */
    for (unsigned n = 0; n < START_FILES_MAX; n++) {
        char name[40] = "start-";
        size_t length = 6 + format_hex16(name + 6, command_line);
        name[length++] = '-';
        name[length + format_decimal(name + length, n)] = '\0';
        enum start_taken taken = take_start(name, exe, cwd, run_dir, sites);
        if (taken == START_CHILD || taken == START_PARENT)
            return taken == START_CHILD;
        if (taken == START_ABSENT)
            break; /* the last of this command line */
    }
    if (ordinal < 0)
        return false;
    char name[48] = "start-ord-";
    size_t length = 10 + format_decimal(name + 10, index);
    name[length++] = '-';
    name[length + format_decimal(name + length, (uint64_t)ordinal)] = '\0';
    return take_start(name, exe, cwd, run_dir, sites) == START_CHILD;
}
