/*
 * internal.h — the in-process core's private interface, shared by libfail/ and the preload.
 *
 * Everything declared here runs inside the target process. It must never call malloc (or anything
 * that might: stdio, qsort, dlerror, fnmatch), never take a lock that fork could leave held, and
 * tolerate being called before constructors have run, from several threads, after fork, and from a
 * signal handler where stated. State is in static storage or in anonymous mmap.
 */
#ifndef LIBFAIL_INTERNAL_H
#define LIBFAIL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/attributes.h"
#include "format/plan.h"
#include "format/record.h"
#include "format/text.h"

/* The bounds of the libfail_text section (the linker defines them). */
extern char __start_libfail_text[] LF_HIDDEN;
extern char __stop_libfail_text[] LF_HIDDEN;
/* Is the return address `pc` in our own code? It points just past the call: pc - 1 is inside
   the calling function. */
LF_INLINE bool is_own_frame(uintptr_t pc)
{
    return pc - 1 >= (uintptr_t)__start_libfail_text && pc - 1 < (uintptr_t)__stop_libfail_text;
}

/* boundary.c: the stubs and the trampoline the program's calls into the code under test go
   through (the audit binds them there); a frame of theirs stands between the program and the
   library, and stacks leave it out. */
extern const char boundary_stubs[] LF_HIDDEN;
extern const char boundary_trampolines_end[] LF_HIDDEN;
LF_INLINE bool is_boundary_frame(uintptr_t pc)
{
    return pc - 1 >= (uintptr_t)boundary_stubs && pc - 1 < (uintptr_t)boundary_trampolines_end;
}

/* ---- stack.c: site signatures ---- */
struct module_info {
    uintptr_t start, end, bias;
    uint64_t id;
    uint8_t build_id[RECORD_BUILD_ID_MAX];
    uint32_t build_id_length;
    char path[256];
};
/* Raw return addresses of the caller's stack with libfail's own frames removed. */
int stack_capture(uintptr_t *pcs, int max) LF_HIDDEN;
/* unwinder.c: bind libunwind's pipe2/read/close/syscall to versions that keep its pipe far above
   the program's descriptors and never touch a descriptor the program took over. Called before
   every use of libunwind; cheap after the first. */
void unwinder_bind(void) LF_HIDDEN;
/* Around every use of libunwind that may run while another thread forks (unwinder.c): the fork
   (unwinder_before_fork, and after it in parent and child) waits for unwinds in progress.
   unwinder_enter is false (nothing entered) when this thread is unwinding already: a signal
   handler interrupted it, and libunwind, which then does not block signals, may hold a lock;
   unwinder_busy says the same to the captures made in signal handlers. */
bool unwinder_enter(void) LF_HIDDEN;
bool unwinder_busy(void) LF_HIDDEN;
void unwinder_leave(void) LF_HIDDEN;
void unwinder_before_fork(void) LF_HIDDEN;
void unwinder_after_fork_parent(void) LF_HIDDEN;
void unwinder_after_fork_child(void) LF_HIDDEN;
/* From now on, leave the dynamic linker's frames out of captured stacks (an LD_AUDIT module's
   trampoline sits between the program and the library it calls; boundary.c). */
void stack_skip_loader(void) LF_HIDDEN;
/* From a signal handler: the interrupted context's stack, pcs[0] the faulting pc. */
int stack_capture_signal(void *ucontext, uintptr_t *pcs, int max) LF_HIDDEN;
/* From a SIGSYS handler of syscall user dispatch: the trapped call's stack, pcs[0] the address
   just past its syscall instruction; libfail's own frames removed. */
int stack_capture_syscall(void *ucontext, uintptr_t *pcs, int max) LF_HIDDEN;
/* Normalise pcs to (module id, offset); unknown addresses get module 0 and the raw pc. */
void stack_normalise(const uintptr_t *pcs, int count, struct record_frame *frames) LF_HIDDEN;
uint64_t stack_signature(const struct record_frame *frames, int count) LF_HIDDEN;
/* How many of pcs[0..count) lie, from the first on, in system libraries (libc, the loader, the
   vDSO): the frames of a trapped system call before the program's own. */
int stack_system_frames(const uintptr_t *pcs, int count) LF_HIDDEN;
/* Look up the module holding pc; false when none. */
bool module_find(uintptr_t pc, struct module_info *out) LF_HIDDEN;
/* The modules of the current table as they are (no refresh, no lock): for a signal handler. */
const struct module_info *module_table_current(int *count) LF_HIDDEN;
/* Called for each module of the current table (after a rebuild); used to emit MODULE records. */
void module_table_reset_after_fork(void) LF_HIDDEN;
void module_table_set_listener(void (*listener)(const struct module_info *)) LF_HIDDEN;

