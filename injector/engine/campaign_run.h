/*
 * campaign_run.h — the pieces of `failrun run` shared by its three files: cmd_run.c (options,
 * opening the campaign), scheduler.c (baseline, planning, the -j workers) and judge.c (what a
 * fault run's program did: classification, findings).
 */
#ifndef FAILRUN_CAMPAIGN_RUN_H
#define FAILRUN_CAMPAIGN_RUN_H

#include "engine/environment.h"
#include "store/campaign.h"
#include "verdict/classify.h"
#include "engine/leakcheck.h"
#include "verdict/sanitizer.h"
#include "base/spawn.h"

#include <pthread.h>
#include <sqlite3.h>

struct symboliser;

struct run_options {
    const char *database_path;
    struct campaign_settings settings;
    bool keep_runs, quiet, help;
    bool setup_debugfs; /* failrun kernel --setup-debugfs: set the kernel's fault attributes */
    /* Fault runs by forking inside one run of the command or program (forkrun.c): --fork
       always, --no-fork never, by default where re-running would cost a minute or more. */
    enum { FORK_AUTO, FORK_ALWAYS, FORK_NEVER } fork;
    int jobs;
    VECTOR(const char *) suppression_files; /* --suppressions, NULL-terminated after parsing */
    bool no_default_suppressions;
    bool replace; /* --replace: discard a stored campaign of another command or options */
    uint64_t keep_runs_bytes; /* --keep-runs[=MB]: bound on the kept folders of runs without
                                 bugs (default 1 GiB); the oldest go first */
};

struct campaign_context {
    /* The lock guards the database, the module map and the counters below; runs themselves
       execute outside it, -j at a time. */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int busy;
    /* Runs taken and not yet concluded, and those of them that finished: runs are concluded in
       id order (scheduler.c, conclude_in_order). */
    VECTOR(int64_t) in_flight;
    VECTOR(struct job) finished;
    int64_t last_taken, total, done, findings, started_ms;
    bool terminal;
    sqlite3 *db;
    bool batch_open; /* a transaction of concluded runs is open (conclude.c, batch_begin) */
    int64_t batch_started_ms;
    /* Kept folders of runs that no longer represent a finding (judge.c, record_finding):
       removed once the batch that says so is committed. */
    VECTOR(char *) unkept;
    /* Folders of concluded runs that keep nothing, settled (coverage packed, folder removed) by
       a helper thread while the next runs are judged (conclude.c); a commit waits for it. */
    struct settler *settler;
    struct run_options *options;
    char *state_dir;
    /* Runs execute in runs_dir: a folder of this process on a scratch file system (tmpfs; see
       scratch.c), or state_dir/runs when there is none. What a run leaves that is worth
       keeping moves to the same name under state_dir/runs (settle_run_folder). */
    char *scratch_dir, *runs_dir, *kept_dir;
    /* Starts put their working folder back after their children (forkphase.c, forkrestore.c):
       unless FAILRUN_START_RESTORE=0. */
    bool restore_starts;
    struct module_map modules;
    struct symboliser *symbols; /* function identity of frames (judge.c), under the lock */
    struct baseline_observation baseline;
    int64_t baseline_id;
    uint64_t baseline_stdout, baseline_stderr;
    /* The baseline's output hashes before the check that they are stable (check_output). */
    bool output_pending;
    uint64_t pending_stdout, pending_stderr;
    char *baseline_sanitizer; /* finding key of a sanitizer report the baseline already had */
    int64_t timeout_ms;
    /* Leak confirmation (leakcheck.c): the baseline's live counts, read once; its scan under
       LeakSanitizer, made by the first run that needs it (under leakcheck.c's own lock). */
    VECTOR(struct live_count) baseline_live;
    bool target_sanitized;
    bool baseline_scanned, baseline_scan_ok;
    sanitizer_leak_list baseline_leaks;
    /* Exploration keys of the sites that have a run (exploration_key), built on first use. */
    VECTOR(uint64_t) explored;
    bool explored_loaded;
    /* Programs of the baseline loaded so far (owner.c, program_get), under the lock. */
    VECTOR(struct program *) programs;
    /* Allocation wrappers (source.h, wrappers_find), found once from the baseline's sites. */
    char *wrapper_names;
    /* --keep-runs: kept folders of runs without bugs, oldest first, and their bytes
       (bound_kept_runs); what the bound removed. */
    VECTOR(int64_t) kept_runs;
    uint64_t kept_bytes;
    bool kept_loaded;
    int64_t kept_removed;
    uint64_t kept_removed_bytes;
};

