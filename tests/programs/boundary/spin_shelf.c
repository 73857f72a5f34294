/* spin_shelf.c — a test of libshelf that ignores shelf_label's NULL, as libyaml's test-reader
   ignores yaml_parser_initialize's 0: it then waits for a label that never comes, calling the
   library again and again. The library reported its out-of-memory; the hang is the test's
   (test_boundary.sh). */
#include "shelf.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    char *label = shelf_label("spin");
    while (!label) { /* the test's own wait: never ends once NULL */
        char *other = shelf_label("retry"); /* a call only this way reaches */
        free(other);
    }
    printf("label: %s (%d)\n", label, shelf_count(label));
    free(label);
    return 0;
}
