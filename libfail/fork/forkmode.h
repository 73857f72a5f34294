/*
 * forkmode.h — what fork mode's files share, and no other file of the core: the state of the
 * process that forks (`fork_state`, defined in forkmode.c), what a fork carries over to its child
 * (struct fork_point) and the paths under the fork root. forkmode.c decides whether a process may
 * fork, forks and waits for its children; forkchild.c makes a new child the run of its folder;
 * forkstart.c forks a program's runs at its start (PLAN_START). The runtime reaches fork mode
 * through internal.h.
 */
#ifndef LIBFAIL_FORKMODE_H
#define LIBFAIL_FORKMODE_H

#include "internal.h"

#include <limits.h>
#include <sys/types.h>

/* Fork mode's own descriptors (pidfds, start files) sit at this number and above. */
#define FORK_FD_FLOOR 800
/* A start's zygote under valgrind holds the harness's standard output and error here, across
   its exec, for the program's own run (forkchild.c, fork_zygote_become_program). */
#define FORK_ZYGOTE_STDOUT (FORK_FD_FLOOR + 100)
#define FORK_ZYGOTE_STDERR (FORK_FD_FLOOR + 101)

struct fork_child {
    pid_t pid;
    int pidfd; /* -1: none, poll by sleeping */
    uint64_t started_ns;
    char folder[40]; /* its folder under the root: the site's signature, or start-NAME */
};

/* The forking process's settings and its children in flight. */
struct forkmode_state {
    bool enabled;
    char root[PATH_MAX - 32]; /* LIBFAIL_FORK: each site's folder is ROOT/SIGNATURE */
    unsigned jobs;
    uint64_t timeout_ns;
    unsigned depth;
    uint64_t cpu_ms; /* the plan's cpu: what the child's programs get too */
    void (*gcov_reset)(void);
    pid_t owner; /* the process the children below belong to (a fork of the program inherits
                    this table but not the children) */
    struct fork_child children[PLAN_MAX_JOBS];
    unsigned running;
    bool under_valgrind; /* the process is valgrind's guest (its preloads say so) */
    /* The last child reaped: how long it ran, and whether its time ran out (forkstart.c bounds
       a start's fault children by its unfailed child's time). */
    uint64_t reaped_wall_ns;
    bool reaped_timed_out;
};
extern struct forkmode_state fork_state LF_HIDDEN;

#define FORK_FILES_MAX 32

/* A regular file the program has open beyond standard input and output. Read-only: the child
   reads it through a description of its own, from where the parent was (as standard input,
   reopen_input). Open for writing since before this image started (a harness's log): the child
   writes into a copy of its own in its folder, at the parent's offset, so neither sees the
   other's writes and the file the harness reads afterwards holds the unfailed process's bytes
   only. */
struct private_file {
    int fd;
    off_t offset;
    off_t size; /* written ones: the bytes the child's copy takes (the parent writes on) */
    bool writable;
};

/* What a fork carries over to its child, noted by the parent just before it. */
struct fork_point {
    pid_t parent;
    bool at_start; /* before main (PLAN_START): no output yet, gcov's counters are the run's */
    off_t stdout_offset, stderr_offset, stdin_offset;
    void *robust_head;
    size_t robust_length;
    struct private_file files[FORK_FILES_MAX];
    int file_count;
};

/* ---- forkrestore.c ---- */
/* A folder (failrun's own) that fork_restore_note and fork_restore_put_back never enter. */
void fork_restore_keep_out(const char *path) LF_HIDDEN;
/* Notes every regular file under the working folder: its device, inode and size. */
void fork_restore_note(void) LF_HIDDEN;
/* Puts the working folder back as noted: files that grew are cut back, new files removed. */
void fork_restore_put_back(void) LF_HIDDEN;

/* ---- forkmode.c ---- */
/* Appends `text` at out[length], NUL included; returns the new length. */
size_t fork_append(char *out, size_t length, const char *text) LF_HIDDEN;
/* A site's folder name: its signature in 16 hex digits. */
void fork_site_name(char *out, uint64_t signature) LF_HIDDEN;
/* ROOT/`name`, ROOT the fork root (LIBFAIL_FORK). */
void fork_folder_path(char *out, const char *name) LF_HIDDEN;
/* `dir`/`name`. */
void fork_file_in(char *out, const char *dir, const char *name) LF_HIDDEN;

/* A folder's entries, read with getdents64 (opendir would allocate): the buffer is the
   caller's, in the struct (static or on its stack). */
struct fork_dir {
    int fd;
    long length, at;
    bool failed; /* getdents64 failed: the entries read are not all there are */
    char buffer[4096];
};
/* Opens the folder `path` (relative to `at`, or AT_FDCWD; its last part not a link); false when
   it cannot be. */
bool fork_dir_open(struct fork_dir *dir, int at, const char *path) LF_HIDDEN;
/* The next entry's name, "." and ".." too, its d_type in *type when not NULL; NULL at the end. */
const char *fork_dir_next(struct fork_dir *dir, unsigned char *type) LF_HIDDEN;
void fork_dir_close(struct fork_dir *dir) LF_HIDDEN;
/* Field `number` of a /proc/PID/stat text, numbered as proc(5) does (4 and on: the numbers
   after the state); false when it is missing or not a number. */
bool fork_stat_field(const char *text, int number, uint64_t *value) LF_HIDDEN;
/* Note for failrun's report why this process did not fork at `signature`. */
void fork_note_refusal(uint64_t signature, const char *why) LF_HIDDEN;
/* Why this process cannot fork now (filling `point`), or NULL. */
const char *fork_unforkable_now(struct fork_point *point) LF_HIDDEN;
/* Fork the child of folder ROOT/`name`: true in the child, false in the parent. */
bool fork_child(const char *name, struct fork_point *point) LF_HIDDEN;
/* Wait until at most `keep` children are running. */
void fork_wait_for_children(unsigned keep) LF_HIDDEN;

/* ---- forkchild.c ---- */
/* In a new child: become the run of folder `dir` (its output, files, environment, records). */
void fork_become_child(const char *dir, const struct fork_point *point) LF_HIDDEN;
/* Under valgrind, a start's child goes on as a native run of its program; returns when it
   cannot. */
void fork_exec_natively(const char *exe, const char *plan) LF_HIDDEN;
void fork_exec_zygote(const char *exe, const char *variable, const char *dir) LF_HIDDEN;
/* In the fork of the guest that becomes a start's zygote, before its exec: the harness's
   standard output and error kept at FORK_ZYGOTE_STDOUT and _STDERR (without close-on-exec),
   unless the program holds either number itself. */
bool fork_keep_output(void) LF_HIDDEN;
/* In a start's zygote after its children: become the program's own run, in the run's folder
   `run_dir`, with the harness's output, once `marker` says so to the guest; false when it
   cannot (the guest then runs the program). */
bool fork_zygote_become_program(const char *run_dir, const char *marker) LF_HIDDEN;

#endif
