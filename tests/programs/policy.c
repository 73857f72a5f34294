/*
 * policy.c — the policy API under failrun: one allocation that may fail (LF_MAYFAIL, handled),
 * one that may not (LF_NOFAIL, no error leg), and a named failpoint (handled). Linked with
 * libfail.so; under the preload the preload's copy serves every call.
 */
#include <libfail.h>

#include <stdio.h>
#include <string.h>

static int load_config(void)
{
    char *buffer = lf_malloc(64, LF_MAYFAIL); /* SITE(mayfail) */
    if (!buffer) {
        fputs("policy: out of memory loading the config\n", stderr);
        return 2;
    }
    char *table = lf_malloc(128, LF_NOFAIL); /* SITE(nofail) */
    memset(table, 0, 128);                   /* no check: it cannot fail */
    lf_free(table);
    lf_free(buffer);
    return 0;
}

static int sync_journal(void)
{
    if (LF_FAILPOINT("journal-sync")) { /* SITE(failpoint) */
        fputs("policy: journal sync failed\n", stderr);
        return 3;
    }
    return 0;
}

int main(void)
{
    int status = load_config();
    if (status == 0)
        status = sync_journal();
    if (status == 0)
        puts("ok");
    return status;
}
