/* fuzz_plan.c — libFuzzer target: the plan parser (libfail/format/plan.c), the preload's command line,
   which runs inside the target on whatever LIBFAIL_PLAN holds. A plan it accepts must be
   consistent; one it rejects must leave PLAN_OFF. */
#include "format/plan.h"
#include "format/text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct plan plan;
    const char *error = plan_parse(text, &plan);
    if (error && plan.mode != PLAN_OFF)
        __builtin_trap();
    if (!error && (plan.mode == PLAN_OFF || plan.depth < 1 || plan.depth > RECORD_MAX_FRAMES ||
                   plan.fault_count > PLAN_MAX_FAULTS ||
                   (plan.mode == PLAN_SITE && plan.fault_count == 0)))
        __builtin_trap();
    free(text);
    return 0;
}
