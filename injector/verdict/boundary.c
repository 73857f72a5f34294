/*
 * boundary.c — error conventions of the code under test's functions, and the verdict on what one
 * returned (boundary.h).
 */
#include "verdict/boundary.h"
#include "format/record.h"

#include <string.h>

enum report_kind { REPORT_NONE, REPORT_NULL, REPORT_NEGATIVE, REPORT_ZERO, REPORT_FALSE };

static const char *const kind_names[] = {
    [REPORT_NULL] = "null", [REPORT_NEGATIVE] = "negative", [REPORT_ZERO] = "zero",
    [REPORT_FALSE] = "false"};
static const char *const kind_texts[] = {
    [REPORT_NONE] = "?", [REPORT_NULL] = "NULL", [REPORT_NEGATIVE] = "a negative int",
    [REPORT_ZERO] = "0", [REPORT_FALSE] = "false"};

static enum report_kind kind_of(const char *text, size_t length)
{
    for (int kind = REPORT_NULL; kind <= REPORT_FALSE; kind++)
        if (strlen(kind_names[kind]) == length && !strncmp(text, kind_names[kind], length))
            return (enum report_kind)kind;
    return REPORT_NONE;
}

bool returns_rule_valid(const char *rule)
{
    const char *equals = strchr(rule, '=');
    return equals && equals > rule && !strchr(rule, ':') &&
           kind_of(equals + 1, strlen(equals + 1)) != REPORT_NONE;
}

/* The kind the rules give `function`; REPORT_NONE when no rule names it. */
static enum report_kind rule_for(const char *rules, const char *function)
{
    size_t name_length = strlen(function);
    for (const char *rule = rules; rule && *rule;) {
        const char *end = strchr(rule, ':');
        size_t length = end ? (size_t)(end - rule) : strlen(rule);
        const char *equals = memchr(rule, '=', length);
        if (equals && (size_t)(equals - rule) == name_length && !strncmp(rule, function, name_length))
            return kind_of(equals + 1, length - (size_t)(equals + 1 - rule));
        rule = end ? end + 1 : NULL;
    }
    return REPORT_NONE;
}

/* The report a learned convention implies: for a function that returned addresses, NULL; else
   the first of a negative int, 0 (false) that it never returned. */
static enum report_kind learned(uint64_t seen)
{
    if (!seen)
        return REPORT_NONE;
    if (seen & BOUNDARY_CLASS_WIDE)
        return seen & BOUNDARY_CLASS_NULL ? REPORT_NONE : REPORT_NULL;
    if (!(seen & BOUNDARY_CLASS_NEG32))
        return REPORT_NEGATIVE;
    if (!(seen & BOUNDARY_CLASS_ZERO32))
        return REPORT_ZERO;
    return REPORT_NONE;
}

static bool is_report(enum report_kind kind, uint64_t value)
{
    uint64_t classes = boundary_classes(value);
    switch (kind) {
    case REPORT_NULL: return classes & BOUNDARY_CLASS_NULL;
    case REPORT_NEGATIVE: return classes & BOUNDARY_CLASS_NEG32;
    case REPORT_ZERO: return classes & BOUNDARY_CLASS_ZERO32;
    case REPORT_FALSE: return classes & BOUNDARY_CLASS_FALSE8;
    default: return false;
    }
}

/* The verdict by the function's convention alone. */
static enum api_verdict function_verdict(uint64_t seen, uint64_t value)
{
    if (!seen)
        return API_UNKNOWN;
    uint64_t classes = boundary_classes(value);
    if (seen & BOUNDARY_CLASS_WIDE) { /* it returns addresses */
        if (!(classes & BOUNDARY_CLASS_NULL))
            return API_SWALLOWED;
        /* NULL from a function that also returned NULL unfailed (a lookup, a parser given bad
           input) cannot be told from a report. */
        return seen & BOUNDARY_CLASS_NULL ? API_UNKNOWN : API_REPORTED;
    }
    /* It returns ints (or bools). A value of a kind it never returned unfailed is a report; a
       negative it also returned unfailed may be a report of another error: unknown. */
    if (classes & BOUNDARY_CLASS_NEG32)
        return seen & BOUNDARY_CLASS_NEG32 ? API_UNKNOWN : API_REPORTED;
    if (classes & BOUNDARY_CLASS_ZERO32) {
        if (!(seen & BOUNDARY_CLASS_ZERO32))
            return API_REPORTED; /* false, or a count that is never 0 */
        /* 0 is success where the errors are negative; beside positive values and no negatives
           it may be false; where 0 is all it ever returned it may be an int's success or a
           pointer's NULL (a call the tests only make to see it fail): unknown. */
        return seen & BOUNDARY_CLASS_NEG32 ? API_SWALLOWED : API_UNKNOWN;
    }
    /* A positive int: success for a function that only returned such values unfailed (a count,
       true). Beside 0 and no negative it may be an error code as well as a count: libtasn1's
       functions return 0 for success and a positive ASN1_* code for each error
       (ASN1_MEM_ALLOC_ERROR when an allocation failed): unknown. */
    if (!(seen & BOUNDARY_CLASS_OTHER))
        return API_UNKNOWN;
    /* Where its errors are negative (a count, or -1), a positive value is success. */
    if (seen & BOUNDARY_CLASS_NEG32)
        return API_SWALLOWED;
    return seen & BOUNDARY_CLASS_ZERO32 ? API_UNKNOWN : API_SWALLOWED;
}

