/* test_shelf.c — the test of libshelf: prints what the library returned, and fails (exit 1) when
   shelf_rename's name is not there, as a test framework's assertion would. */
#include "shelf.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf escape;

static void leave_early(int item)
{
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
    shelf_close(shelf);
    return 0;
}
