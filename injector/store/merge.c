/*
 * merge.c — `failrun merge`'s SQL (merge.h): a shard's database ATTACHed as src and joined into
 * the output, as if the campaign had run in one place. Run ids are shifted past those already
 * merged; the baseline comes from the first input; a fault run whose plan an earlier input
 * already ran (exploration can reach the same site from two shards) is kept once; findings are
 * joined by their deduplication key, the earliest run representing each.
 */
#include "store/merge.h"
#include "store/database.h"

static void bind_and_run(sqlite3 *db, const char *sql, int64_t offset)
{
    sqlite3_stmt *statement = database_prepare(db, sql);
    for (int i = 1; i <= sqlite3_bind_parameter_count(statement); i++)
        sqlite3_bind_int64(statement, i, offset);
    database_step_done(statement);
    database_finalize(statement);
}

void store_merge_begin(sqlite3 *db, const char *input)
{
    char *attach = sqlite3_mprintf("ATTACH %Q AS src", input);
    database_exec(db, attach);
    sqlite3_free(attach);
    database_exec(db, "BEGIN IMMEDIATE");
}

void store_merge_campaign(sqlite3 *db)
{
    database_exec(db, "INSERT INTO main.campaign SELECT * FROM src.campaign");
}

void store_merge_compare(sqlite3 *db, bool *same, bool *repeated)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT (SELECT count(*) FROM src.campaign s JOIN main.campaign m"
            "  ON s.command = m.command AND s.cwd = m.cwd AND s.depth = m.depth"
            "  AND s.scope IS m.scope AND s.shards = m.shards AND s.faults = m.faults"
            "  AND s.source = m.source AND s.wrappers = m.wrappers),"
            " (SELECT count(*) FROM src.campaign c JOIN main.campaign m ON c.shard = m.shard"
            "  AND m.shards > 1)");
    sqlite3_step(statement);
    *same = sqlite3_column_int(statement, 0) == 1;
    *repeated = sqlite3_column_int(statement, 1) > 0;
    database_finalize(statement);
}

/* Coverage (failrun cov's tables, coverage.c): files and data files by path, each copied run's
   counts under its new id. A run whose counts the output has already (the baseline, from the
   first input that read it) keeps them; each shard's gcov data may be gone (failrun cov removes
   it), so everything comes from the tables.
   A fault run stores a data file as its differences from its own campaign's baseline copy, or
   names another run whose rows to use (cov_run_data.source). The output keeps the first input's
   baseline: where this shard's baseline copy of a data file has other bytes than the output's
   (`differs`), a copy that leaned on this shard's baseline is stored whole instead, the shard
   baseline's rows under the run's own. */
#define SHARD_BASELINE "(SELECT min(id) FROM src.runs WHERE kind = 'baseline')"
#define OUTPUT_BASELINE "(SELECT min(id) FROM main.runs WHERE kind = 'baseline')"

static void merge_cov_hits(sqlite3 *db, const char *table, const char *columns)
{
    char *sql = sqlite3_mprintf(
        /* the rows of the run (or the run not copied) the copy used */
        "INSERT OR IGNORE INTO main.%s SELECT d.new, d.new_data, f.new, %s FROM temp.cov_copy d"
        " JOIN src.%s h ON h.run = d.source AND h.data = d.data"
        " JOIN temp.cov_file_map f ON f.old = h.file WHERE d.own;"
        /* a difference from this shard's baseline, made whole: its rows where it has none */
        "INSERT OR IGNORE INTO main.%s SELECT d.new, d.new_data, f.new, %s FROM temp.cov_copy d"
        " JOIN src.%s h ON h.run = " SHARD_BASELINE " AND h.data = d.data"
        " JOIN temp.cov_file_map f ON f.old = h.file WHERE d.own AND d.differs"
        " AND d.source_delta;",
        table, columns, table, table, columns, table);
    database_exec(db, sql);
    sqlite3_free(sql);
}

