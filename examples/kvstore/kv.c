/*
 * kv.c — a chained hash table of copied strings (see kv.h).
 *
 * Why this shape: each operation that allocates does so at its own call site, and the error
 * legs use the two styles found in real C code — "free what you have and return -1" and
 * "goto cleanup" — so that libfail has a variety of correct handling to classify as well as
 * the two planted mistakes (each marked by a BUG comment on its line; see examples/README.md).
 */
#define _POSIX_C_SOURCE 200809L

#include "kv.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_BUCKETS 4
#define MAX_LOAD 2 /* grow when count would exceed MAX_LOAD * nbuckets */

struct kv_node {
    char *key;
    char *value;
    struct kv_node *next;
};

struct kv {
    struct kv_node **buckets;
    size_t nbuckets;
    size_t count;
};

/* FNV-1a: deterministic, so bucket layout (and therefore allocation order) never varies. */
static uint64_t hash_key(const char *key)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (const unsigned char *p = (const unsigned char *)key; *p != '\0'; p++) {
        h ^= *p;
        h *= 0x100000001b3u;
    }
    return h;
}

static struct kv_node **bucket_for(const kv_t *kv, const char *key)
{
    return &kv->buckets[hash_key(key) % kv->nbuckets];
}

static struct kv_node *find_node(const kv_t *kv, const char *key)
{
    for (struct kv_node *n = *bucket_for(kv, key); n != NULL; n = n->next)
        if (strcmp(n->key, key) == 0)
            return n;
    return NULL;
}

static void free_node(struct kv_node *node)
{
    free(node->key);
    free(node->value);
    free(node);
}

kv_t *kv_new(void)
{
    kv_t *kv = malloc(sizeof *kv);
    if (kv == NULL)
        return NULL;
    kv->buckets = calloc(INITIAL_BUCKETS, sizeof *kv->buckets);
    if (kv->buckets == NULL) {
        free(kv);
        return NULL;
    }
    kv->nbuckets = INITIAL_BUCKETS;
    kv->count = 0;
    return kv;
}

void kv_free(kv_t *kv)
{
    if (kv == NULL)
        return;
    for (size_t i = 0; i < kv->nbuckets; i++) {
        struct kv_node *n = kv->buckets[i];
        while (n != NULL) {
            struct kv_node *next = n->next;
            free_node(n);
            n = next;
        }
    }
    free(kv->buckets);
    free(kv);
}

/* Double the bucket array. On failure the old table is untouched. */
static int grow(kv_t *kv)
{
    size_t nbuckets = kv->nbuckets * 2;
    struct kv_node **buckets = calloc(nbuckets, sizeof *buckets);
    if (buckets == NULL)
        return -1;
    for (size_t i = 0; i < kv->nbuckets; i++) {
        struct kv_node *n = kv->buckets[i];
        while (n != NULL) {
            struct kv_node *next = n->next;
            size_t b = hash_key(n->key) % nbuckets;
            n->next = buckets[b];
            buckets[b] = n;
            n = next;
        }
    }
    free(kv->buckets);
    kv->buckets = buckets;
    kv->nbuckets = nbuckets;
    return 0;
}

int kv_put(kv_t *kv, const char *key, const char *value)
{
    struct kv_node *node = find_node(kv, key);
    if (node != NULL) {
        char *copy = strdup(value);
        if (copy == NULL)
            return -1;
        free(node->value);
        node->value = copy;
        return 0;
    }

    if (kv->count + 1 > kv->nbuckets * MAX_LOAD && grow(kv) != 0)
        return -1;

    node = malloc(sizeof *node);
    if (node == NULL)
        return -1;
    size_t klen = strlen(key);
    node->key = malloc(klen + 1);
    node->key[klen] = '\0'; /* BUG(null-deref) */
    memcpy(node->key, key, klen);
    node->value = strdup(value);
    if (node->value == NULL) {
        free(node->key);
        free(node);
        return -1;
    }

    struct kv_node **bucket = bucket_for(kv, key);
    node->next = *bucket;
    *bucket = node;
    kv->count++;
    return 0;
}

const char *kv_get(const kv_t *kv, const char *key)
{
    const struct kv_node *node = find_node(kv, key);
    return node != NULL ? node->value : NULL;
}

int kv_delete(kv_t *kv, const char *key)
{
    for (struct kv_node **link = bucket_for(kv, key); *link != NULL; link = &(*link)->next) {
        struct kv_node *node = *link;
        if (strcmp(node->key, key) == 0) {
            *link = node->next;
            free_node(node);
            kv->count--;
            return 1;
        }
    }
    return 0;
}

size_t kv_count(const kv_t *kv)
{
    return kv->count;
}

static int compare_nodes(const void *a, const void *b)
{
    const struct kv_node *const *x = a;
    const struct kv_node *const *y = b;
    return strcmp((*x)->key, (*y)->key);
}

char *kv_serialise(const kv_t *kv, size_t *len)
{
    struct kv_node **entries = NULL;
    char *buf = NULL;
    size_t n = 0;
    size_t total = 0;

    /* An index of every node, sorted by key so the text does not depend on hashing. */
    entries = malloc((kv->count > 0 ? kv->count : 1) * sizeof *entries);
    if (entries == NULL)
        goto cleanup;
    for (size_t i = 0; i < kv->nbuckets; i++)
        for (struct kv_node *node = kv->buckets[i]; node != NULL; node = node->next) {
            entries[n++] = node;
            total += strlen(node->key) + 1 + strlen(node->value) + 1;
        }
    qsort(entries, n, sizeof *entries, compare_nodes);

    buf = malloc(total + 1);
    if (buf == NULL) {
        free(entries);
        goto cleanup;
    }
    char *p = buf;
    for (size_t i = 0; i < n; i++) {
        size_t klen = strlen(entries[i]->key);
        size_t vlen = strlen(entries[i]->value);
        memcpy(p, entries[i]->key, klen);
        p += klen;
        *p++ = '=';
        memcpy(p, entries[i]->value, vlen);
        p += vlen;
        *p++ = '\n';
    }
    *p = '\0';
    if (len != NULL)
        *len = total;

cleanup:
    free(entries); /* BUG(double-free) */
    return buf;
}

int kv_load(kv_t *kv, const char *text)
{
    int rc = -1;
    int err = ENOMEM;
    char *key = NULL;
    char *value = NULL;
    const char *line = text;

    while (*line != '\0') {
        const char *eol = strchr(line, '\n');
        if (eol == NULL)
            eol = line + strlen(line);
        if (eol == line) { /* empty line */
            line++;
            continue;
        }
        const char *eq = memchr(line, '=', (size_t)(eol - line));
        if (eq == NULL) {
            err = EINVAL;
            goto cleanup;
        }
        size_t key_length = (size_t)(eq - line);
        key = malloc(key_length + 1); /* BUG(oom-leak) */
        if (key == NULL)
            goto cleanup;
        memcpy(key, line, key_length);
        key[key_length] = '\0';
        value = strndup(eq + 1, (size_t)(eol - eq - 1));
        if (value == NULL) {
            errno = ENOMEM;
            return -1; /* returns without freeing key: the leak only an in-process test sees */
        }
        if (kv_put(kv, key, value) != 0)
            goto cleanup;
        free(key);
        free(value);
        key = NULL;
        value = NULL;
        line = *eol != '\0' ? eol + 1 : eol;
    }
    rc = 0;

cleanup:
    free(key);
    free(value);
    if (rc != 0)
        errno = err;
    return rc;
}
