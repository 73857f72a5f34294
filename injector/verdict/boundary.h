/*
 * boundary.h — what the code under test told its caller (doc/guide/outcomes.md, "Outcomes").
 *
 * A fault run records the outermost call into the code under test that the fault fired in, and
 * what it returned (libfail/boundary.c, through the LD_AUDIT module injector/preload/audit.c).
 * Whether that value is an error report follows each function's convention: a --returns rule, or
 * what the unfailed runs taught (the classes of value the function returned there, record.h's
 * BOUNDARY_CLASS_*): a value of a class the function never returned unfailed is a report, and
 * so is an error-like value (NULL, negative, 0, false) it never returned at the same call.
 */
#ifndef FAILRUN_BOUNDARY_H
#define FAILRUN_BOUNDARY_H

#include <stdbool.h>
#include <stdint.h>

enum api_verdict {
    API_NONE,      /* the fault fired outside any call into the code under test, or it never
                      returned (crash, exit, longjmp) */
    API_UNKNOWN,   /* it returned, but no convention is known: the function never returned in
                      an unfailed run, and no rule names it */
    API_REPORTED,  /* it returned an error report */
    API_SWALLOWED, /* it returned a success value */
};

/* "FUNC=null|negative|zero|false". */
bool returns_rule_valid(const char *rule);
/* The verdict on `value` returned by `function`: by its rule in `rules` (':'-separated, NULL or
   "" for none) when there is one, else by `seen`, the classes it returned unfailed (0: none),
   and where those allow both readings, by `call_seen`, the classes it returned unfailed at the
   same call (the same return address): an error-like value never returned there is a report. */
enum api_verdict api_verdict(const char *rules, const char *function, uint64_t seen,
                             uint64_t call_seen, uint64_t value);
/* The error report a convention implies, for reports: "NULL", "a negative int", "0", "false",
   or "?" when none can be told; a rule's kind when a rule names the function. */
const char *api_convention(const char *rules, const char *function, uint64_t seen);
const char *api_verdict_name(enum api_verdict verdict);
/* Whether a --returns rule names `function`. */
bool api_convention_is_rule(const char *rules, const char *function);

#endif