static void merge_coverage(sqlite3 *db)
{
    database_exec(db, "INSERT OR IGNORE INTO main.cov_files(path) SELECT path FROM src.cov_files"
                      " ORDER BY id");
    database_exec(db, "INSERT OR IGNORE INTO main.cov_data(path) SELECT path FROM src.cov_data"
                      " ORDER BY id");
    database_exec(db, "CREATE TEMP TABLE cov_file_map(old INTEGER PRIMARY KEY, new INTEGER)");
    database_exec(db, "INSERT INTO temp.cov_file_map SELECT s.id, m.id FROM src.cov_files s"
                      " JOIN main.cov_files m ON m.path = s.path");
    database_exec(db, "CREATE TEMP TABLE cov_data_map(old INTEGER PRIMARY KEY, new INTEGER)");
    database_exec(db, "INSERT INTO temp.cov_data_map SELECT s.id, m.id FROM src.cov_data s"
                      " JOIN main.cov_data m ON m.path = s.path");
    database_exec(db, "INSERT OR IGNORE INTO main.cov_lines SELECT f.new, l.line"
                      " FROM src.cov_lines l JOIN temp.cov_file_map f ON f.old = l.file");
    database_exec(db, "INSERT OR IGNORE INTO main.cov_branches SELECT f.new, b.line, b.branch"
                      " FROM src.cov_branches b JOIN temp.cov_file_map f ON f.old = b.file");
    database_exec(db, "INSERT OR IGNORE INTO main.cov_functions"
                      " SELECT f.new, x.start_line, x.end_line, x.name"
                      " FROM src.cov_functions x JOIN temp.cov_file_map f ON f.old = x.file");
    database_exec(db, "CREATE TEMP TABLE cov_copied AS SELECT c.old, c.new FROM temp.copied c"
                      " JOIN src.cov_runs r ON r.run = c.old"
                      " WHERE NOT EXISTS (SELECT 1 FROM main.cov_runs m WHERE m.run = c.new)");
    /* This shard's baseline copies that the output's baseline does not have byte for byte
       (none while this shard's baseline is the one copied). */
    database_exec(db, "CREATE TEMP TABLE cov_differs(data INTEGER PRIMARY KEY)");
    database_exec(db, "INSERT INTO temp.cov_differs SELECT b.data FROM src.cov_run_data b"
                      " JOIN temp.cov_data_map m ON m.old = b.data"
                      " WHERE b.run = " SHARD_BASELINE
                      " AND NOT EXISTS (SELECT 1 FROM temp.cov_copied WHERE old = b.run)"
                      " AND NOT EXISTS (SELECT 1 FROM main.cov_run_data o WHERE o.run = "
                      OUTPUT_BASELINE " AND o.data = m.new AND o.hash = b.hash)");
    /* Each copied run's data files: `own` rows (from `source`, made whole where `differs`),
       or a reference to the new id of the run whose rows it uses. */
    database_exec(db,
        "CREATE TEMP TABLE cov_copy AS SELECT c.new AS new, x.data AS data, m.new AS new_data,"
        " x.hash AS hash, x.source AS source, s.delta AS source_delta,"
        " x.data IN (SELECT data FROM temp.cov_differs) AS differs,"
        " iif(x.source = " SHARD_BASELINE " AND x.source <> x.run,"
        "  iif(x.data IN (SELECT data FROM temp.cov_differs), NULL, " OUTPUT_BASELINE "),"
        "  iif(x.source = x.run, NULL, (SELECT new FROM temp.copied WHERE old = x.source)))"
        "  AS reference, 0 AS own"
        " FROM src.cov_run_data x JOIN temp.cov_copied c ON c.old = x.run"
        " JOIN temp.cov_data_map m ON m.old = x.data"
        " JOIN src.cov_run_data s ON s.run = x.source AND s.data = x.data");
    database_exec(db, "UPDATE temp.cov_copy SET own = (reference IS NULL)");
    database_exec(db, "INSERT OR IGNORE INTO main.cov_run_data SELECT new, new_data,"
                      " coalesce(reference, new), hash, own AND source_delta AND NOT differs"
                      " FROM temp.cov_copy");
    merge_cov_hits(db, "cov_line_hits", "h.line, h.count");
    merge_cov_hits(db, "cov_branch_hits", "h.line, h.branch, h.count");
    database_exec(db, "INSERT OR IGNORE INTO main.cov_runs"
                      " SELECT c.new, r.data_files, r.gcov_files, r.read_ms"
                      " FROM src.cov_runs r JOIN temp.cov_copied c ON c.old = r.run");
    database_exec(db, "DROP TABLE temp.cov_copy; DROP TABLE temp.cov_differs;"
                      " DROP TABLE temp.cov_copied; DROP TABLE temp.cov_data_map;"
                      " DROP TABLE temp.cov_file_map");
}

