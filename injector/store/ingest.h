/*
 * ingest.h — read the event records of one run (every *.rec file in its folder) into memory.
 * The files come from the target and are untrusted: anything malformed becomes a warning counted
 * in `problems`, never a crash.
 */
#ifndef FAILRUN_INGEST_H
#define FAILRUN_INGEST_H

#include "format/record.h"
#include "base/util.h"

#include <stdbool.h>
#include <stdint.h>

struct frame_list {
    int count;
    struct record_frame frames[RECORD_MAX_FRAMES];
};

struct ingest_module {
    uint64_t id;
    char *path;
    char build_id[2 * RECORD_BUILD_ID_MAX + 1];
};

struct ingest_site {
    uint64_t signature;
    char *exe; /* of the process that first recorded it */
    size_t process; /* that process: its index in run_records.processes */
    int64_t owner;  /* the program that owns it (programs.id), set by owner.c; 0: none */
    uint32_t function;
    uint64_t max_size;
    bool nofail; /* requested with LF_NOFAIL (RECORD_FLAG_NOFAIL): never failed */
    struct frame_list stack;
};

/* A named failpoint (LF_FAILPOINT): its site and its name. */
struct ingest_name {
    uint64_t signature;
    char *name;
};

/* How a process image was started, as it wrote it in record mode (PID-IMAGE.inv, runtime.c):
   enough to start the same program again, alone. */
struct ingest_invocation {
    char *exe;
    char *cwd;
    char *argv;                  /* NUL-terminated arguments one after another (/proc/self/cmdline) */
    size_t argv_length;
    char *environment;           /* NAME=value entries the same way (/proc/self/environ) */
    size_t environment_length;
    char *stdin_kind;            /* "file", "null"; else why it cannot be given again: "pipe", ... */
    char *stdin_path;            /* "file": its path */
};

struct ingest_process {
    uint32_t pid;
    uint32_t parent;
    uint32_t image;        /* 0 for the first program a pid ran, then 1, 2, ... after each exec */
    char *exe;
    uint64_t command_line; /* hash */
    bool forked;
    bool in_scope;
    bool exited;
    int exit_status;
    int exit_kind;
    uint32_t exit_parent; /* its parent's pid at the exit; 0: not recorded */
    uint32_t fixture;     /* RECORD_FIXTURE_* it did */
    bool live_overflow;
    struct frame_list exit_stack;
    int signal; /* 0: none recorded */
    bool signal_addressed; /* a SIGSEGV or SIGBUS the kernel raised, at signal_address */
    uint64_t signal_address;
    struct frame_list crash_stack;
    bool faulted; /* the planned fault fired in this process */
    struct ingest_invocation *invocation; /* NULL: none written (not record mode, out of scope) */
    int64_t program; /* its invocation's row in programs, set by owner.c; 0: none */
    VECTOR(uint64_t) reached; /* the signature of every site it recorded, in record order: what
                                 it reached, whichever process reached a site first (owner.c) */
};

/* Blocks still live at exit, counted by the allocation's caller (frame 0: the static site). */
struct ingest_live {
    uint64_t signature; /* of the one-frame stack `top` */
    struct record_frame top;
    uint64_t blocks, bytes;
};

struct ingest_fault {
    uint64_t signature;
    uint32_t pid;
    uint32_t tid;          /* the thread that made the call */
    uint32_t function;
    uint64_t size;
    struct frame_list stack;
    /* A system call armed by failrun kernel (RECORD_FLAG_KERNEL_FIRED and friends), or an I/O
       call (--faults io: call_failed, with the errno it returned): */
    bool kernel;
    bool fired;       /* allocations: always; kernel: the N-th fault point was reached */
    bool call_failed; /* kernel: the call returned an error, errno below */
    int error;
    uint64_t nth;     /* kernel: the N written to fail-nth */
};

/* A call into the code under test as it returned (RECORD_BOUNDARY, libfail/boundary.c). */
struct ingest_boundary {
    uint32_t pid;
    uint64_t module;  /* module id of the function */
    char *function;   /* its symbol */
    struct record_frame caller; /* the call's return address */
    uint64_t value;   /* the integer return register */
    uint64_t value2;  /* faulted: errno after it; else the classes seen so far */
    bool faulted;     /* a fault fired inside the call, in the calling thread */
};

/* A program a process started without libfail's preload (RECORD_UNPRELOADED): nothing of it
   is recorded. `failed`: the exec or spawn failed after all, no program ran. */
struct ingest_unpreloaded {
    char *program;
    uint32_t reason;  /* enum record_unpreloaded_reason */
    size_t process;   /* the process that started it: its index in run_records.processes */
    uint64_t attempt; /* its number there */
    bool failed;
};

struct run_records {
    VECTOR(struct ingest_boundary) boundaries;
    VECTOR(struct ingest_process) processes;
    VECTOR(struct ingest_module) modules;
    VECTOR(struct ingest_site) sites;
    VECTOR(struct ingest_live) live; /* summed over processes, one entry per site */
    VECTOR(struct ingest_fault) faults; /* every injected failure, in record order */
    VECTOR(struct ingest_name) names;   /* failpoint names, one entry per site */
    VECTOR(struct ingest_unpreloaded) unpreloaded; /* in record order */
    int problems; /* malformed records or files */
};

/* How a process ended: from its last image (an exec'd program continues its pid). */
const struct ingest_process *final_image(const struct run_records *records, uint32_t pid);

/* Read every record file under `dir`. Returns false only when the folder cannot be read. */
bool ingest_run(const char *dir, struct run_records *out);
/* Parse one file's bytes (exposed for tests and fuzzing). */
void ingest_bytes(const unsigned char *data, size_t length, const char *name,
                  struct run_records *out);
void run_records_free(struct run_records *records);
/* Parse an invocation file's bytes (untrusted); false when malformed. */
bool invocation_parse(const char *data, size_t length, struct ingest_invocation *out);
void invocation_free(struct ingest_invocation *invocation);

/* "cleared" or "setuid" (enum record_unpreloaded_reason), as the database stores it. */
const char *unpreloaded_reason_name(uint32_t reason);
/* The same said in words, for messages: "LD_PRELOAD cleared", "set-user-ID". */
const char *unpreloaded_reason_words(const char *name);

const char *function_name(uint32_t function);
/* The name of the kind of `function`'s sites (kinds.def: "alloc", "io", ...), as the sites
   table stores it. */
const char *function_kind_name(uint32_t function);
/* A kind's name, and the kind of a name (KIND_LIMIT for none): the one place kinds are
   compared by name. */
const char *fault_kind_name(enum function_kind kind);
enum function_kind fault_kind_from_name(const char *name);
/* The errno a failed I/O call of `function` returns (interpose_io.def), 0 for other functions. */
int function_io_errno(uint32_t function);
/* The same by the function's name, as the sites table stores it: 0 when no I/O call has it. */
int function_io_errno_by_name(const char *name);
/* Is `function` a read whose failure a loop cannot tell from the end of the input (getc's EOF,
   fgets' NULL, a `read() > 0` loop: interpose_io.def's column)? By id, and by name as the sites
   table stores it (false for a name no I/O call has). */
bool function_io_ends_like_input(uint32_t function);
bool function_io_ends_like_input_by_name(const char *name);

#endif
