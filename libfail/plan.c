/*
 * plan.c — parse the fault plan a run receives in LIBFAIL_PLAN.
 *
 * One plan per run (DESIGN.md "Fault plan"): record only, fail one site at its K-th occurrence,
 * or fail the N-th call with the kernel's fail-nth semantics.
 * Runs inside the target before anything else is set up: no allocation, no stdio.
 * Grammar: key=value pairs separated by ';'. Keys: mode (record|site|nth), site (16 hex digits),
 * occurrence (>= 1), nth (>= 1), depth (1..RECORD_MAX_FRAMES).
 */
#include "internal.h"

#include <string.h>

static bool LF_TEXT key_is(const char *key, size_t length, const char *name)
{
    return strlen(name) == length && memcmp(key, name, length) == 0;
}

static const char *LF_TEXT plan_set(struct plan *plan, const char *key, size_t key_length,
                                    const char *value, size_t value_length)
{
    uint64_t number;
    if (key_is(key, key_length, "mode")) {
        if (key_is(value, value_length, "record"))
            plan->mode = PLAN_RECORD;
        else if (key_is(value, value_length, "site"))
            plan->mode = PLAN_SITE;
        else if (key_is(value, value_length, "nth"))
            plan->mode = PLAN_NTH;
        else
            return "mode must be record, site or nth";
    } else if (key_is(key, key_length, "site")) {
        if (value_length != 16 || !parse_hex(value, value_length, &plan->site))
            return "site must be 16 hex digits";
    } else if (key_is(key, key_length, "occurrence")) {
        if (!parse_decimal(value, value_length, &number) || number == 0)
            return "occurrence must be a whole number >= 1";
        plan->occurrence = number;
    } else if (key_is(key, key_length, "nth")) {
        if (!parse_decimal(value, value_length, &number) || number == 0)
            return "nth must be a whole number >= 1";
        plan->nth = number;
    } else if (key_is(key, key_length, "depth")) {
        if (!parse_decimal(value, value_length, &number) || number == 0 ||
            number > RECORD_MAX_FRAMES)
            return "depth must be between 1 and 28";
        plan->depth = (unsigned)number;
    } else {
        return "unknown key";
    }
    return NULL;
}

const char *LF_TEXT plan_parse(const char *text, struct plan *out)
{
    struct plan plan = {.mode = PLAN_OFF, .occurrence = 1, .depth = LF_DEFAULT_DEPTH};
    bool have_site = false;
    *out = (struct plan){.mode = PLAN_OFF, .occurrence = 1, .depth = LF_DEFAULT_DEPTH};
    if (!text || !*text)
        return "empty plan";
    while (*text) {
        const char *end = strchr(text, ';');
        size_t length = end ? (size_t)(end - text) : strlen(text);
        const char *equals = memchr(text, '=', length);
        if (!equals)
            return "expected key=value";
        size_t key_length = (size_t)(equals - text);
        const char *error = plan_set(&plan, text, key_length, equals + 1, length - key_length - 1);
        if (error)
            return error;
        if (key_is(text, key_length, "site"))
            have_site = true;
        text = end ? end + 1 : text + length;
    }
    if (plan.mode == PLAN_OFF)
        return "missing mode";
    if (plan.mode == PLAN_SITE && !have_site)
        return "mode=site needs site=";
    if (plan.mode == PLAN_NTH && plan.nth == 0)
        return "mode=nth needs nth=";
    *out = plan;
    return NULL;
}

bool LF_TEXT fail_nth_tick(uint64_t *counter)
{
    if (*counter == 0)
        return false;
    return --*counter == 0;
}
