/*
 * libfail.h — the public interface of libfail, the allocation-failure injector.
 *
 * Most users never include this: `failrun run -- CMD` injects failures into unmodified programs
 * through libfail-preload.so. Programs that link libfail (-lfail, `pkg-config --libs libfail`) can
 * ask for the signature of their current calling context, the identity failrun reports sites by.
 */
#ifndef LIBFAIL_H
#define LIBFAIL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBFAIL_VERSION "0.1.0"

/* The library's version string, e.g. "0.1.0". */
const char *lf_version(void);

/* The site signature of the caller's calling context, `depth` frames deep (1..28; 0 means the
   default of 8): the same value failrun shows as a site id, stable across runs and under ASLR. */
uint64_t lf_site_signature(unsigned depth);

#ifdef __cplusplus
}
#endif
#endif
