/*
 * database.c — schema, opening with validation, and storage of what runs revealed.
 */
#include "store/database.h"
#include "base/spawn.h"
#include "base/util.h"

#include <errno.h>
#include <pthread.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char schema[] =
    "PRAGMA application_id = 1818648937;"
    "PRAGMA user_version = 15;"
    "CREATE TABLE IF NOT EXISTS campaign("
    "  id INTEGER PRIMARY KEY CHECK (id = 1),"
    "  command TEXT NOT NULL,"          /* JSON array of argv */
    "  cwd TEXT NOT NULL,"
    "  top_exe TEXT NOT NULL,"
    "  stdin_path TEXT,"
    "  depth INTEGER NOT NULL,"
    "  timeout_ms INTEGER NOT NULL,"
    "  exe_globs TEXT NOT NULL,"
    "  module_globs TEXT NOT NULL,"
    "  scope TEXT,"                     /* decided after the baseline, see decide_scope */
    "  occurrence INTEGER NOT NULL, persistent INTEGER NOT NULL, nth INTEGER NOT NULL,"
    "  nth_sweep INTEGER NOT NULL, probability TEXT, seed INTEGER NOT NULL,"
    "  max_runs INTEGER NOT NULL,"
    "  shard INTEGER NOT NULL, shards INTEGER NOT NULL,"
    "  started_ms INTEGER NOT NULL,"
    "  wall_ms INTEGER,"                /* NULL until the campaign finished */
    "  baseline_exit INTEGER,"
    "  baseline_signal INTEGER,"
    "  baseline_stdout INTEGER,"        /* content hashes */
    "  baseline_stderr INTEGER,"
    "  baseline_wall_ms INTEGER,"
    "  policy TEXT NOT NULL DEFAULT 'all'," /* 'nofail': eligible sites are never failed;
                                          'realistic': failrun kernel's (cmd_kernel.c) */
    "  nofail_below INTEGER NOT NULL DEFAULT 32768,"
    "  kernel INTEGER NOT NULL DEFAULT 0,"  /* failrun kernel: system-call sites, fail-nth */
    "  faults TEXT NOT NULL DEFAULT 'alloc',"  /* --faults: alloc, io or alloc,io */
    "  whole_command INTEGER NOT NULL DEFAULT 0,"  /* --whole-command: never a program alone */
    "  source TEXT NOT NULL DEFAULT '',"  /* --source globs, ':'-separated: the sites failed */
    "  wrappers TEXT NOT NULL DEFAULT '',"  /* --wrapper functions, ':'-separated */
    "  returns TEXT NOT NULL DEFAULT '',"  /* --returns FUNC=KIND, ':'-separated */
    "  boundary INTEGER NOT NULL DEFAULT 0,"  /* --boundary: what the code under test returned */
    "  test_cases TEXT NOT NULL DEFAULT '',"  /* --test-case FUNC[:int], ','-separated */
    "  fork_note TEXT,"
    "  kmem_trace INTEGER NOT NULL DEFAULT 0,"  /* failrun kernel --kmem-trace */
    "  kcov INTEGER NOT NULL DEFAULT 0,"        /* failrun kernel --kcov */
    "  vmlinux TEXT,"                           /* failrun kernel --vmlinux */
    "  syscall_once INTEGER NOT NULL DEFAULT 0,"  /* failrun kernel --once-per-syscall */
    "  kernel_build_id TEXT,"                  /* the kernel a failrun kernel campaign ran on */
    "  every_start INTEGER NOT NULL DEFAULT 0,"  /* --every-start: a site in each program */
    "  fail_bookkeeping INTEGER NOT NULL DEFAULT 0);"  /* --fail-bookkeeping (source.h) */
    /* What each function of the code under test returned in the unfailed runs (boundary.c):
       the union of its BOUNDARY_CLASS_* bits. A value of a class never seen is an error report. */
    "CREATE TABLE IF NOT EXISTS conventions("
    "  module INTEGER NOT NULL, function TEXT NOT NULL, classes INTEGER NOT NULL,"
    "  PRIMARY KEY(module, function));"
    /* The same per call: the function called from one place (the call's return address, a
       module and offset). A parser that returns NULL for bad input never did at the call that
       parses good input: there NULL is the report of the failure. */
    "CREATE TABLE IF NOT EXISTS call_conventions("
    "  module INTEGER NOT NULL, function TEXT NOT NULL,"
    "  caller_module INTEGER NOT NULL, caller_offset INTEGER NOT NULL, classes INTEGER NOT NULL,"
    "  PRIMARY KEY(module, function, caller_module, caller_offset));"
    "CREATE TABLE IF NOT EXISTS kernel_faults("  /* failrun kernel: what each armed call did */
    "  run INTEGER PRIMARY KEY,"
    "  nth INTEGER NOT NULL,"           /* N written to the kernel's fail-nth */
    "  fired INTEGER NOT NULL,"         /* read back 0: the N-th fault point was reached */
    "  call_failed INTEGER NOT NULL,"   /* the system call returned an error ... */
    "  errno INTEGER NOT NULL,"
    "  pid INTEGER);"                   /* the thread that made it (kmemleak names it) */
    "CREATE TABLE IF NOT EXISTS kernel_allocs("  /* failrun kernel: the allocation that failed */
    "  run INTEGER PRIMARY KEY,"
    "  kind TEXT NOT NULL,"             /* kmalloc, kmem_cache_alloc or page */
    "  call_site TEXT NOT NULL,"        /* the kernel caller, function+0xOFFSET/0xSIZE */
    "  frames TEXT,"                    /* page: the kernel stack above the page allocator */
    "  bytes_req INTEGER NOT NULL, bytes_alloc INTEGER NOT NULL,"
    "  gfp INTEGER NOT NULL,"           /* GFP flags, Linux 6.1's values */
    "  via_page INTEGER NOT NULL,"      /* a slab allocation failed by its page allocation */
    "  too_small INTEGER NOT NULL,"     /* the page allocator never fails it today */
    "  can_fail TEXT);"                 /* else why it can: no direct reclaim, NORETRY, ... */
    "CREATE TABLE IF NOT EXISTS kernel_cov("  /* failrun kernel --kcov: the armed call's KCOV */
    "  run INTEGER PRIMARY KEY,"
    "  pcs BLOB NOT NULL,"              /* its kernel PCs, sorted, distinct, native uint64 */
    "  count INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS kernel_legs("  /* kernel lines a fired run reached and its */
    "  file TEXT NOT NULL, line INTEGER NOT NULL,"  /* site's unfailed runs did not */
    "  run INTEGER NOT NULL,"
    "  function TEXT,"                  /* the kernel function of the first PC found there */
    "  PRIMARY KEY(file, line, run)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS kernel_legs_run ON kernel_legs(run);"
    "CREATE TABLE IF NOT EXISTS kernel_cov_done("  /* fired runs kernelcov.c compared */
    "  run INTEGER PRIMARY KEY,"
    "  leg_pcs INTEGER NOT NULL);"      /* PCs of its legs; -1: no unfailed run to compare */
    "CREATE TABLE IF NOT EXISTS modules("
    "  id TEXT PRIMARY KEY, path TEXT NOT NULL, build_id TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS sites("
    "  id TEXT PRIMARY KEY,"            /* signature, 16 hex digits */
    "  function TEXT NOT NULL,"
    "  max_size INTEGER NOT NULL,"
    "  exe TEXT NOT NULL,"              /* the executable that first reached it */
    "  frames TEXT NOT NULL,"
    "  first_run INTEGER NOT NULL,"
    "  nofail INTEGER NOT NULL DEFAULT 0,"  /* requested with LF_NOFAIL: never failed */
    "  name TEXT,"                      /* a failpoint's name (LF_FAILPOINT) */
    "  unexplored TEXT,"                /* first seen on an error path and given no run: why */
    "  kind TEXT NOT NULL DEFAULT 'alloc'," /* alloc, io, failpoint or syscall */
    "  owner INTEGER,"                  /* baseline sites: the program (programs.id) that owns it */
    "  source TEXT,"                    /* DWARF file of the first own frame, NULL: not looked up */
    "  outside_source INTEGER NOT NULL DEFAULT 0,"  /* not matched by --source: never failed */
    "  bookkeeping TEXT);"  /* allocates for an allocation wrapper (source.h): the function that
                               does; never failed */
    "CREATE TABLE IF NOT EXISTS runs("
    "  id INTEGER PRIMARY KEY,"
    "  kind TEXT NOT NULL CHECK (kind IN ('baseline', 'fault')),"
    "  site TEXT,"                      /* the target: the last site of the chain, or what fired */
    "  plan TEXT,"                      /* LIBFAIL_PLAN of the run */
    "  chain TEXT,"                     /* site mode: S1:K1,S2:K2,... */
    "  state TEXT NOT NULL CHECK (state IN ('planned', 'done')),"
    "  exit_code INTEGER, signal INTEGER, timed_out INTEGER, wall_ms INTEGER,"
    "  outcome TEXT,"
    "  crash_frames TEXT,"              /* JSON frames of the crash (or leaking site) */
    "  problems INTEGER,"
    "  dir TEXT,"                       /* the run's folder: records, stdout, stderr */
    "  finding INTEGER,"
    "  leak_bytes INTEGER,"             /* confirmed by LeakSanitizer's scan (leakcheck.c) */
    "  stdout_hash INTEGER,"            /* of the command's stdout: chains compare with it */
    "  owner INTEGER,"                  /* made by starting this program alone (programs.id); NULL:
                                           the whole command. Planned: the program it would be */
    "  api TEXT,"                       /* the call into the code under test the fault fired in, */
    "  api_value INTEGER,"              /* what it returned, errno after it, */
    "  api_errno INTEGER,"
    "  api_verdict TEXT,"               /* 'reported', 'swallowed', or 'unknown' (no convention) */
    "  reaction TEXT,"                  /* reported: the caller's reaction (the outcome it had) */
    "  test_case TEXT,"                 /* a fork child that ended with its test case: "passed
                                           FUNC" or "failed FUNC" (libfail/fork/testcase.c) */
    "  every_start INTEGER NOT NULL DEFAULT 0);" /* --every-start's run of a site in another
                                                    program than its owner (planner.c) */
    "CREATE TABLE IF NOT EXISTS processes("  /* how each process of the baseline ended */
    "  run INTEGER NOT NULL, pid INTEGER NOT NULL, exe TEXT NOT NULL, command_line TEXT NOT NULL,"
    "  forked INTEGER NOT NULL, exit_code INTEGER, signal INTEGER,"
    "  program INTEGER);"               /* how it was started (programs.id), when recorded */
    /* The programs of the baseline as they were started, to start one alone (owner.c). */
    "CREATE TABLE IF NOT EXISTS programs("
    "  id INTEGER PRIMARY KEY,"
    "  exe TEXT NOT NULL, cwd TEXT NOT NULL,"
    "  argv BLOB NOT NULL,"             /* NUL-terminated arguments, as /proc/self/cmdline */
    "  environment BLOB NOT NULL,"      /* NAME=value entries the same way, as at exec */
    "  stdin_kind TEXT NOT NULL,"       /* 'file', 'null', or why not: 'pipe', 'terminal', ... */
    "  stdin TEXT,"                     /* the file ('file') */
    "  top INTEGER NOT NULL,"           /* the command's own process: never run alone */
    "  exit_code INTEGER, signal INTEGER,"  /* how it ended in the baseline */
    "  alone TEXT,"                     /* NULL: not checked; 'yes'; else why it does not
                                           reproduce its baseline alone */
    "  alone_stdout INTEGER, alone_stderr INTEGER,"  /* content hashes, NULL when unstable */
    "  alone_wall_ms INTEGER,"
    "  alone_live TEXT,"                /* JSON [[site, blocks], ...]: live at exit, alone */
    "  alone_dir TEXT);"                /* the check's first run alone, its gcov data beside it
                                           (coverage_directory): failrun cov reads it as run
                                           -id, the reference counts of the runs it owns */
    /* Programs of a run that started without libfail's preload (RECORD_UNPRELOADED): none of
       their sites is in the campaign. */
    "CREATE TABLE IF NOT EXISTS unpreloaded("
    "  run INTEGER NOT NULL, program TEXT NOT NULL,"
    "  reason TEXT NOT NULL,"           /* 'cleared' (LD_PRELOAD or LIBFAIL_*), 'setuid' */
    "  count INTEGER NOT NULL,"         /* times it was started so */
    "  PRIMARY KEY(run, program, reason)) WITHOUT ROWID;"
    /* Every in-scope site each program reached in the baseline (its first start, with its fork
       children), whichever process reached it first: alone it must reach them all (owner.c).
       Created on open, so a database of this version made before it has none: its checks
       compare the sites each program owns. */
    "CREATE TABLE IF NOT EXISTS program_sites(program INTEGER NOT NULL, site TEXT NOT NULL,"
    "  PRIMARY KEY (program, site)) WITHOUT ROWID;"
    /* The sites each program reached in the baseline out of scope (a test program's own
       allocations under --source): no one's sites, but a fork child of the program's start is
       told them, so that it need not record them again (forkphase.c, write_start_file).
       Created on open, like program_sites. */
    "CREATE TABLE IF NOT EXISTS program_known(program INTEGER NOT NULL, site TEXT NOT NULL,"
    "  PRIMARY KEY (program, site)) WITHOUT ROWID;"
    /* The baseline's fixtures (a server, a daemon: campaign.c, fixture_reason), out of the
       default scope. Created on open, like program_sites. */
    "CREATE TABLE IF NOT EXISTS fixtures(exe TEXT PRIMARY KEY, why TEXT NOT NULL) WITHOUT ROWID;"
    /* What the baseline learnt about running the command, kept for a resumed campaign:
       'jobs': why runs go one at a time (baseline.c, check_twin). */
    "CREATE TABLE IF NOT EXISTS campaign_notes(kind TEXT PRIMARY KEY, text TEXT NOT NULL)"
    "  WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS live("
    "  run INTEGER NOT NULL, site TEXT NOT NULL, blocks INTEGER NOT NULL, bytes INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS findings("
    "  id INTEGER PRIMARY KEY,"
    "  key TEXT UNIQUE NOT NULL,"
    "  outcome TEXT NOT NULL,"
    "  signal INTEGER,"
    "  site TEXT NOT NULL,"             /* the first injection site that produced it */
    "  frames TEXT NOT NULL,"           /* crash stack, or the leaking site's stack */
    "  detail TEXT,"                    /* the sanitizer's headline, or what leaked */
    "  first_run INTEGER NOT NULL,"
    "  runs INTEGER NOT NULL,"
    "  bytes INTEGER);"                 /* a leak: bytes unreachable in its first run */
    "CREATE INDEX IF NOT EXISTS runs_state ON runs(state, id);"
    /* Each conclusion asks for the sites its run stored first (planner.c) and how the baseline's
       processes of an executable ended (judge.c): without these, a scan of every site and
       process per run. */
    "CREATE INDEX IF NOT EXISTS sites_first_run ON sites(first_run);"
    "CREATE INDEX IF NOT EXISTS processes_run ON processes(run, exe);"
    /* Coverage (failrun cov): gcov's counts per run, read from the run's GCOV_PREFIX folder.
       Lines, branches and functions hold every instrumented one (hit or not). Counts are kept
       per data file (.gcda) of a run: the baseline's non-zero ones; another run's non-zero
       ones too, or where that takes fewer rows, where they differ from the baseline's copy of
       that data file (cov_run_data.delta), zeros included;
       a data file whose bytes equal another run's copy has no rows of its own:
       cov_run_data.source names the run whose rows to use. A run -N is program N's run alone
       (programs.alone_dir), stored like a fault run. */
    "CREATE TABLE IF NOT EXISTS cov_files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL);"
    "CREATE TABLE IF NOT EXISTS cov_data(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL);"
    "CREATE TABLE IF NOT EXISTS cov_lines(file INTEGER NOT NULL, line INTEGER NOT NULL,"
    "  PRIMARY KEY(file, line)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS cov_branches(file INTEGER NOT NULL, line INTEGER NOT NULL,"
    "  branch INTEGER NOT NULL, PRIMARY KEY(file, line, branch)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS cov_functions(file INTEGER NOT NULL, start_line INTEGER NOT NULL,"
    "  end_line INTEGER NOT NULL, name TEXT NOT NULL,"
    "  PRIMARY KEY(file, start_line, end_line, name)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS cov_run_data(run INTEGER NOT NULL, data INTEGER NOT NULL,"
    "  source INTEGER NOT NULL,"        /* the run whose rows hold the counts: run, or another */
    "  hash INTEGER NOT NULL,"          /* of the .gcda's bytes */
    "  delta INTEGER NOT NULL,"         /* 1: its rows are where it differs from the baseline's */
    "  PRIMARY KEY(run, data)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS cov_line_hits(run INTEGER NOT NULL, data INTEGER NOT NULL,"
    "  file INTEGER NOT NULL, line INTEGER NOT NULL, count INTEGER NOT NULL,"
    "  PRIMARY KEY(run, data, file, line)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS cov_branch_hits(run INTEGER NOT NULL, data INTEGER NOT NULL,"
    "  file INTEGER NOT NULL, line INTEGER NOT NULL, branch INTEGER NOT NULL,"
    "  count INTEGER NOT NULL, PRIMARY KEY(run, data, file, line, branch)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS cov_runs(run INTEGER PRIMARY KEY,"  /* runs already read */
    "  data_files INTEGER NOT NULL, gcov_files INTEGER NOT NULL, read_ms INTEGER NOT NULL);";

