/* test_shelf.c — the test of libshelf: prints what the library returned, and fails (exit 1) when
   shelf_rename's name is not there, as a test framework's assertion would. */
#include "shelf.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf escape;

static void leave_early(int item)
{
    if (item == 1) {
        /* The callback calls the library again: a fault in this call is this call's. */
        char *inner = shelf_label("inner");
        printf("inner: %s\n", inner ? inner : "(none)");
        free(inner);
    }
    if (item == 2)
        longjmp(escape, 1);
}

int main(void)
{
    struct shelf *shelf = shelf_open();
    char *label = shelf_label("books");
    printf("label: %s\n", label ? label : "(none)");
    free(label);
    printf("count: %d\n", shelf_count("abc"));
    for (int item = 1; item <= 3; item++)
        if (shelf_store(shelf, item) != 0) {
            fprintf(stderr, "test_shelf: cannot store item %d\n", item);
            return 2;
        }
    /* The library is left by longjmp from inside a callback: later calls still count. */
    if (setjmp(escape) == 0)
        shelf_visit(shelf, leave_early);
    char *again = shelf_label("after the jump");
    printf("label: %s\n", again ? again : "(none)");
    free(again);
    if (!shelf_rename(shelf, "kitchen")) {
        fprintf(stderr, "test_shelf: rename failed\n");
        return 2;
    }
    if (!shelf_name(shelf)) {
        fprintf(stderr, "test_shelf: expected 'kitchen', was NULL\n");
        return 1;
    }
    printf("name: %s\n", shelf_name(shelf));
    /* One call parses good and bad text (NULL both for bad text and when out of memory); the
       other only good text: there NULL reports the failure. */
    const char *texts[] = {"12", "twelve"};
    for (int i = 0; i < 2; i++) {
        int *number = shelf_parse(texts[i]);
        printf("parsed %s: %d\n", texts[i], number ? *number : -1);
        free(number);
    }
    int *seven = shelf_parse("7");
    printf("seven: %d\n", seven ? *seven : -1);
    free(seven);
    /* Test code that hands the library's NULL back to it: shelf_width crashes on it. */
    char *wide = shelf_label("wide");
    printf("width: %d\n", shelf_width(wide));
    free(wide);
    /* Test code that leaks what it owns when a later call reports an error. */
    char *kept = shelf_label("kept");
    if (shelf_tag(shelf, "red") != 0) {
        printf("cannot tag\n");
        shelf_close(shelf);
        return 0;
    }
    printf("kept: %s\n", kept ? kept : "(none)");
    free(kept);
    shelf_close(shelf);
    return 0;
}