/* ---- gcovdump.c: coverage of crashing runs ---- */
/* From the fatal-signal handler: call `exported_dump` (the __gcov_dump dlsym found, or NULL),
   then every loaded module's own libgcov exit function, found in its file. Once per process. */
void gcov_dump_modules(void (*exported_dump)(void)) LF_HIDDEN;

/* ---- elfsym.c: functions by name in a loaded module's file ---- */
struct elf_function {
    const char *name;
    uint64_t value, size; /* out: the symbol's value (address minus the load bias) and size; 0
                             when the file has no such function */
};
/* Looks each name up in the module's file (.symtab, then .dynsym). False when the file cannot be
   read or is not the module loaded (another build-id); every value is then 0. */
bool elf_module_functions(const struct module_info *module, struct elf_function *wanted,
                          int count) LF_HIDDEN;

/* ---- runtime/invocation.c: how a program was started, for starting it alone ---- */
/* Writes RECORD_PATH's invocation file (PID-IMAGE.inv beside it): EXE, the working folder,
   /proc/self/cmdline and environ, and what standard input is. Nothing on an error. */
void invocation_write_file(const char *record_path, const char *exe) LF_HIDDEN;

/* ---- live.c: the table of live blocks (leak accounting, lf_live_since) ---- */
/* Blocks are stored XOR this mask: a leak checker scanning memory (LeakSanitizer, valgrind) must
   not find every block reachable through our table. The low nibble keeps keys of 16-byte aligned
   blocks away from the table's markers for empty, removed and claimed slots (0, 1, 2). */
#define LIVE_KEY_MASK ((uintptr_t)0x5a5a5a5a5a5a5a58ull)
/* Maps the first table; false when memory ran out. */
bool live_table_init(void) LF_HIDDEN;
/* Track `block` for the caller at site-table index `site`; `serial` is kept when with_serial.
   False when no slot was found (the overflow flag is then set). */
bool live_table_insert(uintptr_t block, uint32_t site, uint64_t size, bool with_serial,
                       uint64_t serial) LF_HIDDEN;
/* Stop tracking `block`: true with its site and size when it was tracked. */
bool live_table_remove(uintptr_t block, uint32_t *site, uint64_t *size) LF_HIDDEN;
/* Blocks with a serial above `mark`: the first `max` are stored; returns how many there are. */
size_t live_table_since(uint64_t mark, uintptr_t *blocks, size_t *sizes, uint32_t *sites,
                        size_t max) LF_HIDDEN;
bool live_table_overflowed(void) LF_HIDDEN;
/* Slots mapped over all generations, and the generations (for tests: lf_debug_live_table). */
void live_table_stats(uint64_t *slots, uint64_t *generations) LF_HIDDEN;
void live_table_after_fork_child(void) LF_HIDDEN;

/* ---- runtime/runtime.c: per-process state, records, sites, live blocks; with records.c,
   sites.c, exits.c and syscalls.c beside it, which share its state (runtime.h) ---- */
/* Set while libfail works on this thread: allocations made meanwhile (by libunwind, dlsym,
   pthread_atfork) go straight to the real allocator. Initial-exec TLS: reading it never allocates. */
extern __thread int runtime_guard LF_HIDDEN;
/* The guard's value while an interposer's real function runs: allocations inside it pass
   through as under any guard, but a system call it makes (brk inside malloc) is the program's,
   where one made under a guard of 1 is libfail's own (failrun kernel, injector/preload/dispatch.c). */
#define RUNTIME_GUARD_REAL_CALL 2
/* failrun kernel with syscall user dispatch (injector/preload/dispatch.c): this thread's selector byte,
   read by the kernel at every system call made outside our trampolines: 1 (BLOCK) traps it,
   0 (ALLOW) lets it through. Our own system calls made outside the SIGSYS handler (records, the
   module table, exits) run between own_syscalls_begin and own_syscalls_end, so they are never
   taken for the program's. Elsewhere (libfail-preload.so) nobody reads the byte. */
