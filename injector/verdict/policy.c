/*
 * policy.c — the NOFAIL eligibility rule (see policy.h).
 */
#include "verdict/policy.h"
#include "store/database.h"
#include "symbols/symbolise.h"
#include "base/util.h"

#include <string.h>

bool site_nofail_eligible(bool nofail, enum function_kind kind, uint64_t max_size,
                          uint64_t threshold)
{
    if (kind == KIND_IO)
        return false;
    if (nofail)
        return true;
    return kind == KIND_ALLOC && max_size <= threshold;
}

struct store_failable failable_sites(const struct campaign_settings *settings)
{
    /* Sites outside --source (source.c) are recorded but never failed: the store's rule. */
    return (struct store_failable){settings->policy_nofail, settings->nofail_below};
}

/* The campaign's modules, loaded again only when a frame names one the copy lacks (a module
   first seen in this run): this is asked for every new site of every run. */
static const struct module_map *modules_for(sqlite3 *db, const struct frame_list *frames)
{
    static struct module_map map;
    static sqlite3 *loaded_from;
    bool current = loaded_from == db;
    for (int i = 0; current && i < frames->count; i++) /* module 0: none known (a JIT's) */
        current = !frames->frames[i].module ||
                  module_map_path(&map, frames->frames[i].module) != NULL;
    if (!current) {
        module_map_free(&map);
        module_map_load(db, &map);
        loaded_from = db;
    }
    return &map;
}

bool frames_are_instrumentation(sqlite3 *db, const struct frame_list *frames)
{
    static struct symboliser *symboliser;
    const struct module_map *modules = modules_for(db, frames);
    int own = first_own_frame(modules, frames);
    const char *path = own >= 0 ? module_map_path(modules, frames->frames[own].module) : NULL;
    if (path && !symboliser)
        symboliser = symboliser_new();
    char function[256] = "";
    /* The out-of-line function: libgcov's are never inlined into the program's code. */
    bool named = path && symboliser &&
                 symboliser_function(symboliser, path, frames->frames[own].offset, true, NULL,
                                     function, sizeof function);
    /* libgcov's functions: __gcov_exit, __gcov_dump, gcov_do_dump, gcov_write_*, ... */
    return named && (!strncmp(function, "__gcov_", 7) || !strncmp(function, "gcov_", 5));
}
