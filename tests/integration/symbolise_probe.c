/*
 * symbolise_probe.c — what injector/symbols/symbolise.c says about addresses, for test_debuginfo.sh.
 *
 * Why a probe: the reports print only what report.c asks the symboliser for; the integration
 * test also needs symboliser_function, symboliser_has_debug_info and symboliser_debug_hint
 * answered against a real debuginfod server, through the same code failrun links.
 *
 *   symbolise_probe FILE [HEX_OFFSET...]
 * prints "debug-info yes|no", "hint <line>" when no (as a report would; else "hint -"), then for each offset (taken as an
 * exact pc) "HEX_OFFSET function <name> <hex start>" (or "... function -") and
 * "HEX_OFFSET lookup <function> <file>:<line>" of the outermost frame.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "symbols/symbolise.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: symbolise_probe FILE [HEX_OFFSET...]\n");
        return 2;
    }
    struct symboliser *s = symboliser_new();
    if (!s)
        return 1;
    const char *path = argv[1];
    bool debug_info = symboliser_has_debug_info(s, path);
    printf("debug-info %s\n", debug_info ? "yes" : "no");
    char *hint = debug_info ? NULL : symboliser_debug_hint(path);
    printf("hint %s\n", hint ? hint : "-");
    free(hint);
    for (int i = 2; i < argc; i++) {
        uint64_t offset = strtoull(argv[i], NULL, 16);
        uint64_t start;
        char name[256];
        if (symboliser_function(s, path, offset, false, &start, name, sizeof name))
            printf("%" PRIx64 " function %s %" PRIx64 "\n", offset, name, start);
        else
            printf("%" PRIx64 " function -\n", offset);
        struct symbol_frame frames[8];
        int n = symboliser_lookup(s, path, offset, false, frames, 8);
        const struct symbol_frame *outer = &frames[n - 1];
        printf("%" PRIx64 " lookup %s %s:%d\n", offset, outer->function, outer->file, outer->line);
    }
    symboliser_free(s);
    return 0;
}