/* The error-like classes of a value: NULL, a negative int, an int 0, false; none when the
   function only ever returned 0 unfailed (an int or a pointer: its 0 may be success). */
static uint64_t error_like(uint64_t value, uint64_t seen)
{
    uint64_t classes = boundary_classes(value);
    if (!(seen & (BOUNDARY_CLASS_WIDE | BOUNDARY_CLASS_NEG32 | BOUNDARY_CLASS_OTHER)))
        return 0;
    if (seen & BOUNDARY_CLASS_WIDE)
        return classes & BOUNDARY_CLASS_NULL;
    return classes & (BOUNDARY_CLASS_NULL | BOUNDARY_CLASS_ZERO32 | BOUNDARY_CLASS_NEG32 |
                      BOUNDARY_CLASS_FALSE8);
}

enum api_verdict api_verdict(const char *rules, const char *function, uint64_t seen,
                             uint64_t call_seen, uint64_t value)
{
    enum report_kind kind = rule_for(rules, function);
    if (kind != REPORT_NONE)
        return is_report(kind, value) ? API_REPORTED : API_SWALLOWED;
    enum api_verdict verdict = function_verdict(seen, value);
    /* The function returns such values unfailed too (a parser given bad input, a lookup that
       finds nothing), but never did at this call: here the failure made it. */
    uint64_t error = error_like(value, seen);
    if (verdict == API_UNKNOWN && call_seen && error && !(call_seen & error))
        return API_REPORTED;
    /* Nor is there doubt where this call only ever returned such a value: it reported an
       error here unfailed too (a file the test expects to be missing), and still does. */
    if (verdict == API_UNKNOWN && call_seen && error && call_seen == boundary_classes(value))
        return API_REPORTED;
    /* A positive int at a call that never returned one unfailed (it returned 0 there: an
       ASN1_SUCCESS): the failure made it, an error code. */
    uint64_t classes = boundary_classes(value);
    if (verdict == API_UNKNOWN && call_seen && (classes & BOUNDARY_CLASS_OTHER) &&
        !(classes & (BOUNDARY_CLASS_NEG32 | BOUNDARY_CLASS_WIDE)) &&
        !(call_seen & BOUNDARY_CLASS_OTHER))
        return API_REPORTED;
    return verdict;
}

const char *api_convention(const char *rules, const char *function, uint64_t seen)
{
    enum report_kind kind = rule_for(rules, function);
    if (kind != REPORT_NONE)
        return kind_texts[kind];
    kind = learned(seen);
    if (kind == REPORT_NEGATIVE && !(seen & BOUNDARY_CLASS_ZERO32))
        return "a negative int, 0 or false";
    /* Only 0 unfailed: an int's success or a pointer's NULL, so only a negative int reports. */
    if (kind == REPORT_NEGATIVE && !(seen & (BOUNDARY_CLASS_WIDE | BOUNDARY_CLASS_OTHER)))
        return "a negative int (0, all it returned unfailed, tells nothing)";
    /* 0 and positive values unfailed: 0 success and positive error codes, or counts. */
    if (kind == REPORT_NEGATIVE && (seen & BOUNDARY_CLASS_OTHER) && (seen & BOUNDARY_CLASS_ZERO32))
        return "a negative int; a positive one at a call that only returned 0 unfailed";
    /* It returned such values unfailed too: they report where a call never returned them. */
    if (kind == REPORT_NONE && (seen & BOUNDARY_CLASS_WIDE))
        return "NULL, at a call that never returned it unfailed";
    if (kind == REPORT_NONE && (seen & BOUNDARY_CLASS_NEG32))
        return "a negative int, at a call that never returned one unfailed";
    return kind_texts[kind];
}

bool api_convention_is_rule(const char *rules, const char *function)
{
    return rule_for(rules, function) != REPORT_NONE;
}

const char *api_verdict_name(enum api_verdict verdict)
{
    switch (verdict) {
    case API_UNKNOWN: return "unknown";
    case API_REPORTED: return "reported";
    case API_SWALLOWED: return "swallowed";
    default: return NULL;
    }
}
