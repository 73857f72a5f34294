/*
 * classify.c — the outcome rules. Order matters: a hang or a crash outranks everything the
 * process might have printed; an exit status other than the baseline's is the program reporting
 * the failure; with the baseline's status, different output is a bug whatever stderr says (a
 * warning printed on the way to a wrong result is no report). Leaks are not an outcome: a run is
 * judged first, then checked for leaks if it ended as the baseline did (leak_possible).
 */
#include "verdict/classify.h"

#include <signal.h>
#include <string.h>

static const char *const names[OUTCOME_COUNT] = {
    [OUTCOME_ABSORBED] = "absorbed", [OUTCOME_HANDLED] = "handled",
    [OUTCOME_OOM_ABORT] = "oom-abort", [OUTCOME_CRASH] = "crash",
    [OUTCOME_SILENT] = "silent",     [OUTCOME_HANG] = "hang",
    [OUTCOME_LEAK] = "leak",         [OUTCOME_NOT_REACHED] = "not-reached",
    [OUTCOME_SANITIZER] = "sanitizer", [OUTCOME_KERNEL] = "kernel",
    [OUTCOME_CALLER_CRASH] = "caller-crash", [OUTCOME_REPORTED] = "reported",
    [OUTCOME_SWALLOWED] = "swallowed",
};

const char *outcome_name(enum outcome outcome)
{
    return outcome < OUTCOME_COUNT ? names[outcome] : "?";
}

int outcome_from_name(const char *name)
{
    for (int i = 0; i < OUTCOME_COUNT; i++)
        if (name && strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

bool outcome_is_bug(enum outcome outcome)
{
    return outcome == OUTCOME_CRASH || outcome == OUTCOME_SILENT || outcome == OUTCOME_HANG ||
           outcome == OUTCOME_LEAK || outcome == OUTCOME_SANITIZER || outcome == OUTCOME_KERNEL ||
           outcome == OUTCOME_SWALLOWED;
}

bool stderr_reports_corruption(const char *text)
{
    static const char *const markers[] = {
        "double free", "free(): ", "malloc(): ", "realloc(): ", "corrupted", "munmap_chunk(): ",
        "malloc_consolidate(): ", "Assertion `", "stack smashing detected", "buffer overflow detected",
    };
    for (size_t i = 0; text && i < sizeof markers / sizeof markers[0]; i++)
        if (strstr(text, markers[i]))
            return true;
    return false;
}

enum outcome classify(const struct observation *run, const struct baseline_observation *baseline)
{
    if (!run->fault_fired)
        return OUTCOME_NOT_REACHED;
    if (run->timed_out)
        return OUTCOME_HANG;
    if (run->sanitizer)
        return run->sanitizer_crash ? OUTCOME_CRASH : OUTCOME_SANITIZER;
    int signal = run->crash_signal;
    if (!signal && run->signal != baseline->signal)
        signal = run->signal;
    if (signal) {
        if (signal == SIGABRT && run->ended_in_caller && !run->in_allocator &&
            !stderr_reports_corruption(run->stderr_text))
            return OUTCOME_OOM_ABORT;
        return OUTCOME_CRASH;
    }
    if (run->exit_code != baseline->exit_code)
        return run->ended_in_caller ? OUTCOME_OOM_ABORT : OUTCOME_HANDLED;
    if (!run->stdout_same)
        return OUTCOME_SILENT;
    return run->stderr_same ? OUTCOME_ABSORBED : OUTCOME_HANDLED;
}

bool leak_possible(enum outcome outcome, const struct observation *run,
                   const struct baseline_observation *baseline)
{
    return (outcome == OUTCOME_ABSORBED || outcome == OUTCOME_HANDLED ||
            outcome == OUTCOME_SILENT) &&
           run->exit_code == baseline->exit_code;
}
