/*
 * classify.h — what a fault run's program did, as one outcome (doc/guide/outcomes.md).
 * Pure functions of what was observed, so every rule is unit-tested without running anything.
 */
#ifndef FAILRUN_CLASSIFY_H
#define FAILRUN_CLASSIFY_H

#include <stdbool.h>

enum outcome {
    OUTCOME_ABSORBED,    /* exit status and output as in the baseline */
    OUTCOME_HANDLED,     /* an error exit after the failure unwound out of its caller, or a message
                            with output identical to the baseline's */
    OUTCOME_OOM_ABORT,   /* the process ended inside the function whose allocation failed (xmalloc) */
    OUTCOME_CRASH,       /* fatal signal, failed assertion, heap-corruption abort */
    OUTCOME_SILENT,      /* same exit status, different stdout, whatever stderr says */
    OUTCOME_HANG,        /* timeout */
    OUTCOME_LEAK,        /* never a run's outcome: the kind of a finding about a confirmed leak, which
                            is a second property of a run (leak_possible below) */
    OUTCOME_NOT_REACHED, /* the planned fault never fired */
    OUTCOME_SANITIZER,   /* a sanitizer report (use after free, double free, leak, UB) */
    OUTCOME_KERNEL,      /* never a run's outcome: the kind of a finding about a report of the
                            kernel's own (WARN, BUG, oops, lockdep) printed during an armed call
                            of failrun kernel */
    OUTCOME_CALLER_CRASH, /* with a source scope (--source), a crash of the caller's code after the
                             code under test returned (a test's strcmp or assert of the NULL it
                             got), or an assert at the entry it called with that NULL (judge.c
                             caller_crash). Not a finding; set by the judge, never by classify */
    OUTCOME_REPORTED,    /* the code under test returned an error report to its caller (judge.c,
                            boundary): what the caller did next (other output) is its reaction,
                            not a finding. Set by the judge, never by classify */
    OUTCOME_SWALLOWED,   /* the code under test returned success although its own allocation failed
                            inside the call, and the run then differed (a failed test, other
                            output): the library's finding. Set by the judge */
    OUTCOME_COUNT
};

struct observation {
    bool fault_fired;
    bool timed_out;
    int exit_code;        /* of the command failrun started */
    int signal;           /* that ended the command, 0 if none */
    int crash_signal;     /* a fatal signal recorded in any process of the run, 0 if none */
    bool stdout_same;     /* as in the baseline */
    bool stderr_same;
    const char *stderr_text;
    bool ended_in_caller; /* the failed allocation's caller is on the exit or abort stack */
    bool in_allocator;    /* the fatal signal came from inside malloc/free (heap corruption) */
    bool sanitizer;       /* a sanitizer report the baseline did not have */
    bool sanitizer_crash; /* ... about a fatal signal (SEGV) it caught */
};

struct baseline_observation {
    int exit_code;
    int signal;
};

enum outcome classify(const struct observation *run, const struct baseline_observation *baseline);
/* Whether a run may be checked for leaks: the process that had the fault ended as in the
   baseline, with its exit status (an error exit, a crash or a kill leaves blocks live on purpose,
   or by accident of the bug). `outcome` is classify's for the same observation. */
bool leak_possible(enum outcome outcome, const struct observation *run,
                   const struct baseline_observation *baseline);
const char *outcome_name(enum outcome outcome);
/* -1 when the name is unknown. */
int outcome_from_name(const char *name);
bool outcome_is_bug(enum outcome outcome);
/* glibc's heap-corruption and assertion messages: an abort with one of these is a crash. */
bool stderr_reports_corruption(const char *text);

#endif