extern __thread volatile char runtime_syscall_selector LF_HIDDEN;
LF_INLINE char own_syscalls_begin(void)
{
    char saved = runtime_syscall_selector;
    runtime_syscall_selector = 0;
    return saved;
}
LF_INLINE void own_syscalls_end(char saved)
{
    runtime_syscall_selector = saved;
}
/* What the interposers must do, read on every call so an idle shim costs one load: */
#define RUNTIME_READY 1u    /* runtime_init has finished */
#define RUNTIME_DECIDE 2u   /* calls go to runtime_before_alloc: records, a plan or fail-nth */
#define RUNTIME_TRACKING 4u /* blocks are counted: runtime_track and runtime_untrack */
#define RUNTIME_IO 8u       /* I/O calls go to runtime_before_io (faults=io, in scope) */
extern _Atomic unsigned runtime_hooks LF_HIDDEN;
struct call {
    struct record_frame frames[RECORD_MAX_FRAMES];
    int frame_count;
    uint64_t signature;
    uint32_t static_index; /* the table slot of the caller's return address; UINT32_MAX: none */
    bool fail;
    bool fresh; /* the first call at this site in this process */
    uint64_t occurrence; /* of this call at its site (set by runtime_kernel_before) */
};
/* What the policy API (api.c) tells the interposer about the request it is about to make, on
   this thread: its flags (REQUEST_NOFAIL: never fail it), the caller of the lf_ function (the
   site's real first frame), and back from the interposer whether a failure was injected. */
#define REQUEST_NOFAIL 0x1u /* = LF_NOFAIL */
struct runtime_request {
    unsigned flags;
    uintptr_t caller;
    bool injected;
};
extern __thread struct runtime_request runtime_request LF_HIDDEN;
/* Faults injected in this thread so far (boundary.c: did one fire inside a call?). */
uint32_t runtime_thread_faults(void) LF_HIDDEN;
/* A RECORD_BOUNDARY of `function` (its address and symbol) called from `caller` (the call's
   return address), when records are written (records.c). */
void runtime_boundary(uint32_t flags, const char *name, uintptr_t function, uintptr_t caller,
                      uint64_t value, uint64_t value2) LF_HIDDEN;
/* Whether this process's calls teach failrun return conventions: not in a run that fails
   something (its plan names a fault, or one fired), since failrun learns them only from runs
   without a fault (database.c, store_conventions): its classes would be written for nothing. */
bool runtime_learns_conventions(void) LF_HIDDEN;
/* boundary.c: after fork, in the child. */
void boundary_reset_after_fork(void) LF_HIDDEN;
/* Initialise from the environment; idempotent, safe to call from any allocation. */
void runtime_init(void) LF_HIDDEN;
void runtime_constructor_ran(void) LF_HIDDEN;
/* Before an allocation request: record the site and decide whether to fail it. `caller` is the
   interposer's return address (frame 0 of the site), known without unwinding. Leaves errno as
   it found it. The caller sets call->fail = false and call->static_index = UINT32_MAX. */
void runtime_before_alloc(struct call *call, uint32_t function, size_t size,
                          uintptr_t caller) LF_HIDDEN;
/* Before an I/O call (preload_io.c), with runtime_guard set: record the site and decide whether
   to fail it, by the same rules as an allocation; call->fail says. Leaves errno alone. */
void runtime_before_io(struct call *call, uint32_t function, uintptr_t caller) LF_HIDDEN;
/* After a successful allocation: start tracking the block (for leak accounting: sites.c).
   Neither this nor runtime_untrack calls anything: no errno change, no allocation. */
void runtime_track(const struct call *call, void *block, size_t size) LF_HIDDEN;
/* Before a block is released or moved. */
void runtime_untrack(void *block) LF_HIDDEN;
/* The process image ends: exit(), _exit() or a return from main (exits.c). */
void runtime_exit(int status, enum record_exit_kind kind) LF_HIDDEN;
/* The process did what a fixture does (RECORD_FIXTURE_*): one record per kind per image
   (records.c). */
void runtime_fixture(uint32_t how) LF_HIDDEN;
void runtime_after_fork_child(void) LF_HIDDEN;
void runtime_forget_environment(void) LF_HIDDEN;
/* preload.c: the next definition of `name` after ours, found once (dlsym under the guard). */
void *real_function(void **slot, const char *name) LF_HIDDEN;
/* preload.c: false when another copy of libfail comes first and serves every call. */
bool preload_active(void) LF_HIDDEN;
/* The in-process API behind libfail.h (see api.c). */
void runtime_fail_nth_set(uint64_t n) LF_HIDDEN;
uint64_t runtime_fail_nth_get(void) LF_HIDDEN;
uint64_t runtime_exec_counter(void) LF_HIDDEN;
void runtime_exec_environment(char *const *envp, uint64_t counter, char **copy, char *entry,
                              size_t preload_index, char *preload_entry) LF_HIDDEN;