void store_merge_shard(sqlite3 *db, bool first)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT coalesce(max(id), 0) FROM main.runs");
    sqlite3_step(statement);
    int64_t offset = sqlite3_column_int64(statement, 0);
    database_finalize(statement);

    database_exec(db, "INSERT OR IGNORE INTO main.modules SELECT * FROM src.modules");
    /* Programs (owner.c) by what they are, not by environment: each shard's baseline ran in a
       folder of its own, named in LIBFAIL_DIR. */
#define SAME_PROGRAM                                                                               \
    " m.exe = s.exe AND m.cwd = s.cwd AND m.argv = s.argv AND m.stdin_kind = s.stdin_kind"      \
    " AND m.stdin IS s.stdin"
    database_exec(db, "INSERT INTO main.programs(exe, cwd, argv, environment, stdin_kind, stdin,"
                      " top, exit_code, signal, alone, alone_stdout, alone_stderr, alone_wall_ms,"
                      " alone_live, alone_dir) SELECT exe, cwd, argv, environment, stdin_kind,"
                      " stdin, top, exit_code, signal, alone, alone_stdout, alone_stderr,"
                      " alone_wall_ms, alone_live, alone_dir FROM src.programs s WHERE NOT EXISTS"
                      " (SELECT 1 FROM main.programs m WHERE" SAME_PROGRAM ") ORDER BY id");
    /* A program an earlier shard never checked alone (it had no run of it to make) takes this
       shard's check: its run alone is the reference the merged runs are read against. */
    database_exec(db, "UPDATE main.programs AS m SET alone = s.alone, alone_stdout = s.alone_stdout,"
                      " alone_stderr = s.alone_stderr, alone_wall_ms = s.alone_wall_ms,"
                      " alone_live = s.alone_live, alone_dir = s.alone_dir FROM src.programs s"
                      " WHERE m.alone IS NULL AND s.alone IS NOT NULL AND" SAME_PROGRAM);
    database_exec(db, "CREATE TEMP TABLE program_map(old INTEGER PRIMARY KEY, new INTEGER)");
    database_exec(db, "INSERT INTO temp.program_map SELECT s.id, (SELECT min(m.id) FROM"
                      " main.programs m WHERE" SAME_PROGRAM ") FROM src.programs s");
    statement = database_prepare(db, "SELECT count(*) FROM src.sqlite_master"
                                     " WHERE name = 'program_sites'");
    bool reached = sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_int(statement, 0);
    database_finalize(statement);
    if (reached) /* a shard of a failrun that had them */
        database_exec(db, "INSERT OR IGNORE INTO main.program_sites SELECT m.new, p.site"
                          " FROM src.program_sites p JOIN temp.program_map m ON m.old = p.program");
    database_exec(db, "CREATE TEMP TABLE copied(old INTEGER PRIMARY KEY, new INTEGER)");
    bind_and_run(db,
                 "INSERT INTO temp.copied SELECT r.id, iif(r.kind = 'baseline',"
                 "  (SELECT coalesce(min(id), r.id + ?1) FROM main.runs WHERE kind = 'baseline'),"
                 "  r.id + ?1) FROM src.runs r"
                 " WHERE r.kind = 'baseline' OR NOT EXISTS"
                 "  (SELECT 1 FROM main.runs m WHERE m.kind = 'fault' AND m.plan IS r.plan)",
                 offset);
    /* A program's run alone, read by failrun cov as run -program (the reference of the runs
       it owns): copied as -(its new id) when the output has none for it yet. */
    database_exec(db, "INSERT INTO temp.copied SELECT -m.old, -m.new FROM temp.program_map m"
                      " WHERE EXISTS (SELECT 1 FROM src.cov_runs WHERE run = -m.old)"
                      " AND NOT EXISTS (SELECT 1 FROM main.cov_runs WHERE run = -m.new)");
    database_exec(db, "INSERT INTO main.runs(id, kind, site, plan, chain, state, exit_code, signal,"
                      " timed_out, wall_ms, outcome, crash_frames, problems, dir, finding, leak_bytes,"
                      " stdout_hash, owner, every_start)"
                      " SELECT c.new, r.kind, r.site, r.plan, r.chain, r.state, r.exit_code,"
                      " r.signal, r.timed_out, r.wall_ms, r.outcome, r.crash_frames, r.problems,"
                      " r.dir, r.finding, r.leak_bytes, r.stdout_hash,"
                      " (SELECT new FROM temp.program_map WHERE old = r.owner), r.every_start"
                      " FROM src.runs r JOIN temp.copied c ON c.old = r.id"
                      " WHERE NOT EXISTS (SELECT 1 FROM main.runs WHERE id = c.new)");
    database_exec(db, "INSERT INTO main.sites(id, function, max_size, exe, frames, first_run,"
                      " nofail, name, unexplored, kind, owner, source, outside_source, bookkeeping)"
                      " SELECT s.id, s.function, s.max_size, s.exe, s.frames,"
                      " coalesce(c.new, s.first_run), s.nofail, s.name, s.unexplored, s.kind,"
                      " (SELECT new FROM temp.program_map WHERE old = s.owner), s.source,"
                      " s.outside_source, s.bookkeeping FROM src.sites s"
                      " LEFT JOIN temp.copied c ON c.old = s.first_run WHERE true"
                      " ON CONFLICT(id) DO UPDATE SET max_size = max(max_size, excluded.max_size),"
                      "  first_run = min(first_run, excluded.first_run),"
                      "  nofail = max(nofail, excluded.nofail), name = coalesce(name, excluded.name),"
                      "  owner = coalesce(owner, excluded.owner),"
                      "  unexplored = iif(excluded.first_run < first_run, excluded.unexplored,"
                      "                   unexplored)");
    database_exec(db, "INSERT INTO main.live SELECT c.new, l.site, l.blocks, l.bytes"
                      " FROM src.live l JOIN temp.copied c ON c.old = l.run"
                      " WHERE c.new > (SELECT min(id) FROM main.runs WHERE kind = 'baseline')"
                      "  OR NOT EXISTS (SELECT 1 FROM main.live WHERE run = c.new)");
    database_exec(db, "INSERT INTO main.processes SELECT c.new, p.pid, p.exe, p.command_line,"
                      " p.forked, p.exit_code, p.signal,"
                      " (SELECT new FROM temp.program_map WHERE old = p.program)"
                      " FROM src.processes p"
                      " JOIN temp.copied c ON c.old = p.run"
                      " WHERE c.new > (SELECT min(id) FROM main.runs WHERE kind = 'baseline')"
                      "  OR NOT EXISTS (SELECT 1 FROM main.processes WHERE run = c.new)");
    /* Every shard's baseline started the same programs without the preload: counted once. */
    database_exec(db, "INSERT INTO main.unpreloaded SELECT c.new, u.program, u.reason, u.count"
                      " FROM src.unpreloaded u JOIN temp.copied c ON c.old = u.run"
                      " WHERE NOT EXISTS (SELECT 1 FROM main.unpreloaded WHERE run = c.new)");
    /* Findings by key, counted over the runs actually copied, represented as a campaign run
       whole would represent them (FINDING_REPLACES: the smallest site id). */
    database_exec(db, "INSERT INTO main.findings(key, outcome, signal, site, frames, detail,"
                      " first_run, runs, bytes)"
                      " SELECT f.key, f.outcome, f.signal, f.site, f.frames, f.detail,"
                      "  coalesce((SELECT new FROM temp.copied WHERE old = f.first_run), min(c.new)),"
                      "  count(*), f.bytes FROM src.findings f"
                      " JOIN src.runs r ON r.finding = f.id JOIN temp.copied c ON c.old = r.id"
                      " GROUP BY f.id HAVING true"
                      " ON CONFLICT(key) DO UPDATE SET runs = runs + excluded.runs,"
                      "  site = iif(" FINDING_REPLACES ", excluded.site, site),"
                      "  frames = iif(" FINDING_REPLACES ", excluded.frames, frames),"
                      "  detail = iif(" FINDING_REPLACES ", excluded.detail, detail),"
                      "  bytes = iif(" FINDING_REPLACES ", excluded.bytes, bytes),"
                      "  first_run = iif(" FINDING_REPLACES ", excluded.first_run, first_run)");
    database_exec(db, "UPDATE main.runs SET finding = (SELECT m.id FROM main.findings m"
                      "  JOIN src.findings s ON s.key = m.key WHERE s.id = main.runs.finding)"
                      " WHERE finding IS NOT NULL AND id IN (SELECT new FROM temp.copied)");
    merge_coverage(db);
    if (!first)
        database_exec(db, "UPDATE main.campaign SET wall_ms = wall_ms +"
                          " coalesce((SELECT wall_ms FROM src.campaign), 0)");
    database_exec(db, "DROP TABLE temp.copied");
    database_exec(db, "DROP TABLE temp.program_map");
    database_exec(db, "COMMIT");
    database_exec(db, "DETACH src");
}

