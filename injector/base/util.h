/*
 * util.h — small helpers for the failrun CLI (runs outside the target: allocation is fine here).
 * Memory exhaustion in failrun itself is reported and ends the program: it has no error leg worth
 * testing, and a half-written database is worse than none (SQLite keeps it consistent anyway).
 */
#ifndef FAILRUN_UTIL_H
#define FAILRUN_UTIL_H

#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXIT_BUGS 1  /* failrun found bugs */
#define EXIT_USAGE 2 /* the user's input or environment is wrong */

extern const char *program_name;
/* Set by the fuzzers: warnings are computed but not printed, and fatal() jumps back to the
   fuzzer (message unprinted) instead of ending the process. */
extern bool warnings_quiet;
extern jmp_buf *fatal_jump;

/* Set when failrun is ending on a signal or an exit while runs may be under way (scratch.c):
   from then on, a thread whose run ends or that meets an error waits for the process to end
   instead of concluding anything (stop_here). */
extern volatile sig_atomic_t failrun_stopping;
/* Never returns: the thread waits, signals blocked, for the stopping thread to end the process. */
__attribute__((noreturn)) void stop_here(void);
/* The signals that one thread of a campaign waits for (INT, TERM, HUP; scratch.c), blocked in
   every other thread; empty outside a campaign. A process failrun starts must not inherit them
   blocked: signals_for_child removes them from the mask a child starts with. */
extern sigset_t stop_signals;
void signals_for_child(sigset_t *mask);

/* Print "failrun: <message>" and exit with EXIT_USAGE. One line, naming the problem and the fix.
   While failrun_stopping, the thread stops there instead (what it met was the removal). */
__attribute__((noreturn, format(printf, 1, 2))) void fatal(const char *format, ...);
__attribute__((format(printf, 1, 2))) void warn(const char *format, ...);

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *block, size_t size);
char *xstrdup(const char *text);
__attribute__((format(printf, 1, 2))) char *xasprintf(const char *format, ...);

/* A growable array of any element type. */
#define VECTOR(type)                                                                               \
    struct {                                                                                       \
        type *items;                                                                               \
        size_t count, capacity;                                                                    \
    }
#define VECTOR_PUSH(vector, value)                                                                 \
    do {                                                                                           \
        if ((vector).count == (vector).capacity) {                                                 \
            (vector).capacity = (vector).capacity ? (vector).capacity * 2 : 16;                    \
            (vector).items = xrealloc((vector).items, (vector).capacity * sizeof *(vector).items);  \
        }                                                                                          \
        (vector).items[(vector).count++] = (value);                                                \
    } while (0)

/* Whole file into a NUL-terminated buffer; NULL (errno set) on failure. *length may be NULL. */
char *read_whole_file(const char *path, size_t *length);
bool write_whole_file(const char *path, const void *data, size_t length);
/* The next file of `folder` (opened on `directory`) named PREFIX...SUFFIX, as a path to free;
   NULL when none is left. The preload leaves such files in a run folder, one per process
   (kmem-PID.trace, kernel-PID.log, kcov-PID.pcs). */
char *next_file_named(DIR *folder, const char *directory, const char *prefix, const char *suffix);
/* mkdir -p */
bool make_directories(const char *path);
/* rm -rf of a folder failrun made */
void remove_tree(const char *path);
/* Calls each(path, context) for every regular file below `folder`, its subfolders' too, by the
   entries' types (no stat per entry where the file system gives them). Stops when each returns
   false. False then, or when a folder could not be read. */
bool each_file_below(const char *folder, bool (*each)(const char *path, void *context),
                     void *context);
/* Bytes on disk under path (files and folders, as du counts them); 0 when it does not exist. */
uint64_t tree_bytes(const char *path);
/* Move a file or folder to `to` (replacing it, making its parent folders), across file systems
   by copying: runs execute on a scratch file system and what is kept moves to the campaign's. */
bool move_tree(const char *from, const char *to);
/* Hex of a 64-bit value, 16 digits, into a static-free caller buffer of 17 bytes. */
void hex16(char out[17], uint64_t value);
bool parse_hex16(const char *text, uint64_t *value);
/* Content hash of a file (FNV-64 over bytes), 0 when unreadable. */
uint64_t file_hash(const char *path);
/* Milliseconds of a monotonic clock. */
int64_t now_ms(void);
/* The directory holding the running failrun binary. */
char *self_directory(void);
/* Resolve a command name like execvp would, then realpath; NULL when not found. */
char *resolve_command(const char *name);
/* Quote one argument for a POSIX shell (for replay commands). */
char *shell_quote(const char *argument);
char *shell_join(char *const *argv);

#endif
