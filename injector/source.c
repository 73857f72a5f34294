/*
 * source.c — source scope (see source.h). Runs in failrun, never in the target.
 */
#include "source.h"
#include "campaign.h"
#include "database.h"
#include "symbolise.h"
#include "util.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool source_matches(const char *globs, const char *file)
{
    if (!globs || !*globs)
        return true;
    if (!file || !*file)
        return false;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    char *copy = xstrdup(globs), *saved = NULL;
    bool matched = false;
    for (char *glob = strtok_r(copy, ":", &saved); glob && !matched;
         glob = strtok_r(NULL, ":", &saved))
        matched = fnmatch(glob, file, 0) == 0 || fnmatch(glob, base, 0) == 0;
    free(copy);
    return matched;
}

char *source_globs_add(const char *existing, const char *argument)
{
    char *result = xstrdup(existing ? existing : "");
    char *copy = xstrdup(argument), *saved = NULL;
    for (char *glob = strtok_r(copy, ",", &saved); glob; glob = strtok_r(NULL, ",", &saved)) {
        char *joined = *result ? xasprintf("%s:%s", result, glob) : xstrdup(glob);
        free(result);
        result = joined;
    }
    free(copy);
    return result;
}

/* The DWARF file of a site's first own frame (the innermost, inlined or not), or "". */
static void first_own_file(struct symboliser *symboliser, const struct module_map *map,
                           const char *frames_json, char *file, size_t size)
{
    struct frame_list frames = {0};
    frames_from_json(frames_json, &frames);
    int own = first_own_frame(map, &frames);
    const char *path = own >= 0 ? module_map_path(map, frames.frames[own].module) : NULL;
    struct symbol_frame symbol[1];
    file[0] = '\0';
    if (path && symboliser &&
        symboliser_lookup(symboliser, path, frames.frames[own].offset, true, symbol, 1) >= 1)
        snprintf(file, size, "%s", symbol[0].file);
}

void sites_mark_source(sqlite3 *db, const char *globs)
{
    if (!globs || !*globs)
        return;
    static struct symboliser *symboliser; /* cached for the campaign: modules stay loaded */
    if (!symboliser)
        symboliser = symboliser_new();
    struct module_map map;
    module_map_load(db, &map);
    sqlite3_stmt *select =
        database_prepare(db, "SELECT id, frames FROM sites WHERE source IS NULL");
    sqlite3_stmt *update =
        database_prepare(db, "UPDATE sites SET source = ?, outside_source = ? WHERE id = ?");
    while (sqlite3_step(select) == SQLITE_ROW) {
        char file[512];
        first_own_file(symboliser, &map, (const char *)sqlite3_column_text(select, 1), file,
                       sizeof file);
        sqlite3_bind_text(update, 1, file, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(update, 2, !source_matches(globs, file));
        sqlite3_bind_text(update, 3, (const char *)sqlite3_column_text(select, 0), -1,
                          SQLITE_TRANSIENT);
        database_step_done(update);
    }
    database_finalize(update);
    database_finalize(select);
    module_map_free(&map);
}
