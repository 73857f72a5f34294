/* fixed_clock.c — a preload for make realworld and realworld-fork: time() answers one fixed instant.
 *
 * libxml2 2.9 seeds its dictionary and hash-table hashes from time(NULL), so whether two names
 * collide, and with it whether xmlHashAddEntry3 allocates a chain entry, changes from one second
 * to the next: a campaign that straddles a second plans other runs than one that does not, in
 * either mode. With the clock fixed, the program reaches the same sites in every run and a
 * disagreement between fork and re-run mode can only be the mode's. Nothing here allocates. */
#include <time.h>

time_t time(time_t *out)
{
    const time_t fixed = 1700000000; /* 2023-11-14, any constant would do */
    if (out)
        *out = fixed;
    return fixed;
}