struct live_count {
    uint64_t signature;
    uint64_t blocks;
};

/* A program of the baseline, as it was started there (owner.c): a fault run of a site it owns
   starts it alone, once a check showed that alone it does what it did in the baseline. */
struct program {
    int64_t id;
    char *exe, *cwd;
    char **argv, **environment; /* NULL-terminated, as recorded (environment: failrun's too) */
    char *stdin_kind;           /* "file", "null", or why it cannot be given again ("pipe") */
    char *stdin_path;           /* what to give it: the file, /dev/null; NULL: nothing can */
    int exit_code, signal;      /* how it ended in the baseline */
    bool top;                   /* the command's own process: the whole command is it */
    bool checked, alone;        /* the check ran, and alone it reproduces its baseline */
    bool in_command;            /* not alone, its runs fork at its start inside the command
                                   (forkrun.c): they are its for that fork run only */
    char *reason;               /* why not */
    uint64_t alone_stdout, alone_stderr; /* hashes of its output alone; 0: varies, not compared */
    int64_t alone_wall_ms, timeout_ms;
    VECTOR(struct live_count) live; /* blocks live at its exit, alone (leak candidates) */
    /* Its leak scan without faults, made by the first run that needs it (leakcheck.c). */
    pthread_mutex_t scan_lock;
    bool scanned, scan_ok;
    sanitizer_leak_list leaks;
};
/* environment.c: a spawn request that starts `program` alone, as it was started in the baseline, with
   `environment` (its own, renewed by program_environment). */
void start_alone(struct spawn_request *request, const struct program *program,
                 char **environment);

/* One fault run: its plan, what it did, what was recorded. */
struct job {
    int64_t run_id;
    char *site;  /* the target; NULL for nth and random runs until one fires */
    char *chain; /* site mode */
    char *plan;
    char *dir;
    struct spawn_result result;
    struct run_records records;
    sanitizer_leak_list leaks; /* LeakSanitizer's scan of its replay (leak_confirm) */
    bool leak_scanned;
    struct program *program; /* the program started alone; NULL: the whole command */
    char *test_case; /* a fork child that stopped at the end of its test case: "passed FUNC" or
                        "failed FUNC" (libfail/fork/testcase.c); NULL: it ran to its process's
                        end */
    bool hung; /* judged `reported` although it hung (judge.c): its error leg is not extended */
};

/* failrun kernel stops a site's sweep here even if every fault point so far was reached: a
   call that takes more (fork: about 75) is better swept with a targeted --occurrence. */
#define KERNEL_MAX_NTH 200

/* scratch.c: the scratch folder (removed at the end, on exit(), on INT, TERM and HUP, and
   by the next campaign after a KILL), and the thread that takes those signals; started first
   thing in a campaign, before any other thread. */
void stop_signals_start(void);
void open_scratch(struct campaign_context *context);
void close_scratch(struct campaign_context *context);

/* environment.c: one run */
/* The folder of run `run_id`'s attempt (a new one each attempt), newly allocated. */
char *run_directory(struct campaign_context *context, int64_t run_id);
/* Where the run folder `dir` (under runs_dir) lives once settled; newly allocated. */
char *kept_path(const struct campaign_context *context, const char *dir);
/* --keep-runs: after run `run_id` (kept, no bug) settled, remove the oldest kept folders of
   runs without bugs until they take at most --keep-runs MB. Under the campaign's lock. */
void bound_kept_runs(struct campaign_context *context, int64_t run_id);
/* After a run is judged: its coverage folder (DIR.gcov) moves to the kept folder's collection
   (coverage_collection), and the run's own folder to the kept folder when `keep`; what stays in
   the scratch folder is removed. True when the run's gcov data is kept. */