uintptr_t runtime_last_failure(size_t *size) LF_HIDDEN;
/* This is a vfork child, running on its parent's memory until it executes or exits. */
bool runtime_vfork_child(void) LF_HIDDEN;
/* A campaign runs (LIBFAIL_DIR and a plan): exec and spawn keep its preload (execenv.c). */
bool runtime_campaign(void) LF_HIDDEN;
/* Write an UNPRELOADED record: `program` starts without the preload, for `reason`; `failed`:
   the call numbered `attempt` failed after all, take that record back (records.c). */
void runtime_note_unpreloaded(const char *program, uint32_t reason, uint64_t attempt,
                              bool failed) LF_HIDDEN;

/* ---- execenv.c: the preload in every program the command starts ---- */
/* What an exec or spawn runs. */
struct exec_target {
    const char *path; /* as given (execve, execveat, posix_spawn), or the file to look up */
    bool search;      /* execvp*, posix_spawnp: look `path` up in PATH unless it holds a '/' */
    int fd;           /* fexecve: the program's fd; else -1 */
    int dirfd;        /* execveat: the folder `path` is relative to; else AT_FDCWD */
    int flags;        /* execveat */
};
struct exec_decision {
    bool rewrite;         /* envp[preload_index] becomes our library + ':' + the others */
    size_t preload_index;
    size_t entry_length;  /* bytes of that entry, NUL included (exec_preload_entry) */
    uint32_t reason;      /* 0, or enum record_unpreloaded_reason: recorded already */
    uint64_t attempt;     /* the record's number, for exec_failed */
    char program[4096];   /* PATH_MAX */
};
/* Found once, at initialisation: our own library's path. */
void exec_environment_init(void) LF_HIDDEN;
/* Decide for an exec of `target` with `envp`, and write the record when it starts unseen.
   Leaves errno alone only for the caller to restore: the caller saves and restores it. */
void exec_decide(struct exec_decision *decision, const struct exec_target *target,
                 char *const *envp) LF_HIDDEN;
/* Write the rewritten LD_PRELOAD entry into `entry` (decision->entry_length bytes). */
void exec_preload_entry(const struct exec_decision *decision, char *const *envp,
                        char *entry) LF_HIDDEN;
/* The exec or spawn failed: take back its record (errno kept). */
void exec_failed(const struct exec_decision *decision) LF_HIDDEN;
/* failrun kernel (syscalls.c, for injector/preload/kernel.c): at a system-call wrapper, with
   runtime_guard set. Records the call's site; returns the N to write to the kernel's fail-nth
   just before the call, or 0. */
uint64_t runtime_kernel_before(struct call *call, uint32_t function, uintptr_t caller) LF_HIDDEN;
/* The same for a call whose stack is known (a trapped system call: injector/preload/dispatch.c). */
uint64_t runtime_kernel_site(struct call *call, uint32_t function, const uintptr_t *pcs,
                             int count) LF_HIDDEN;
/* False when the call at `pc` cannot be the planned site (a targeted run, before its fault):
   the caller may skip the unwind. */
bool runtime_kernel_may_be_planned(uintptr_t pc) LF_HIDDEN;
/* The plan's signature depth (frames kept beyond the system libraries' for trapped calls). */
unsigned runtime_depth(void) LF_HIDDEN;
/* The plan asks for the wrappers only (plan key wrappers=1). */
bool runtime_kernel_wrappers_only(void) LF_HIDDEN;
/* After an armed call: what happened (see RECORD_FLAG_KERNEL_FIRED). */
void runtime_kernel_after(const struct call *call, uint32_t function, uint64_t nth,
                          uint64_t occurrence, bool fired, bool failed, int error) LF_HIDDEN;
/* failrun kernel: the kernel's log while a call was armed, with a report of a kernel bug in it
   (injector/preload/kernel.c): appended to kernel-PID.log in the run folder. */
void runtime_kernel_log(const char *text, size_t length) LF_HIDDEN;
/* The kmem trace of the armed call (injector/preload/kernel.c): kmem-PID.trace in the run
   folder. */
void runtime_kernel_trace(const char *text, size_t length) LF_HIDDEN;
/* The armed call's KCOV area (the count, then the kernel PCs it ran: injector/preload/kernel.c),
   appended to kcov-PID.pcs in the run folder as native 64-bit words. */
void runtime_kernel_kcov(const uint64_t *words, size_t count) LF_HIDDEN;
/* True when this process runs a kernel plan (set before any wrapper can see it on). */
bool runtime_kernel_mode(void) LF_HIDDEN;
/* LF_FAILPOINT: true when the failpoint `name` called from `caller` should fail. */
bool runtime_failpoint(const char *name, uintptr_t caller) LF_HIDDEN;
/* lf_live_mark and lf_live_since (sites.c). */
uint64_t runtime_live_mark(void) LF_HIDDEN;
size_t runtime_live_since(uint64_t mark, uintptr_t *blocks, size_t *sizes, uintptr_t *callers,
                          size_t max) LF_HIDDEN;
