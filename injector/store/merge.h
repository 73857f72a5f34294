/*
 * merge.h — joining the database of one shard of a campaign (failrun run --shard K/N) into the
 * merged output (failrun merge, cmd_merge.c): one input at a time, in one transaction, in the
 * order the inputs are given.
 */
#ifndef FAILRUN_STORE_MERGE_H
#define FAILRUN_STORE_MERGE_H

#include <sqlite3.h>
#include <stdbool.h>

/* Attach `input` to the output `db` as src and begin the input's transaction. */
void store_merge_begin(sqlite3 *db, const char *input);
/* The first input: its campaign row becomes the output's. */
void store_merge_campaign(sqlite3 *db);
/* A later input: is its campaign the output's (command, folder, depth, scope, shard count,
   --faults, --source, --wrapper), and does it repeat a shard already merged? */
void store_merge_compare(sqlite3 *db, bool *same, bool *repeated);
/* Everything else of the attached input (`first`: the first one given): modules, programs,
   runs, sites, live blocks, processes, findings and coverage, then its transaction committed
   and the input detached. */
void store_merge_shard(sqlite3 *db, bool first);

#endif