/* Version 1 lacked the policy columns; everything else version 2 added is a new table. */
static const char migrate_1_to_2[] =
    "ALTER TABLE sites ADD COLUMN nofail INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE sites ADD COLUMN name TEXT;"
    "ALTER TABLE campaign ADD COLUMN policy TEXT NOT NULL DEFAULT 'all';"
    "ALTER TABLE campaign ADD COLUMN nofail_below INTEGER NOT NULL DEFAULT 32768;"
    "ALTER TABLE campaign ADD COLUMN kernel INTEGER NOT NULL DEFAULT 0;"
    "PRAGMA user_version = 2;";
static const char migrate_2_to_3[] =
    "ALTER TABLE sites ADD COLUMN unexplored TEXT;"
    "ALTER TABLE runs ADD COLUMN leak_bytes INTEGER;"
    "ALTER TABLE runs ADD COLUMN stdout_hash INTEGER;"
    "ALTER TABLE findings ADD COLUMN bytes INTEGER;"
    "PRAGMA user_version = 3;";
static const char migrate_3_to_4[] =
    "ALTER TABLE campaign ADD COLUMN faults TEXT NOT NULL DEFAULT 'alloc';"
    "ALTER TABLE sites ADD COLUMN kind TEXT NOT NULL DEFAULT 'alloc';"
    "UPDATE sites SET kind = CASE WHEN function = 'failpoint' THEN 'failpoint'"
    " WHEN (SELECT kernel FROM campaign) THEN 'syscall' ELSE 'alloc' END;"
    "PRAGMA user_version = 4;";
