/*
 * attributes.h — how code that may run inside the target is marked: its own text section,
 * hidden visibility.
 *
 * The files of libfail/format/ are compiled twice: into the in-target core (where these
 * attributes matter to stack walks) and into failrun (where they are harmless).
 */
#ifndef LIBFAIL_FORMAT_ATTRIBUTES_H
#define LIBFAIL_FORMAT_ATTRIBUTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every function of the in-target core lives in this section, so a stack walk can skip exactly
   our own frames whether libfail is preloaded, linked as libfail.so or linked statically. */
#define LF_TEXT __attribute__((section("libfail_text"), noinline))
#define LF_HIDDEN __attribute__((visibility("hidden")))
#define LF_EXPORT __attribute__((visibility("default")))
/* Hot helpers: inlined into their LF_TEXT caller, so their code lives in its section (a stack
   walk never sees a frame of theirs) and a call costs nothing. */
#define LF_INLINE static inline __attribute__((always_inline))
#define LF_LIKELY(x) __builtin_expect(!!(x), 1)
#define LF_UNLIKELY(x) __builtin_expect(!!(x), 0)

#endif