/* Write the coverage of every loaded module now (gcovdump.c), as an exit would (exits.c). */
void runtime_dump_coverage(void) LF_HIDDEN;
/* From the last destructor: report blocks still live (leak accounting; exits.c). */
void runtime_fini(void) LF_HIDDEN;
/* Fork mode's child (forkchild.c): from now on this process records into `dir`, as the same
   process image (a START record like its own), in record mode. */
void runtime_repoint(const char *dir) LF_HIDDEN;
/* From now on this process follows the plan `text` (a start child: its site's run), or with
   NULL fails nothing and unwinds nothing (a start's parent once its children are done). */
void runtime_replan(const char *text) LF_HIDDEN;
/* The preload's constructor, after runtime_init: in PLAN_START, fork the fault runs of this
   program's start (forkmode_start). */
void runtime_start(void) LF_HIDDEN;

/* ---- fork/forkmode.c: PLAN_FORK, a child per site reached for the first time; with
   forkchild.c and forkstart.c beside it, which share its state (forkmode.h) ---- */
/* At initialisation, with the guard set (it looks up __gcov_reset). */
void forkmode_init(const struct plan *plan) LF_HIDDEN;
/* A site this process (`pid`, the runtime's own idea of it) reaches for the first time: claim it
   and fork. True in the child, whose allocation must fail; false in the parent and whenever the
   site was not forked (claimed already, more than one thread, standard input a pipe). */
bool forkmode_site(uint64_t signature, pid_t pid) LF_HIDDEN;
/* The process image ends: wait for (and, past the timeout, kill) the children still running. */
void forkmode_finish(void) LF_HIDDEN;
/* PLAN_START, before main (forkstart.c): if failrun planned runs for this start (its command
   line's hash, executable and working folder), fork one unfailed child and one child per site,
   each run to its end while this process waits; `reached` tells a site this image reached
   already, and `known` is given each site (and largest request) the program reached in the
   baseline, before the first site's child: the children then record only new sites. True in a
   child (its plan is set), false in the parent, which then goes on unfailed. */
struct start_sites {
    bool (*reached)(uint64_t signature);
    void (*known)(uint64_t signature, uint64_t size);
};
bool forkmode_start(uint64_t command_line, const char *exe, const char *run_dir,
                    const struct start_sites *sites) LF_HIDDEN;
/* The exit status of a start's zygote under valgrind (forkstart.c) that could not become one
   (no exec, no start file, the runtime inactive in it): its guest then forks the children
   itself. */
#define FORK_ZYGOTE_UNSTARTED 125

/* ---- fork/testcase.c: a fork-mode child ends where its test case ends ---- */
/* The plan's extra test-case functions (tests=NAME,...), at initialisation. */
void testcase_configure(const struct plan *plan) LF_HIDDEN;
/* In the parent before its first fork: find the test runners' functions in the loaded modules
   (once per process image; children inherit what was found). */
void testcase_prepare(void) LF_HIDDEN;
/* In a new child, whose run folder is `dir`: if a test case is in progress on this stack, arrange
   for the child to end where it ends. */
void testcase_arm(const char *dir) LF_HIDDEN;
/* True while a child waits for its test case to end (testcase_poll has work to do). */
extern bool testcase_armed LF_HIDDEN;
/* A child forked at its program's start: where its fault fires, it arms (testcase_arm), so it
   ends with the test case the fault is in, as a child forked at the site does. */
extern bool testcase_at_fault LF_HIDDEN;
/* The return address the trampoline stands for when `ip` is the trampoline's; else 0. */
uintptr_t testcase_return_for(uintptr_t ip) LF_HIDDEN;
/* A C++ exception is being thrown in an armed child: the unwinder must find the true return
   address, so it goes back, and the child runs to its end. */
void testcase_disarm(void) LF_HIDDEN;
/* The return addresses from the trampoline's place outwards (the first is the one it stands
   for), as the child found them when it armed; their count. */
int testcase_outer_frames(const uintptr_t **frames) LF_HIDDEN;
/* At each interposed call of an armed child: has the next test case begun? */
void testcase_poll(void) LF_HIDDEN;
/* Before a longjmp to `env` (a jmp_buf): a jump out of the test case ends it as failed. */
void testcase_longjmp(const void *env) LF_HIDDEN;

#endif