static const char migrate_4_to_5[] =
    "ALTER TABLE campaign ADD COLUMN whole_command INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE sites ADD COLUMN owner INTEGER;"
    "ALTER TABLE runs ADD COLUMN owner INTEGER;"
    "ALTER TABLE processes ADD COLUMN program INTEGER;"
    "PRAGMA user_version = 5;";
/* Version 6 keeps coverage counts per data file: what version 5 read is dropped, and read again
   from the runs' folders by the next failrun cov. */
static const char migrate_5_to_6[] =
    "DROP TABLE IF EXISTS cov_line_hits; DROP TABLE IF EXISTS cov_branch_hits;"
    "DROP TABLE IF EXISTS cov_runs; DROP TABLE IF EXISTS cov_files;"
    "DROP TABLE IF EXISTS cov_lines; DROP TABLE IF EXISTS cov_branches;"
    "PRAGMA user_version = 6;";
/* Version 7: --source and --wrapper, and each site's source file. */
static const char migrate_6_to_7[] =
    "ALTER TABLE campaign ADD COLUMN source TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE campaign ADD COLUMN wrappers TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE sites ADD COLUMN source TEXT;"
    "ALTER TABLE sites ADD COLUMN outside_source INTEGER NOT NULL DEFAULT 0;"
    "PRAGMA user_version = 7;";
