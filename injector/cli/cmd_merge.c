/*
 * cmd_merge.c — `failrun merge A.db B.db ... -o all.db`: join the databases of a campaign run as
 * shards (--shard K/N) on several machines into one, as if it had run in one place.
 *
 * Each input is checked here, then joined by store/merge.c, in SQL over the ATTACHed input.
 */
#include "store/campaign.h"
#include "cli/commands.h"
#include "store/database.h"
#include "store/merge.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void take_output(void *target, const char *value) { *(const char **)target = value; }

static const struct option_row merge_rows[] = {
    {"output", 'o', OPTION_REQUIRED, "OUTPUT.db", OPTION_INVOCATION,
     "the merged database (must not exist yet)", take_output},
    {NULL, 0, OPTION_FLAG, NULL, OPTION_INVOCATION, NULL, NULL},
};

const struct option_table merge_options_table = {
    .synopsis =
        "usage: failrun merge INPUT.db [INPUT.db ...] -o OUTPUT.db\n"
        "\n"
        "Join the databases of one campaign run in shards (failrun run --shard K/N) into one, then\n"
        "`failrun report --db OUTPUT.db` shows the whole campaign. The inputs must be campaigns of\n"
        "the same command in the same folder; OUTPUT.db must not exist yet.\n"
        "Coverage each input has read (failrun cov --db INPUT.db) is joined too: `failrun cov\n"
        "--db OUTPUT.db` then gives what the unsharded campaign gives.\n"
        "\n",
    .rows = merge_rows,
    .operands_anywhere = true,
};

static void check_same_campaign(sqlite3 *db, const char *input)
{
    bool same, repeated;
    store_merge_compare(db, &same, &repeated);
    if (!same)
        fatal("%s is a campaign of another command, folder, depth, shard count, --faults, "
              "--source or --wrapper; merge only the shards of one campaign", input);
    if (repeated)
        warn("%s repeats a shard already merged; its runs are kept once", input);
}

static void merge_input(sqlite3 *db, const char *input, bool first)
{
    sqlite3 *check = database_open(input, false); /* a clear error for a foreign file */
    database_close(check);
    store_merge_begin(db, input);
    if (first)
        store_merge_campaign(db);
    else
        check_same_campaign(db, input);
    store_merge_shard(db, first);
}

int cmd_merge(int argc, char **argv)
{
    const char *output = NULL;
    int optind = options_parse(&merge_options_table, argc, argv, &output);
    if (optind < 0) {
        options_usage(&merge_options_table, stdout);
        return 0;
    }
    if (!output)
        fatal("give the merged database with -o OUTPUT.db");
    if (optind >= argc)
        fatal("give the shard databases to merge: failrun merge A.db B.db ... -o %s", output);
    if (access(output, F_OK) == 0)
        fatal("%s exists already; remove it or choose another -o", output);
    /* Check every input before writing anything, so a refused merge leaves no output behind. */
    struct campaign_settings first = {0};
    for (int i = optind; i < argc; i++) {
        sqlite3 *input = database_open(argv[i], false);
        struct campaign_settings settings = {0};
        if (!campaign_load(input, &settings))
            fatal("%s holds no campaign; merge the databases of `failrun run --shard K/N`",
                  argv[i]);
        database_close(input);
        char *left = argv_to_json(i == optind ? settings.argv : first.argv);
        char *right = argv_to_json(settings.argv);
        if (i > optind && (strcmp(left, right) || strcmp(first.cwd, settings.cwd) ||
                           first.depth != settings.depth || first.shards != settings.shards ||
                           first.fault_kinds != settings.fault_kinds))
            fatal("%s is a campaign of another command, folder, depth, shard count or --faults; "
                  "merge only the shards of one campaign", argv[i]);
        free(left);
        free(right);
        if (i == optind)
            first = settings;
        else
            campaign_settings_free(&settings);
    }
    campaign_settings_free(&first);
    sqlite3 *db = database_open(output, true);
    for (int i = optind; i < argc; i++)
        merge_input(db, argv[i], i == optind);
    database_close(db);
    return 0;
}
