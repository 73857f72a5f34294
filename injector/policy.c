/*
 * policy.c — the NOFAIL eligibility rule (see policy.h).
 */
#include "policy.h"
#include "util.h"

#include <string.h>

bool site_nofail_eligible(bool nofail, const char *function, uint64_t max_size,
                          uint64_t threshold)
{
    if (nofail)
        return true;
    return function && strcmp(function, "failpoint") != 0 && max_size <= threshold;
}

char *failable_sites_condition(const struct campaign_settings *settings)
{
    if (!settings->policy_nofail)
        return xstrdup("NOT nofail");
    return xasprintf("NOT nofail AND (function = 'failpoint' OR max_size > %llu)",
                     (unsigned long long)settings->nofail_below);
}