/* Version 8: the gcov data of each program's run alone, to compare its own runs with. */
static const char migrate_7_to_8[] =
    "ALTER TABLE programs ADD COLUMN alone_dir TEXT;"
    "PRAGMA user_version = 8;";

/* Version 9: what the code under test returned (the library boundary); the table of programs
   that ran without the preload (the schema makes it). */
static const char migrate_8_to_9[] =
    "ALTER TABLE campaign ADD COLUMN returns TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE campaign ADD COLUMN boundary INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE IF NOT EXISTS conventions("
    "  module INTEGER NOT NULL, function TEXT NOT NULL, classes INTEGER NOT NULL,"
    "  PRIMARY KEY(module, function));"
    "ALTER TABLE runs ADD COLUMN api TEXT;"
    "ALTER TABLE runs ADD COLUMN api_value INTEGER;"
    "ALTER TABLE runs ADD COLUMN api_errno INTEGER;"
    "ALTER TABLE runs ADD COLUMN api_verdict TEXT;"
    "ALTER TABLE runs ADD COLUMN reaction TEXT;"
    "PRAGMA user_version = 9;";

/* Version 10: the conventions per call (the schema makes call_conventions). */
static const char migrate_9_to_10[] = "PRAGMA user_version = 10;";

/* Version 11: fork children that end with their test case. */
static const char migrate_10_to_11[] =
    "ALTER TABLE campaign ADD COLUMN test_cases TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE campaign ADD COLUMN fork_note TEXT;"
    "ALTER TABLE runs ADD COLUMN test_case TEXT;"
    "PRAGMA user_version = 11;";

