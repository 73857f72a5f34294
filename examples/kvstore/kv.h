/*
 * kv.h — a tiny in-memory string key-value store.
 *
 * Why it exists: it is an example target for libfail. It is small enough to read in one
 * sitting but allocates in the ways real libraries do (a table, nodes, copied strings, a
 * growing bucket array, a serialisation buffer), so every allocation site has an error leg
 * that fault injection can exercise. Two of those legs are deliberately wrong; see
 * examples/README.md.
 *
 * Conventions: functions that can run out of memory return -1 (or NULL) and leave the store
 * unchanged; they never print anything — reporting is the caller's job.
 */
#ifndef KV_H
#define KV_H

#include <stddef.h>

typedef struct kv kv_t;

/* A new, empty store. NULL when out of memory. */
kv_t *kv_new(void);

/* Free the store and every key and value in it. kv_free(NULL) does nothing. */
void kv_free(kv_t *kv);

/* Insert or replace. Key and value are copied. 0 on success, -1 when out of memory. */
int kv_put(kv_t *kv, const char *key, const char *value);

/* The value stored for key, or NULL. Valid until the key is next put or deleted. */
const char *kv_get(const kv_t *kv, const char *key);

/* Remove key. 1 when it was present, 0 when it was not. */
int kv_delete(kv_t *kv, const char *key);

/* Number of keys in the store. */
size_t kv_count(const kv_t *kv);

/*
 * Render the store as "key=value\n" lines sorted by key, NUL-terminated. The caller frees
 * the result. *len (when not NULL) receives the length without the NUL. NULL when out of
 * memory.
 */
char *kv_serialise(const kv_t *kv, size_t *len);

/*
 * Add every "key=value" line of text to the store (a missing final newline is fine, empty
 * lines are skipped). 0 on success; -1 when out of memory or when a line has no '=' (errno
 * is ENOMEM or EINVAL). Lines loaded before the failure stay in the store.
 */
int kv_load(kv_t *kv, const char *text);

#endif
