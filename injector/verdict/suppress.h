/*
 * suppress.h — suppression rules for findings (see suppress.c for the file format).
 */
#ifndef FAILRUN_SUPPRESS_H
#define FAILRUN_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>

struct suppressions;

/* One symbolised frame of a finding's stack, as matched against the rules. */
struct suppress_frame {
    const char *function; /* may be NULL */
    const char *module;   /* path */
    const char *file;     /* source file, may be NULL or "" */
};

/* The bundled rules (when `defaults`) and those of each file in the NULL-terminated `files`.
   A file that cannot be read, or a line that is not a rule, ends failrun with its file:line. */
struct suppressions *suppressions_load(const char *const *files, bool defaults);
void suppressions_free(struct suppressions *list);
/* The rule (as written) that hides a finding of `kind` with this stack, or NULL. */
const char *suppressions_match(const struct suppressions *list, const char *kind,
                               const struct suppress_frame *frames, size_t count);
size_t suppressions_count(const struct suppressions *list);

#endif