/* Version 12: failrun kernel's options are campaign settings. The vmlinux a version-11 report
   kept (kernel_meta) becomes the campaign's; whether it ran with --kcov or --kmem-trace is read
   from what its runs stored (kernel_cov, kernel_allocs), so the same command resumes it. The
   tables may be missing in databases from before them: created empty first. */
static const char migrate_11_to_12[] =
    "ALTER TABLE campaign ADD COLUMN kmem_trace INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE campaign ADD COLUMN kcov INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE campaign ADD COLUMN vmlinux TEXT;"
    "CREATE TABLE IF NOT EXISTS kernel_meta(key TEXT PRIMARY KEY, value TEXT);"
    "UPDATE campaign SET vmlinux = (SELECT value FROM kernel_meta WHERE key = 'vmlinux');"
    "DROP TABLE kernel_meta;"
    "PRAGMA user_version = 12;";

/* Version 13: failrun kernel --once-per-syscall, the build-id of the kernel a kernel campaign
   ran on (its vmlinux must match it), and the thread of each armed call (kmemleak's reports name
   the allocating thread). */
static const char migrate_12_to_13[] =
    "ALTER TABLE campaign ADD COLUMN syscall_once INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE campaign ADD COLUMN kernel_build_id TEXT;"
    "CREATE TABLE IF NOT EXISTS kernel_faults(run INTEGER PRIMARY KEY, nth INTEGER NOT NULL,"
    "  fired INTEGER NOT NULL, call_failed INTEGER NOT NULL, errno INTEGER NOT NULL);"
    "ALTER TABLE kernel_faults ADD COLUMN pid INTEGER;"
    "PRAGMA user_version = 13;";

/* Version 14: --every-start, a campaign setting, and the runs it adds. */
static const char migrate_13_to_14[] =
    "ALTER TABLE campaign ADD COLUMN every_start INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN every_start INTEGER NOT NULL DEFAULT 0;"
    "PRAGMA user_version = 14;";

/* Version 15: an allocation wrapper's own bookkeeping, left out of the fault runs, and the
   setting that fails it too. */
static const char migrate_14_to_15[] =
    "ALTER TABLE campaign ADD COLUMN fail_bookkeeping INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE sites ADD COLUMN bookkeeping TEXT;"
    "PRAGMA user_version = 15;";

/* Returns the schema version found: 0 for a new file. */
static int check_identity(sqlite3 *db, const char *path)
{
    sqlite3_stmt *statement = NULL;
    int application_id = -1, version = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &statement, NULL) != SQLITE_OK ||
        sqlite3_step(statement) != SQLITE_ROW)
        fatal("%s is not a failrun database (%s); remove it or pass another --db",
              path, sqlite3_errmsg(db));
    application_id = sqlite3_column_int(statement, 0);
    sqlite3_finalize(statement);
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, NULL) != SQLITE_OK ||
        sqlite3_step(statement) != SQLITE_ROW)
        fatal("%s: cannot read the schema version; remove it or pass another --db", path);
    version = sqlite3_column_int(statement, 0);
    sqlite3_finalize(statement);
    if (application_id == 0 && version == 0) {
        /* A new, empty file gets our schema; a file with someone else's tables does not. */
        sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &statement, NULL);
        int tables = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int(statement, 0) : 1;
        sqlite3_finalize(statement);
        if (tables > 0)
            fatal("%s is not a failrun database (another program's SQLite file); pass another --db",
                  path);
        return 0;
    }
    if (application_id != DATABASE_APPLICATION_ID)
        fatal("%s is not a failrun database (another program's SQLite file); pass another --db",
              path);
    if (version != DATABASE_SCHEMA_VERSION && (version < 1 || version > DATABASE_SCHEMA_VERSION))
        fatal("%s has schema version %d, this failrun reads %d; remove it and run again", path,
              version, DATABASE_SCHEMA_VERSION);
    return version;
}

static bool table_exists(sqlite3 *db, const char *name)
{
    sqlite3_stmt *statement = NULL;
    bool found = sqlite3_prepare_v2(db,
                                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                    -1, &statement, NULL) == SQLITE_OK &&
                 sqlite3_bind_text(statement, 1, name, -1, SQLITE_STATIC) == SQLITE_OK &&
                 sqlite3_step(statement) == SQLITE_ROW;
    sqlite3_finalize(statement);
    return found;
}

/* Bring an older database to this schema in one transaction, reading its version again inside
   it: a crash half-way leaves it as it was, and a second failrun that opened it at the same time
   finds it migrated. */