bool settle_run_folder(const struct campaign_context *context, const char *dir, bool keep);
/* Start the command for one run in `dir` with `plan`, or with `program` only that program, as it
   was started in the baseline; `extra` ("NAME=value", NULL-terminated, may be NULL) replaces or
   adds to the run's environment. */
struct spawn_result execute_run(struct campaign_context *context, const char *dir,
                                const char *plan, int64_t timeout_ms, const char *const *extra,
                                const struct program *program);
void keep_sites_in_scope(struct run_records *records, const char *scope);

/* baseline.c: the command run twice without faults */
void run_baseline(struct campaign_context *context);
void load_baseline(struct campaign_context *context);
bool baseline_done(sqlite3 *db);
/* Before a run of the whole command is judged, the check that the command's output is the same
   from run to run, if the baseline left it for later. */
void check_output(struct campaign_context *context);
/* The same check from a run of the command that failed nothing it printed (a fork run at its
   programs' starts that ended as the baseline: the children's output never reaches it). */
void check_output_from(struct campaign_context *context, const char *dir);
/* Whether runs side by side disturb each other, checked once before the first of them in a
   suite's campaign (its baseline is made alone): -j1 when they do. */
void check_parallel(struct campaign_context *context);

/* planner.c: the fault runs to make */
/* A planned run into the runs table; its id. */
int64_t insert_run(sqlite3 *db, const char *kind, const char *site, const char *chain,
                   const char *plan, int64_t owner);
/* After the baseline: one run per site (in the order first seen), or the first nth/random runs. */
void plan_first_runs(struct campaign_context *context);
/* Plan runs for the sites `job` revealed first (chains), unless the run ended in oom-abort,
   crash or hang. */
void plan_follow_ups(struct campaign_context *context, const struct job *job,
                     enum outcome outcome);

/* scheduler.c: the -j workers that execute the planned runs and conclude each */
void run_planned(struct campaign_context *context);

/* conclude.c: a run judged and stored, in batched transactions */
enum outcome conclude_job(struct campaign_context *context, struct job *job);
/* Commit the runs concluded so far (conclude_job batches them). */
void conclusions_commit(struct campaign_context *context);

/* forkrun.c: after the baseline, answer the planned runs of single sites from one fork run */
void run_fork_phase(struct campaign_context *context);

/* owner.c: the program that owns a site, started alone */
/* Fault runs of this campaign may start a program alone: site mode, not --whole-command. */
bool owner_mode(const struct campaign_settings *settings);
/* In the baseline's transaction, before its records are stored: the programs of its in-scope
   processes into the programs table (their ids into records->processes[].program) and the
   owner of each site (records->sites[].owner). `top_pid`: the process failrun started. */
void owners_store(struct campaign_context *context, struct run_records *records, int top_pid);
/* The program a run of `chain` starts alone (the owner of its first site), 0 for the whole
   command. Under the lock. */
int64_t chain_owner(struct campaign_context *context, const char *chain);
/* A program by id, loaded once; NULL when there is none. Under the lock. */
struct program *program_get(struct campaign_context *context, int64_t id);
/* Before the planned runs: check each program that planned runs would start alone and has not
   been checked (run it alone twice, no fault); runs of programs that fail it go back to the
   whole command. */
void owners_check(struct campaign_context *context);
void programs_free(struct campaign_context *context);

/* judge.c */
void load_baseline_sanitizer(struct campaign_context *context);
/* Classify and store one run, inside conclude_job's transaction. *worth_keeping: the
   run is a bug or a finding's, its folder is kept; *fired: the planned fault fired. */
enum outcome judge_run(struct campaign_context *context, struct job *job, bool *worth_keeping,
                       bool *fired);
/* failrun kernel: kmemleak's report `log` (titled `title`, ktitle.h) of an object run `run`'s
   armed call (at `site`) allocated, as a kernel finding of that run ("memory leak in F"). */
void judge_kernel_leak(struct campaign_context *context, int64_t run, const char *site,
                       const char *log, const char *title);
/* What makes an error-path site new: its allocation call (the first frame of the program's own
   code, exactly) and the functions, not return addresses, of the own frames above it. */
uint64_t exploration_key(struct campaign_context *context, const struct frame_list *frames);

#endif
