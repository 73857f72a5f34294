/* symbolise_sites.c — the symbolisation benchmark: symbolises every frame of every site in a
   campaign database the way `failrun report` symbolises a finding's stack (one symboliser, so
   each module is opened once), and prints "SITES FRAMES MICROSECONDS" for the whole pass.
   `failrun report` itself only symbolises findings, so timing it says little per site.
   With --runs it prints the number of runs in the database instead (no sqlite3 tool needed). */
#include "store/campaign.h"
#include "store/database.h"
#include "store/ingest.h"
#include "symbols/symbolise.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_microseconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--runs")) {
        sqlite3 *db = database_open(argv[2], false);
        sqlite3_stmt *runs = database_prepare(db, "SELECT count(*) FROM runs");
        printf("%lld\n", sqlite3_step(runs) == SQLITE_ROW ? sqlite3_column_int64(runs, 0) : 0);
        sqlite3_finalize(runs);
        sqlite3_close(db);
        return 0;
    }
    if (argc != 2) {
        fputs("usage: symbolise_sites [--runs] CAMPAIGN.db\n", stderr);
        return 2;
    }
    sqlite3 *db = database_open(argv[1], false);
    struct module_map map;
    module_map_load(db, &map);
    sqlite3_stmt *sites = database_prepare(db, "SELECT frames FROM sites");
    double start = now_microseconds();
    struct symboliser *symboliser = symboliser_new();
    long site_count = 0, frame_count = 0;
    while (sqlite3_step(sites) == SQLITE_ROW) {
        struct frame_list frames = {0};
        if (!frames_from_json((const char *)sqlite3_column_text(sites, 0), &frames))
            continue;
        for (int i = 0; i < frames.count; i++) {
            const char *path = module_map_path(&map, frames.frames[i].module);
            struct symbol_frame symbols[16];
            if (path)
                symboliser_lookup(symboliser, path, frames.frames[i].offset, true, symbols, 16);
            frame_count++;
        }
        site_count++;
    }
    symboliser_free(symboliser);
    double elapsed = now_microseconds() - start;
    sqlite3_finalize(sites);
    module_map_free(&map);
    sqlite3_close(db);
    printf("%ld %ld %.0f\n", site_count, frame_count, elapsed);
    return 0;
}