static bool migrate(sqlite3 *db, char **error)
{
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, error) != SQLITE_OK)
        return false;
    sqlite3_stmt *statement = NULL;
    int version = DATABASE_SCHEMA_VERSION;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, NULL) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW)
        version = sqlite3_column_int(statement, 0);
    sqlite3_finalize(statement);
    bool ok = (version != 1 || sqlite3_exec(db, migrate_1_to_2, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 3 || sqlite3_exec(db, migrate_2_to_3, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 4 || sqlite3_exec(db, migrate_3_to_4, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 5 || sqlite3_exec(db, migrate_4_to_5, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 6 || sqlite3_exec(db, migrate_5_to_6, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 7 || sqlite3_exec(db, migrate_6_to_7, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 8 || version < 5 || /* before 5, the schema makes programs whole */
               sqlite3_exec(db, migrate_7_to_8, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 9 || sqlite3_exec(db, migrate_8_to_9, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 10 || sqlite3_exec(db, migrate_9_to_10, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 11 || sqlite3_exec(db, migrate_10_to_11, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 12 || sqlite3_exec(db, migrate_11_to_12, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 13 || sqlite3_exec(db, migrate_12_to_13, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 14 || sqlite3_exec(db, migrate_13_to_14, NULL, NULL, error) == SQLITE_OK) &&
              (version >= 15 || sqlite3_exec(db, migrate_14_to_15, NULL, NULL, error) == SQLITE_OK);
    /* Version 12's kernel settings of a version-11 campaign, from what its runs stored. */
    if (ok && version < 12 && table_exists(db, "kernel_cov"))
        ok = sqlite3_exec(db, "UPDATE campaign SET kcov = EXISTS (SELECT 1 FROM kernel_cov)", NULL,
                          NULL, error) == SQLITE_OK;
    if (ok && version < 12 && table_exists(db, "kernel_allocs"))
        ok = sqlite3_exec(db,
                          "UPDATE campaign SET kmem_trace = EXISTS (SELECT 1 FROM kernel_allocs)",
                          NULL, NULL, error) == SQLITE_OK;
    sqlite3_exec(db, ok ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    return ok;
}

sqlite3 *database_open(const char *path, bool create)
{
    sqlite3 *db = NULL;
    if (!create && access(path, F_OK) != 0)
        fatal("no campaign database at %s; run `failrun run -- CMD` first or pass --db", path);
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK)
        fatal("cannot open %s: %s; check the path and its permissions", path,
              db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_busy_timeout(db, 10000);
    int version = check_identity(db, path);
    char *error = NULL;
    /* A page cache of up to 64 MiB (allocated as used): a campaign's database outgrows the
       default 2 MiB early (expat's suite: 5 MiB), and each page read again was a pread system
       call, a third of failrun's own CPU time while it judged runs. */
    if (sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
                         " PRAGMA cache_size = -65536;", NULL, NULL,
                     &error) != SQLITE_OK ||
        (version >= 1 && version < DATABASE_SCHEMA_VERSION && !migrate(db, &error)) ||
        sqlite3_exec(db, schema, NULL, NULL, &error) != SQLITE_OK)
        fatal("%s is damaged or not a failrun database (%s); remove it and run again", path,
              error ? error : "?");
    return db;
}

/* Prepared statements kept for reuse. A campaign concludes each run with a few dozen short
   statements; parsing them anew for every run was a seventh of a fork campaign's time (perf).
   database_prepare hands out a kept statement of the same text when one is free, and
   database_finalize gives it back, reset and unbound, instead of finalizing it. A statement
   finalized with sqlite3_finalize is simply not reused. */
#define STATEMENT_CACHE 64
static struct {
    sqlite3 *db;
    const char *sql; /* the statement's own text (sqlite3_sql) */
    sqlite3_stmt *statement;
} cache[STATEMENT_CACHE];
static size_t cache_next; /* round robin: which entry gives way when all are taken */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

void database_close(sqlite3 *db)
{
    pthread_mutex_lock(&cache_lock);
    for (size_t i = 0; i < STATEMENT_CACHE; i++)
        if (cache[i].db == db) {
            sqlite3_finalize(cache[i].statement);
            cache[i].db = NULL;
            cache[i].statement = NULL;
        }
    pthread_mutex_unlock(&cache_lock);
    sqlite3_close(db);
}

void database_finalize(sqlite3_stmt *statement)
{
    if (!statement)
        return;
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    pthread_mutex_lock(&cache_lock);
    size_t at = cache_next;
    for (size_t i = 0; i < STATEMENT_CACHE; i++)
        if (!cache[i].statement) {
            at = i;
            break;
        }
    if (at == cache_next)
        cache_next = (cache_next + 1) % STATEMENT_CACHE;
    sqlite3_stmt *evicted = cache[at].statement;
    cache[at].db = sqlite3_db_handle(statement);
    cache[at].sql = sqlite3_sql(statement);
    cache[at].statement = statement;
    pthread_mutex_unlock(&cache_lock);
    sqlite3_finalize(evicted);
}

void database_exec(sqlite3 *db, const char *sql)
{
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK)
        fatal("database error: %s (in: %.60s); is the disk full?", error ? error : "?", sql);
}

sqlite3_stmt *database_prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *statement = NULL;
    pthread_mutex_lock(&cache_lock);
    for (size_t i = 0; i < STATEMENT_CACHE && !statement; i++)
        if (cache[i].statement && cache[i].db == db && !strcmp(cache[i].sql, sql)) {
            statement = cache[i].statement;
            cache[i].statement = NULL;
            cache[i].db = NULL;
        }
    pthread_mutex_unlock(&cache_lock);
    if (statement)
        return statement;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK)
        fatal("database error: %s (in: %.60s); remove the database and run again",
              sqlite3_errmsg(db), sql);
    return statement;
}

void database_step_done(sqlite3_stmt *statement)
{
    int rc = sqlite3_step(statement);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        fatal("database error: %s; is the disk full?",
              sqlite3_errmsg(sqlite3_db_handle(statement)));
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
}

void database_reset(sqlite3 *db)
{
    database_exec(db, "DELETE FROM campaign; DELETE FROM modules; DELETE FROM sites;"
                      "DELETE FROM runs; DELETE FROM live; DELETE FROM findings;"
                      "DELETE FROM processes; DELETE FROM cov_files; DELETE FROM cov_lines;"
                      "DELETE FROM cov_line_hits; DELETE FROM cov_branches;"
                      "DELETE FROM cov_branch_hits; DELETE FROM cov_runs; DELETE FROM cov_data;"
                      "DELETE FROM cov_functions; DELETE FROM cov_run_data; DELETE FROM programs;"
                      "DELETE FROM unpreloaded;" DATABASE_CLEAR_KERNEL_RUNS);
}

void bind_text_or_null(sqlite3_stmt *statement, int index, const char *text)
{
    if (text)
        sqlite3_bind_text(statement, index, text, -1, SQLITE_TRANSIENT);
}

char *column_text(sqlite3_stmt *statement, int i)
{
    const unsigned char *text = sqlite3_column_text(statement, i);
    return text ? xstrdup((const char *)text) : NULL;
}

char *frames_to_json(const struct frame_list *frames)
{
    json_t *array = json_array();
    for (int i = 0; i < frames->count; i++) {
        char module[17];
        hex16(module, frames->frames[i].module);
        json_array_append_new(array, json_pack("[s,I]", module,
                                               (json_int_t)frames->frames[i].offset));
    }
    char *text = json_dumps(array, JSON_COMPACT);
    json_decref(array);
    if (!text)
        fatal("out of memory");
    return text;
}

bool frames_from_json(const char *text, struct frame_list *out)
{
    out->count = 0;
    json_error_t error;
    json_t *array = text ? json_loads(text, 0, &error) : NULL;
    if (!json_is_array(array)) {
        json_decref(array);
        return false;
    }
    size_t index;
    json_t *item;
    bool ok = true;
    json_array_foreach(array, index, item) {
        const char *module = NULL;
        json_int_t offset = 0;
        if (out->count >= RECORD_MAX_FRAMES || json_unpack(item, "[s,I]", &module, &offset) ||
            !parse_hex16(module, &out->frames[out->count].module)) {
            ok = false;
            break;
        }
        out->frames[out->count++].offset = (uint64_t)offset;
    }
    json_decref(array);
    return ok;
}

/* The stored frames of a site (none when unknown). */
void site_frames(sqlite3 *db, const char *site, struct frame_list *frames)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT frames FROM sites WHERE id = ?");
    sqlite3_bind_text(statement, 1, site, -1, SQLITE_TRANSIENT);
    frames->count = 0;
    if (sqlite3_step(statement) == SQLITE_ROW)
        frames_from_json((const char *)sqlite3_column_text(statement, 0), frames);
    database_finalize(statement);
}

/* An unfailed run (no fault fired) teaches each function of the code under test the classes of
   value it returns (conventions), in all and at each call (call_conventions). */
static void store_conventions(sqlite3 *db, const struct run_records *records)
{
    if (records->faults.count || !records->boundaries.count)
        return;
    sqlite3_stmt *function = database_prepare(
        db, "INSERT INTO conventions(module, function, classes) VALUES (?, ?, ?)"
            " ON CONFLICT(module, function) DO UPDATE SET classes = classes | excluded.classes");
    sqlite3_stmt *call = database_prepare(
        db, "INSERT INTO call_conventions(module, function, caller_module, caller_offset, classes)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET classes = classes | excluded.classes");
    for (size_t i = 0; i < records->boundaries.count; i++) {
        const struct ingest_boundary *b = &records->boundaries.items[i];
        if (b->faulted)
            continue;
        sqlite3_bind_int64(function, 1, (sqlite3_int64)b->module);
        sqlite3_bind_text(function, 2, b->function, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(function, 3, (sqlite3_int64)b->value2);
        database_step_done(function);
        sqlite3_bind_int64(call, 1, (sqlite3_int64)b->module);
        sqlite3_bind_text(call, 2, b->function, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(call, 3, (sqlite3_int64)b->caller.module);
        sqlite3_bind_int64(call, 4, (sqlite3_int64)b->caller.offset);
        sqlite3_bind_int64(call, 5, (sqlite3_int64)b->value2);
        database_step_done(call);
    }
    database_finalize(call);
    database_finalize(function);
}

void database_store_unpreloaded(sqlite3 *db, int64_t run_id, const struct run_records *records)
{
    sqlite3_stmt *statement = database_prepare(
        db, "INSERT INTO unpreloaded(run, program, reason, count) VALUES (?, ?, ?, 1)"
            " ON CONFLICT DO UPDATE SET count = count + 1");
    for (size_t i = 0; i < records->unpreloaded.count; i++) {
        const struct ingest_unpreloaded *entry = &records->unpreloaded.items[i];
        if (entry->failed)
            continue;
        sqlite3_bind_int64(statement, 1, run_id);
        sqlite3_bind_text(statement, 2, entry->program, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(statement, 3, unpreloaded_reason_name(entry->reason), -1, SQLITE_STATIC);
        database_step_done(statement);
    }
    database_finalize(statement);
}

unsigned database_store_records(sqlite3 *db, int64_t run_id, const struct run_records *records,
                                database_site_filter *not_a_site)
{
    unsigned new = 0;
    store_conventions(db, records);
    sqlite3_stmt *module = database_prepare(
        db, "INSERT OR IGNORE INTO modules(id, path, build_id) VALUES (?, ?, ?)");
    for (size_t i = 0; i < records->modules.count; i++) {
        char id[17];
        hex16(id, records->modules.items[i].id);
        sqlite3_bind_text(module, 1, id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(module, 2, records->modules.items[i].path, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(module, 3, records->modules.items[i].build_id, -1, SQLITE_TRANSIENT);
        database_step_done(module);
        if (sqlite3_changes(db) > 0)
            new |= DATABASE_NEW_MODULES;
    }
    database_finalize(module);
    sqlite3_stmt *site = database_prepare(
        db, "INSERT INTO sites(id, function, max_size, frames, first_run, exe, nofail, kind,"
            " owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(id) DO UPDATE SET max_size = max(max_size, excluded.max_size),"
            "  nofail = max(nofail, excluded.nofail)");
    sqlite3_stmt *known = database_prepare(db, "SELECT 1 FROM sites WHERE id = ?");
    for (size_t i = 0; i < records->sites.count; i++) {
        const struct ingest_site *s = &records->sites.items[i];
        char id[17];
        hex16(id, s->signature);
        /* A new site is judged once, here (gcov's runtime is not the program: policy.h). */
        sqlite3_bind_text(known, 1, id, -1, SQLITE_TRANSIENT);
        bool stored = sqlite3_step(known) == SQLITE_ROW;
        sqlite3_reset(known);
        if (!stored && not_a_site && not_a_site(db, &s->stack))
            continue;
        if (!stored)
            new |= DATABASE_NEW_SITES;
        char *frames = frames_to_json(&s->stack);
        sqlite3_bind_text(site, 1, id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(site, 2, function_name(s->function), -1, SQLITE_STATIC);
        sqlite3_bind_int64(site, 3, (sqlite3_int64)s->max_size);
        sqlite3_bind_text(site, 4, frames, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(site, 5, run_id);
        sqlite3_bind_text(site, 6, s->exe ? s->exe : "?", -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(site, 7, s->nofail);
        sqlite3_bind_text(site, 8, function_kind_name(s->function), -1, SQLITE_STATIC);
        if (s->owner)
            sqlite3_bind_int64(site, 9, s->owner);
        database_step_done(site);
        free(frames);
    }
    database_finalize(known);
    database_finalize(site);
    sqlite3_stmt *name = database_prepare(db, "UPDATE sites SET name = ? WHERE id = ?");
    for (size_t i = 0; i < records->names.count; i++) {
        char id[17];
        hex16(id, records->names.items[i].signature);
        sqlite3_bind_text(name, 1, records->names.items[i].name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(name, 2, id, -1, SQLITE_TRANSIENT);
        database_step_done(name);
    }
    database_finalize(name);
    sqlite3_stmt *live = database_prepare(
        db, "INSERT INTO live(run, site, blocks, bytes) VALUES (?, ?, ?, ?)");
    for (size_t i = 0; i < records->live.count; i++) {
        char id[17];
        hex16(id, records->live.items[i].signature);
        sqlite3_bind_int64(live, 1, run_id);
        sqlite3_bind_text(live, 2, id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(live, 3, (sqlite3_int64)records->live.items[i].blocks);
        sqlite3_bind_int64(live, 4, (sqlite3_int64)records->live.items[i].bytes);
        database_step_done(live);
    }
    database_finalize(live);
    sqlite3_stmt *process = database_prepare(
        db, "INSERT INTO processes(run, pid, exe, command_line, forked, exit_code, signal, program)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    for (size_t i = 0; i < records->processes.count; i++) {
        const struct ingest_process *p = &records->processes.items[i];
        char command_line[17];
        hex16(command_line, p->command_line);
        sqlite3_bind_int64(process, 1, run_id);
        sqlite3_bind_int64(process, 2, p->pid);
        sqlite3_bind_text(process, 3, p->exe, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(process, 4, command_line, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(process, 5, p->forked);
        if (p->exited)
            sqlite3_bind_int(process, 6, p->exit_status);
        if (p->signal)
            sqlite3_bind_int(process, 7, p->signal);
        if (p->program)
            sqlite3_bind_int64(process, 8, p->program);
        database_step_done(process);
    }
    database_finalize(process);
    return new;
}

/* The runs table: where a run's folder is kept, and how it ended. */
void set_run_directory(sqlite3 *db, int64_t run_id, const char *dir)
{
    sqlite3_stmt *statement = database_prepare(db, "UPDATE runs SET dir = ? WHERE id = ?");
    sqlite3_bind_text(statement, 1, dir, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 2, run_id);
    database_step_done(statement);
    database_finalize(statement);
}

void finish_run(sqlite3 *db, int64_t run_id, const char *site,
                       const struct spawn_result *result, const char *outcome,
                       const char *crash_frames, int problems, int64_t finding)
{
    sqlite3_stmt *statement = database_prepare(
        db, "UPDATE runs SET state = 'done', exit_code = ?, signal = ?, timed_out = ?,"
            " wall_ms = ?, outcome = ?, site = ?, crash_frames = ?, problems = ?,"
            " finding = ? WHERE id = ?");
    sqlite3_bind_int(statement, 1, result->exit_code);
    sqlite3_bind_int(statement, 2, result->signal);
    sqlite3_bind_int(statement, 3, result->timed_out);
    sqlite3_bind_int64(statement, 4, result->wall_ms);
    bind_text_or_null(statement, 5, outcome);
    bind_text_or_null(statement, 6, site);
    bind_text_or_null(statement, 7, crash_frames);
    sqlite3_bind_int(statement, 8, problems);
    if (finding > 0)
        sqlite3_bind_int64(statement, 9, finding);
    sqlite3_bind_int64(statement, 10, run_id);
    database_step_done(statement);
    database_finalize(statement);
}
