/*
 * test_pack.c — collections of packs (injector/base/pack.c): the latest pack of each key, a
 * removal, a collection cut short by a kill and appended to after, and packs given back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/pack.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *work;

static int make_work(void **state)
{
    (void)state;
    char template[] = "/tmp/test_pack.XXXXXX";
    work = xstrdup(mkdtemp(template));
    return work ? 0 : -1;
}

static int remove_work(void **state)
{
    (void)state;
    remove_tree(work);
    free(work);
    return 0;
}

/* A folder WORK/NAME holding the files of `files` ("path=bytes" each, NULL-ended). */
static char *tree(const char *name, const char *const *files)
{
    char *folder = xasprintf("%s/%s", work, name);
    remove_tree(folder);
    for (size_t i = 0; files[i]; i++) {
        const char *equals = strchr(files[i], '=');
        char *path = xasprintf("%s/%.*s", folder, (int)(equals - files[i]), files[i]);
        char *parent = xstrdup(path);
        *strrchr(parent, '/') = '\0';
        assert_true(make_directories(parent));
        assert_true(write_whole_file(path, equals + 1, strlen(equals + 1)));
        free(parent);
        free(path);
    }
    return folder;
}

/* The key's pack as "path=bytes;..." in the pack's order, or NULL when it has none. */
static char *listing(const struct pack_index *index, const char *key)
{
    size_t length = 0;
    char *pack = pack_index_get(index, key, &length);
    if (!pack)
        return NULL;
    char *text = xstrdup("");
    struct pack_entry entry;
    size_t at = 0;
    while (pack_next(pack, length, &at, &entry)) {
        char *longer = xasprintf("%s%.*s=%.*s;", text, (int)entry.name_length, entry.name,
                                 (int)entry.length, entry.bytes);
        free(text);
        text = longer;
    }
    free(pack);
    return text;
}

/* A pack of one file, so that the order of a folder's files does not matter below. */
static void append_one(const char *collection, const char *key, const char *file)
{
    const char *files[] = {file, NULL};
    char *folder = tree("tree", files);
    assert_true(pack_append(folder, collection, key));
    free(folder);
}

static void test_the_latest_pack_of_each_key(void **state)
{
    (void)state;
    char *collection = xasprintf("%s/gcov.packs", work);
    const char *deep[] = {"a/b/c.gcda=one", NULL};
    char *folder = tree("deep", deep);
    assert_true(pack_append(folder, collection, "1-7"));
    append_one(collection, "2-7", "x.gcda=two");
    append_one(collection, "1-7", "y.gcda=three");
    assert_true(pack_append_removal(collection, "2-7"));
    append_one(collection, "3-7", "z.gcda=");
    struct pack_index *index = pack_index_load(collection);
    assert_non_null(index);
    char *first = listing(index, "1-7"), *third = listing(index, "3-7");
    assert_string_equal(first, "/y.gcda=three;"); /* the later pack replaced the earlier */
    assert_null(listing(index, "2-7"));             /* removed */
    assert_string_equal(third, "/z.gcda=;");
    assert_null(listing(index, "4-7"));             /* never packed */
    pack_index_free(index);
    free(first);
    free(third);
    /* A folder's whole tree, its path below the folder each file's name. */
    unlink(collection);
    assert_true(pack_append(folder, collection, "1-7"));
    index = pack_index_load(collection);
    first = listing(index, "1-7");
    assert_string_equal(first, "/a/b/c.gcda=one;");
    pack_index_free(index);
    free(first);
    assert_false(pack_append(folder, collection, "bad\nkey"));
    assert_null(pack_index_load("/nonexistent/gcov.packs"));
    free(folder);
    free(collection);
}

static void test_a_cut_pack_hides_only_itself(void **state)
{
    (void)state;
    char *collection = xasprintf("%s/cut.packs", work);
    append_one(collection, "a", "f=first");
    struct stat before;
    assert_int_equal(stat(collection, &before), 0);
    append_one(collection, "b", "f=second, which a kill cuts short");
    /* Killed halfway through b; the resumed campaign appends c after what is there. */
    assert_int_equal(truncate(collection, before.st_size + 30), 0);
    append_one(collection, "c", "f=third");
    struct pack_index *index = pack_index_load(collection);
    char *a = listing(index, "a"), *c = listing(index, "c");
    assert_string_equal(a, "/f=first;");
    assert_null(listing(index, "b"));
    assert_string_equal(c, "/f=third;");
    pack_index_free(index);
    free(a);
    free(c);
    free(collection);
}

static void test_a_released_pack_is_gone(void **state)
{
    (void)state;
    char *collection = xasprintf("%s/released.packs", work);
    append_one(collection, "a", "f=first");
    append_one(collection, "b", "f=second");
    struct pack_index *index = pack_index_load(collection);
    pack_index_release(index, "a");
    assert_null(listing(index, "a"));
    char *b = listing(index, "b");
    assert_string_equal(b, "/f=second;");
    free(b);
    assert_false(pack_index_all_released(index)); /* b is still to read: not to remove */
    struct pack_index *again = pack_index_load(collection); /* as a resumed failrun cov finds it */
    assert_null(listing(again, "a"));
    b = listing(again, "b");
    assert_string_equal(b, "/f=second;");
    free(b);
    pack_index_release(again, "b");
    assert_true(pack_index_all_released(again)); /* a was given back before it was read */
    pack_index_free(again);
    pack_index_release(index, "b");
    assert_true(pack_index_all_released(index));
    append_one(collection, "c", "f=third");
    assert_false(pack_index_all_released(index)); /* appended to since it was read */
    pack_index_free(index);
    free(collection);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_latest_pack_of_each_key),
        cmocka_unit_test(test_a_cut_pack_hides_only_itself),
        cmocka_unit_test(test_a_released_pack_is_gone),
    };
    return cmocka_run_group_tests(tests, make_work, remove_work);
}
