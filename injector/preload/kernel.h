/*
 * kernel.h — what the two halves of libfail-kernel.so share: the fail-nth file of the calling
 * thread (kernel.c) and the state of syscall user dispatch (dispatch.c). Runs inside the target:
 * the rules of libfail/internal.h apply.
 */
#ifndef LIBFAIL_KERNEL_H
#define LIBFAIL_KERNEL_H

#include "internal.h"

/* This thread's /proc/thread-self/fail-nth, opened on first use by this process; -1 when it
   cannot be opened. */
int kernel_failnth_fd(void) LF_HIDDEN;
/* Write N to the fail-nth file `fd`: the N-th fault point this thread passes from now on fails.
   False when the write did not happen. Leaves errno alone. */
bool kernel_arm(int fd, uint64_t nth) LF_HIDDEN;
/* After the armed call: read the counter back (0: the N-th point was reached), write 0, and
   record what happened; `error` is the call's errno when `failed`. Leaves errno alone. */
void kernel_disarm(const struct call *call, uint32_t function, uint64_t nth, int fd, bool failed,
                   int error) LF_HIDDEN;

/* Start trapping this process's system calls (from the constructor, after kernel.c's set-up).
   Falls back to the wrappers, with a message, where it cannot. */
void dispatch_start(void) LF_HIDDEN;
/* True while system calls are trapped: the wrappers of kernel.c then only pass through. */
bool dispatch_active(void) LF_HIDDEN;

#endif
