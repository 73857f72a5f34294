/*
 * cmd_run.c — `failrun run`: the campaign. Baseline run recording every site, one run per site
 * failing its first occurrence, each classified and stored; then the report. This file reads
 * the options and opens (or resumes) the campaign; scheduler.c runs it, judge.c classifies.
 *
 * Every run is a row planned before it starts and completed in one transaction with all it found,
 * so killing failrun at any moment loses at most the run in flight: `failrun run` again resumes.
 */
#include "store/campaign.h"
#include "engine/campaign_run.h"
#include "base/leftover.h"
#include "verdict/boundary.h"
#include "cli/commands.h"
#include "store/database.h"
#include "store/kernelrows.h"
#include "store/runs.h"
#include "format/plan.h"
#include "format/text.h"
#include "verdict/policy.h"
#include "report/report.h"
#include "symbols/source.h"
#include "verdict/suppress.h"
#include "symbols/symbolise.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t parse_count(const char *text, const char *option)
{
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    /* Found by fuzzing: a huge --max-runs wrapped around to a negative bound. */
    if (*end || !*text || value == 0 || text[0] == '-' || errno == ERANGE || value > (1ull << 53))
        fatal("%s %s: give a whole number from 1 to 2^53", option, text);
    return value;
}

/* --keep-runs=SIZE: megabytes, or with a K, M or G suffix. */
static uint64_t parse_keep_bound(const char *text)
{
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    int shift = !*end ? 20 : !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20
              : !strcmp(end, "G") ? 30 : -1;
    if (shift < 0 || end == text || text[0] == '-' || errno || value == 0 ||
        value > (1ull << 40))
        fatal("--keep-runs=%s: give megabytes, or a size with K, M or G (e.g. 500, 2G)", text);
    return (uint64_t)value << shift;
}

/* A C identifier, optionally followed by ":int". */
static bool test_case_valid(const char *text)
{
    size_t length = strcspn(text, ":");
    if (text[length] && strcmp(text + length, ":int") != 0)
        return false;
    if (length == 0 || (text[0] >= '0' && text[0] <= '9'))
        return false;
    for (size_t i = 0; i < length; i++)
        if (!(text[i] == '_' || (text[i] >= '0' && text[i] <= '9') ||
              (text[i] >= 'a' && text[i] <= 'z') || (text[i] >= 'A' && text[i] <= 'Z')))
            return false;
    return true;
}

/* How many ways of choosing what a run fails are set beyond the default (first call). */
static int modes_of(const struct campaign_settings *settings)
{
    return (settings->nth || settings->nth_sweep) + (settings->probability != NULL) +
           (settings->occurrence != 1 || settings->persistent);
}

/* ---- failrun run's options: one row each (options.h) ---- */

#define RUN (((struct run_command *)target)->options)
#define SETTINGS (((struct run_command *)target)->options.settings)

static void take_db(void *target, const char *value) { RUN.database_path = value; }
static void take_depth(void *target, const char *value)
{
    char *end;
    long depth = strtol(value, &end, 10);
    if (*end || !*value || depth < 1 || depth > RECORD_MAX_FRAMES)
        fatal("--depth %s: give a whole number from 1 to %d", value, RECORD_MAX_FRAMES);
    SETTINGS.depth = (int)depth;
}
static void take_timeout(void *target, const char *value)
{
    char *end;
    double seconds = strtod(value, &end);
    if (*end || !(seconds > 0) || seconds > 86400)
        fatal("--timeout %s: give seconds, more than 0 and at most 86400", value);
    SETTINGS.timeout_ms = (int64_t)(seconds * 1000);
}
static void add_glob(char **list, const char *glob)
{
    char *joined = **list ? xasprintf("%s:%s", *list, glob) : xstrdup(glob);
    free(*list);
    *list = joined;
}
static void take_exe(void *target, const char *value) { add_glob(&SETTINGS.exe_globs, value); }
static void take_module(void *target, const char *value)
{
    add_glob(&SETTINGS.module_globs, value);
}
static void add_entries(char **list, const char *value)
{
    char *joined = source_globs_add(*list, value);
    free(*list);
    *list = joined;
}
static void take_source(void *target, const char *value)
{
    add_entries(&SETTINGS.source_globs, value);
}
static void take_boundary(void *target, const char *value)
{
    (void)value;
    SETTINGS.boundary = true;
}
static void take_no_boundary(void *target, const char *value)
{
    (void)value;
    SETTINGS.boundary = false;
}
static void take_returns(void *target, const char *value)
{
    if (!returns_rule_valid(value))
        fatal("--returns %s: give FUNC=null, FUNC=negative, FUNC=zero or FUNC=false", value);
    add_entries(&SETTINGS.returns, value);
}
static void take_wrapper(void *target, const char *value)
{
    add_entries(&SETTINGS.wrappers, value);
}
static void take_faults(void *target, const char *value)
{
    SETTINGS.fault_kinds = fault_kinds_parse(value);
    if (!SETTINGS.fault_kinds)
        fatal("--faults %s: give alloc, io or alloc,io", value);
}
static void take_occurrence(void *target, const char *value)
{
    SETTINGS.occurrence = parse_count(value, "--occurrence");
}
static void take_persistent(void *target, const char *value)
{
    (void)value;
    SETTINGS.persistent = true;
}
static void take_nth(void *target, const char *value)
{
    SETTINGS.nth = parse_count(value, "--nth");
}
static void take_nth_sweep(void *target, const char *value)
{
    (void)value;
    SETTINGS.nth_sweep = true;
}
static void take_probability(void *target, const char *value)
{
    struct plan check;
    char *probe = xasprintf("mode=random;probability=%s", value);
    if (plan_parse(probe, &check))
        fatal("--probability %s: give a decimal number, more than 0 and at most 1 (e.g. 0.01)",
              value);
    free(probe);
    free(SETTINGS.probability);
    SETTINGS.probability = xstrdup(value);
}
static void take_seed(void *target, const char *value)
{
    char *end;
    SETTINGS.seed = strtoull(value, &end, 10);
    if (*end || !*value)
        fatal("--seed %s: give a whole number", value);
}
static void take_policy(void *target, const char *value)
{
    if (strcmp(value, "nofail") && strcmp(value, "all") && strcmp(value, "realistic"))
        fatal("--policy %s: give nofail (eligible sites never fail), all, or for failrun kernel "
              "realistic", value);
    SETTINGS.policy_nofail = !strcmp(value, "nofail");
    SETTINGS.policy_realistic = !strcmp(value, "realistic");
}
static void take_nofail_below(void *target, const char *value)
{
    SETTINGS.nofail_below = parse_count(value, "--nofail-below");
}
static void take_max_runs(void *target, const char *value)
{
    SETTINGS.max_runs = (int64_t)parse_count(value, "--max-runs");
}
/* One function per output format (formats.def). */
#define REPORT_FORMAT(name, writer, where, help)                                                   \
    static void take_##name(void *target, const char *value)                                       \
    {                                                                                              \
        report_outputs_take(&((struct run_command *)target)->outputs, REPORT_FORMAT_##name, value); \
    }
#include "report/formats.def"
#undef REPORT_FORMAT
static void take_jobs(void *target, const char *value)
{
    char *end;
    long jobs = strtol(value, &end, 10);
    if (*end || !*value || jobs < 1 || jobs > 1024)
        fatal("-j %s: give the number of runs at once, from 1 to 1024", value);
    RUN.jobs = (int)jobs;
}
static void take_fork(void *target, const char *value)
{
    (void)value;
    RUN.fork = FORK_ALWAYS;
}
static void take_no_fork(void *target, const char *value)
{
    (void)value;
    RUN.fork = FORK_NEVER;
}
static void take_test_case(void *target, const char *value)
{
    if (!test_case_valid(value))
        fatal("--test-case %s: give a function name, or NAME:int when the function returns 0 "
              "for a test case that passed", value);
    char *joined = SETTINGS.test_cases && *SETTINGS.test_cases
                       ? xasprintf("%s,%s", SETTINGS.test_cases, value)
                       : xstrdup(value);
    free(SETTINGS.test_cases);
    SETTINGS.test_cases = joined;
    size_t names = 1;
    for (const char *at = joined; *at; at++)
        names += *at == ',';
    if (strlen(joined) >= PLAN_TESTS_MAX || names > 60)
        fatal("--test-case: at most 60 functions, %d bytes of names in all", PLAN_TESTS_MAX - 1);
}
static void take_whole_command(void *target, const char *value)
{
    (void)value;
    SETTINGS.whole_command = true;
}
static void take_every_start(void *target, const char *value)
{
    (void)value;
    SETTINGS.every_start = true;
}
static void take_fail_bookkeeping(void *target, const char *value)
{
    (void)value;
    SETTINGS.fail_bookkeeping = true;
}
static void take_shard(void *target, const char *value)
{
    unsigned shard = 0, shards = 0;
    char extra;
    if (sscanf(value, "%u/%u%c", &shard, &shards, &extra) != 2 || shard < 1 || shards < 1 ||
        shard > shards)
        fatal("--shard %s: give K/N with 1 <= K <= N, e.g. --shard 2/8", value);
    SETTINGS.shard = shard;
    SETTINGS.shards = shards;
}
static void take_keep_runs(void *target, const char *value)
{
    RUN.keep_runs = true;
    if (value) /* --keep-runs=SIZE */
        RUN.keep_runs_bytes = parse_keep_bound(value);
}
static void take_replace(void *target, const char *value)
{
    (void)value;
    RUN.replace = true;
}
static void take_suppressions(void *target, const char *value)
{
    VECTOR_PUSH(RUN.suppression_files, value);
}
static void take_no_default_suppressions(void *target, const char *value)
{
    (void)value;
    RUN.no_default_suppressions = true;
}
static void take_quiet(void *target, const char *value)
{
    (void)value;
    RUN.quiet = true;
}

#undef RUN
#undef SETTINGS

#define CAMPAIGN OPTION_CAMPAIGN
#define INVOCATION OPTION_INVOCATION
static const struct option_row run_rows[] = {
    {"db", 0, OPTION_REQUIRED, "PATH", INVOCATION,
     "campaign database (default .failrun/campaign.db)", take_db},
    {"depth", 0, OPTION_REQUIRED, "N", CAMPAIGN, "frames in a site signature, 1..28 (default 8)",
     take_depth},
    {"timeout", 0, OPTION_REQUIRED, "SEC", CAMPAIGN,
     "per-run limit; default 10x the baseline plus 5 s (a process spinning after its fault "
     "ends sooner: 5x the baseline's CPU + 2 s; a suite's program run alone, 5x its time "
     "alone + 0.5 s when lower)", take_timeout},
    {"exe", 0, OPTION_REQUIRED, "GLOB", CAMPAIGN,
     "fail allocations only in executables matching GLOB (repeatable); '!GLOB' leaves one out; "
     "default: COMMAND and every non-system executable it starts but its fixtures (servers, "
     "daemons)", take_exe},
    {"module", 0, OPTION_REQUIRED, "GLOB", CAMPAIGN,
     "fail only allocations whose caller is in a matching module", take_module},
    {"source", 0, OPTION_REQUIRED, "GLOB", CAMPAIGN,
     "fail and report only sites whose first own frame is in a source file matching GLOB (its "
     "path as DWARF gives it, or a tail of it after a '/': 'src/*', 'json_*.c'; repeatable, or "
     "comma-separated): tests and library in one executable, fail only the library's "
     "allocations. '!GLOB' leaves out what it matches: '!tests/*' everything but tests. Other "
     "sites are recorded (coverage) but get no run; a crash in code outside GLOB (a test using "
     "the library's NULL), or an assert at the entry it called, is a caller-crash, not a "
     "finding", take_source},
    {"no-boundary", 0, OPTION_FLAG, NULL, CAMPAIGN,
     "with --source or --module, each call into the code under test that a fault fired in is "
     "followed to its return (LD_AUDIT, calls into shared libraries): an error report makes the "
     "caller's other output its reaction (reported), a success value a failed test a finding "
     "(swallowed). This turns that off (--boundary: on, the default)", take_no_boundary},
    {"boundary", 0, OPTION_FLAG, NULL, CAMPAIGN, "the library boundary on (the default)",
     take_boundary},
    {"returns", 0, OPTION_REQUIRED, "FUNC=KIND", CAMPAIGN,
     "how FUNC of the code under test reports an error to its caller: null, negative, zero or "
     "false (repeatable). Without it, learned from the unfailed runs: a value of a kind FUNC "
     "never returned there (NULL where it always returned an address, a negative int, 0, "
     "false) is one, and a positive int at a call that only returned 0 (0 for success, a "
     "positive code per error, as libtasn1's)", take_returns},
    {"wrapper", 0, OPTION_REQUIRED, "FUNC", CAMPAIGN,
     "FUNC only forwards to the allocator: its sites are named after its caller (\"f at x.c:40 "
     "(through FUNC)\"), and leaks are told apart by that caller (repeatable). Found without "
     "it: a function whose name ends in alloc, strdup, strndup, memdup, fopen, fdopen or "
     "freopen, first own frame of sites reached from two or more callers", take_wrapper},
    {"faults", 0, OPTION_REQUIRED, "KINDS", CAMPAIGN,
     "what kinds of call are sites: alloc (default), io, or alloc,io. io: open, openat, creat, "
     "fopen, fdopen, freopen, read, pread, readv, fread, fgets, getline, getdelim, fgetc, getc, "
     "getchar, write, pwrite, writev, fwrite, fputs, puts, fputc, putc, putchar, fprintf, printf "
     "and their v- forms, fflush, close, fclose, fsync and fdatasync of the program (stdout and stderr included; never libc's own nor failrun's), "
     "each failing with the errno a real failure gives: EMFILE for opens, EIO for reads, closes "
     "and syncs, ENOSPC for writes and flushes; a stdio stream's error indicator is set",
     take_faults},
    {NULL, 0, OPTION_FLAG, NULL, CAMPAIGN,
     "What each run fails (default: each site's first call, one site per run):", NULL},
    {"occurrence", 0, OPTION_REQUIRED, "K", CAMPAIGN, "each site's K-th call instead",
     take_occurrence},
    {"persistent", 0, OPTION_FLAG, NULL, CAMPAIGN, "and every later call too (for programs that "
     "retry)", take_persistent},
    {"nth", 0, OPTION_REQUIRED, "N", CAMPAIGN,
     "one run failing the N-th call (the kernel's fail-nth rules)", take_nth},
    {"nth-sweep", 0, OPTION_FLAG, NULL, CAMPAIGN,
     "runs failing call 1, 2, 3, ... until the N-th call never comes", take_nth_sweep},
    {"probability", 0, OPTION_REQUIRED, "P", CAMPAIGN,
     "runs failing each call with probability P (0 < P <= 1),", take_probability},
    {"seed", 0, OPTION_REQUIRED, "S", CAMPAIGN,
     "... the first run with seed S, then S+1, ... (default 1)", take_seed},
    {"policy", 0, OPTION_REQUIRED, "nofail", CAMPAIGN,
     "never fail NOFAIL-eligible sites: LF_NOFAIL requests and sites whose every request is at "
     "most --nofail-below bytes (default 32768); `failrun cov --nofail-db` checks such a "
     "campaign (see failrun cov). failrun kernel takes `--policy realistic` instead",
     take_policy},
    {"nofail-below", 0, OPTION_REQUIRED, "BYTES", CAMPAIGN,
     "the size threshold of --policy nofail (default 32768)", take_nofail_below},
    {"max-runs", 0, OPTION_REQUIRED, "N", CAMPAIGN,
     "at most N fault runs (default 10000; 100 with --probability). Sites first seen on an "
     "error path join the queue, with the failures that led there, until none is new or N is "
     "reached.", take_max_runs},
    {NULL, 0, OPTION_FLAG, NULL, CAMPAIGN, "", NULL},
#define REPORT_FORMAT(name, writer, where, help)                                                   \
    {#name, 0, (where) == REPORT_FILE ? OPTION_REQUIRED : OPTION_FLAG,                             \
     (where) == REPORT_FILE ? "PATH" : NULL, INVOCATION, help, take_##name},
#include "report/formats.def"
#undef REPORT_FORMAT
    {"jobs", 'j', OPTION_REQUIRED, "N", INVOCATION,
     "runs at once (default: the number of cores)", take_jobs},
    {"fork", 0, OPTION_FLAG, NULL, INVOCATION,
     "instead of re-running a program per site, run it once more and fork it at each site it "
     "reaches first: the child fails the allocation and runs to its end, or to its test case's, "
     "the parent goes on (-j N children at once). Same outcomes; sites in multi-threaded "
     "processes are re-run. Default: where re-running would take a minute or more; and inside a "
     "suite, the small programs it starts fork their runs at their start (before main) in one "
     "more run of the suite, where re-running them alone would take seconds", take_fork},
    {"no-fork", 0, OPTION_FLAG, NULL, INVOCATION, "re-run every site", take_no_fork},
    {"test-case", 0, OPTION_REQUIRED, "FUNC[:int]", CAMPAIGN,
     "in fork mode, FUNC's return ends a test case (with :int, it returns 0 when the test case "
     "passed); built in: minicheck, cmocka, Unity", take_test_case},
    {"whole-command", 0, OPTION_FLAG, NULL, CAMPAIGN,
     "every run re-runs COMMAND; by default a site whose owner (the first process that reached "
     "it) is a program COMMAND started, and that does alone what it did there, is failed by "
     "starting that program alone", take_whole_command},
    {"fail-bookkeeping", 0, OPTION_FLAG, NULL, CAMPAIGN,
     "also fail what an allocation wrapper allocates for itself: by default a function that a "
     "wrapper with an allocation of its own calls (curl_dbg_malloc calls curl_dbg_log, which "
     "allocates the log line) gets no fault run", take_fail_bookkeeping},
    {"every-start", 0, OPTION_FLAG, NULL, CAMPAIGN,
     "fail each site in every program that reached it in the baseline, each started alone, not "
     "only in its owner: a bug that shows only when another caller's allocation fails. One more "
     "run per program and site", take_every_start},
    {"shard", 0, OPTION_REQUIRED, "K/N", CAMPAIGN,
     "run slice K (1..N) of the campaign; `failrun merge` joins slices", take_shard},
    {"keep-runs", 0, OPTION_OPTIONAL, "SIZE", INVOCATION,
     "keep the folders of runs without bugs too, at most SIZE of them (megabytes, or with K, M "
     "or G; default 1G): past that the oldest go first, and the report says how many. Runs that "
     "found bugs are always kept", take_keep_runs},
    {"replace", 0, OPTION_FLAG, NULL, INVOCATION,
     "discard the campaign in --db even if it is of another command or other options (without "
     "it failrun refuses; the same campaign again resumes when unfinished and starts over when "
     "finished)", take_replace},
    {"suppressions", 0, OPTION_REQUIRED, "FILE", INVOCATION,
     "hide findings matching its rules (repeatable; see failrun(1))", take_suppressions},
    {"no-default-suppressions", 0, OPTION_FLAG, NULL, INVOCATION,
     "drop the bundled rules for glibc bugs", take_no_default_suppressions},
    {"quiet", 'q', OPTION_FLAG, NULL, INVOCATION, "no progress lines", take_quiet},
    {NULL, 0, OPTION_FLAG, NULL, CAMPAIGN, NULL, NULL},
};
#undef CAMPAIGN
#undef INVOCATION

const struct option_table run_options_table = {
    .synopsis =
        "usage: failrun run [options] -- COMMAND [ARGS...]\n"
        "\n"
        "Run COMMAND once to record every allocation site (with --faults io, every I/O call site\n"
        "too), then once per site with that site's first call failing; classify and store each\n"
        "run, then print the report.\n"
        "Standard input, when not a terminal, is saved and given to every run.\n"
        "\n",
    .rows = run_rows,
    .epilogue =
        "Exit status: 0 no bugs, 1 bugs found (or runs that never reached the site the\n"
        "baseline reached: the report's first lines say so), 2 usage error.\n"
        "A campaign killed before it finished resumes when run again with the same command.\n"
        "Runs execute in a scratch folder /dev/shm/failrun-PID.* (LIBFAIL_SCRATCH=DIR elsewhere,\n"
        "empty for none), removed at the end and on INT, TERM and HUP; one a KILL left is removed\n"
        "by the next failrun run.\n",
};

/* Defaults, then the options in order, then the command; the checks across options. */
static void parse_options(const struct option_table *table, int argc, char **argv,
                          struct run_command *command)
{
    struct run_options *options = &command->options;
    struct campaign_settings *settings = &options->settings;
    options->database_path = DEFAULT_DATABASE;
    settings->depth = 8;
    settings->boundary = true;
    settings->occurrence = 1;
    settings->seed = 1;
    settings->nofail_below = NOFAIL_BELOW_DEFAULT;
    settings->fault_kinds = PLAN_FAULT_ALLOC;
    settings->exe_globs = xstrdup("");
    settings->module_globs = xstrdup("");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    options->jobs = cores > 0 ? (int)cores : 1;
    options->keep_runs_bytes = (uint64_t)1024 << 20;
    int optind = options_parse(table, argc, argv, command);
    if (optind < 0) {
        options->help = true;
        return;
    }
    if (optind >= argc)
        fatal("no command given; usage: failrun run [options] -- COMMAND [ARGS...]");
    int modes = modes_of(settings);
    if (modes > 1)
        fatal("choose one of --occurrence/--persistent, --nth/--nth-sweep and --probability");
    if (settings->policy_nofail && modes && !(settings->occurrence != 1 || settings->persistent))
        fatal("--policy nofail plans runs per site: it cannot be combined with --nth, "
              "--nth-sweep or --probability");
    if (options->fork == FORK_ALWAYS && modes)
        fatal("--fork fails each site's first call; it cannot be combined with --occurrence, "
              "--persistent, --nth, --nth-sweep or --probability");
    if (settings->nth && settings->nth_sweep)
        fatal("--nth N fails one call, --nth-sweep fails each in turn: give one of them");
    if (!settings->max_runs)
        settings->max_runs = settings->probability ? 100 : 10000;
    /* The boundary is the scope's: without one there is nothing to follow (and the stored
       setting then matches a campaign of a failrun that had no boundary). */
    if (!(settings->source_globs && *settings->source_globs) && !*settings->module_globs)
        settings->boundary = false;
    size_t count = (size_t)(argc - optind);
    settings->argv = xcalloc(count + 1, sizeof *settings->argv);
    for (size_t i = 0; i < count; i++)
        settings->argv[i] = xstrdup(argv[optind + (int)i]);
    settings->top_exe = resolve_command(settings->argv[0]);
    if (!settings->top_exe)
        fatal("%s: command not found; give a path or a name on PATH", settings->argv[0]);
    char cwd[PATH_MAX];
    settings->cwd = xstrdup(getcwd(cwd, sizeof cwd) ? cwd : ".");
}

/* The folder for a campaign's files (saved stdin, run folders): beside the database and named
   after it, so several databases in one folder never share or wipe each other's runs. */
static char *state_directory(const char *database_path)
{
    char *base = xstrdup(database_path);
    size_t length = strlen(base);
    if (length > 3 && !strcmp(base + length - 3, ".db"))
        base[length - 3] = '\0';
    char *directory = xasprintf("%s.files", base);
    free(base);
    return directory;
}

/* Standard input is given to every run: keep one copy of it in the state folder. */
static char *save_stdin(const char *state_dir)
{
    if (isatty(0))
        return NULL;
    size_t length = 0;
    char *data = read_whole_file("/dev/stdin", &length);
    if (!data || length == 0) {
        free(data);
        return NULL; /* closed or empty stdin: the runs get /dev/null */
    }
    char *path = xasprintf("%s/stdin", state_dir);
    if (!write_whole_file(path, data, length))
        fatal("cannot write %s: %s; check the folder of --db", path, strerror(errno));
    free(data);
    char *absolute = realpath(path, NULL);
    free(path);
    return absolute;
}

static void open_campaign(struct campaign_context *context)
{
    struct run_options *options = context->options;
    context->state_dir = state_directory(options->database_path);
    if (!make_directories(context->state_dir))
        fatal("cannot create %s: %s; choose another --db", context->state_dir, strerror(errno));
    /* Absolute, since the runs' LIBFAIL_DIR lives in it and targets may change directory. */
    char *absolute = realpath(context->state_dir, NULL);
    if (absolute) {
        free(context->state_dir);
        context->state_dir = absolute;
    }
    context->db = database_open(options->database_path, true);
    struct campaign_settings stored = {0};
    bool resume = false;
    if (campaign_load(context->db, &stored)) {
        bool unfinished = store_campaign_unfinished(context->db);
        bool same = campaign_same_command(&stored, &options->settings);
        /* A kernel campaign belongs to the build it ran on: another build's system calls have
           other fault points, allocations and lines, and resuming would mix the two. */
        const char *was = stored.kernel_build_id, *is = options->settings.kernel_build_id;
        bool other_kernel = stored.kernel && was && is && strcmp(was, is) != 0;
        if (other_kernel && unfinished && !options->replace)
            fatal("%s holds an unfinished campaign made on another kernel build (build-id %s; "
                  "this kernel's is %s): resuming it would mix two kernels' runs; pass another "
                  "--db, or --replace to start it over", options->database_path, was, is);
        resume = unfinished && same && !other_kernel;
        /* Never lose a campaign without being asked: one of another command or other options
           stays unless --replace says so; the same campaign again starts over. */
        if (!same && !options->replace) {
            char *command = shell_join(stored.argv), *asked = shell_join(options->settings.argv);
            fatal("%s holds %s campaign of `%.200s`%s; pass another --db to keep both, or "
                  "--replace to discard it", options->database_path,
                  unfinished ? "an unfinished" : "a finished", command,
                  strcmp(command, asked) ? "" : " with other options");
        }
        if (!resume && !options->quiet)
            fprintf(stderr, "failrun: replacing the %s campaign in %s\n",
                    unfinished ? "unfinished" : "finished", options->database_path);
    }
    if (resume) {
        if (!options->quiet)
            fprintf(stderr, "failrun: resuming the unfinished campaign in %s\n",
                    options->database_path);
        free(options->settings.stdin_path);
        options->settings.stdin_path = stored.stdin_path ? xstrdup(stored.stdin_path) : NULL;
        options->settings.scope = stored.scope ? xstrdup(stored.scope) : NULL;
        if (!options->settings.timeout_ms)
            options->settings.timeout_ms = stored.timeout_ms;
        /* A vmlinux given now replaces the stored one; else the stored one stays. */
        if (options->settings.vmlinux) {
            store_campaign_set_vmlinux(context->db, options->settings.vmlinux);
        } else if (stored.vmlinux) {
            options->settings.vmlinux = xstrdup(stored.vmlinux);
        }
    } else {
        /* The running kernel's vmlinux outlives a campaign started over: kept unless another
           is given. */
        if (options->settings.kernel && stored.kernel && !options->settings.vmlinux &&
            stored.vmlinux)
            options->settings.vmlinux = xstrdup(stored.vmlinux);
        options->settings.stdin_path = save_stdin(context->state_dir);
        char *runs = xasprintf("%s/runs", context->state_dir);
        remove_tree(runs);
        free(runs);
        store_begin(context->db);
        database_reset(context->db);
        campaign_store(context->db, &options->settings, now_ms());
        store_commit(context->db);
    }
    campaign_settings_free(&stored);
}

int cmd_run(int argc, char **argv)
{
    return run_campaign(argc, argv, &run_options_table, false, NULL, NULL);
}

int run_campaign(int argc, char **argv, const struct option_table *table, bool kernel,
                 void (*before)(struct run_options *options),
                 void (*after)(struct campaign_context *context))
{
    stop_signals_start(); /* before any thread: the others inherit the signals blocked */
    leftovers_adopt();    /* a run's daemonised fixtures become ours to end (leftover.c) */
    struct run_command command = {0};
    parse_options(table, argc, argv, &command);
    struct run_options options = command.options;
    if (options.help) {
        options_usage(table, stdout);
        return 0;
    }
    if (kernel && options.settings.policy_nofail)
        fatal("--policy nofail is failrun run's (sites of the program's own allocations); "
              "failrun kernel takes --policy realistic");
    if (!kernel && options.settings.policy_realistic)
        fatal("--policy realistic is failrun kernel's (the kernel's allocator); failrun run "
              "takes --policy nofail");
    if (before)
        before(&options);
    /* Read before the campaign, so a bad rule stops it at once rather than at the end. */
    VECTOR_PUSH(options.suppression_files, NULL);
    struct suppressions *rules =
        suppressions_load(options.suppression_files.items, !options.no_default_suppressions);
    options.settings.kernel = kernel;
    if (kernel && options.settings.fault_kinds != PLAN_FAULT_ALLOC)
        fatal("failrun kernel fails the kernel's allocations inside system calls; --faults is "
              "for failrun run");
    if (kernel && options.fork == FORK_ALWAYS)
        fatal("failrun kernel re-runs the command per system-call site and N; --fork is for "
              "allocation campaigns (failrun run --fork)");
    struct campaign_context context = {.options = &options, .symbols = symboliser_new()};
    int64_t started = now_ms();
    open_campaign(&context);
    open_scratch(&context);
    if (!baseline_done(context.db))
        run_baseline(&context);
    load_baseline(&context);
    module_map_load(context.db, &context.modules);
    load_baseline_sanitizer(&context);
    signal(SIGPIPE, SIG_IGN);
    if (options.fork != FORK_NEVER && !kernel && !modes_of(&options.settings))
        run_fork_phase(&context);
    owners_check(&context);
    run_planned(&context);
    if (after)
        after(&context);

    store_campaign_add_wall_ms(context.db, now_ms() - started);

    json_t *report = report_build(context.db, options.database_path, rules);
    if (options.keep_runs) { /* what the bound on kept folders removed (bound_kept_runs) */
        json_t *campaign = json_object_get(report, "campaign");
        json_object_set_new(campaign, "keep_runs_bytes",
                            json_integer((json_int_t)options.keep_runs_bytes));
        json_object_set_new(campaign, "kept_runs_removed", json_integer(context.kept_removed));
        json_object_set_new(campaign, "kept_runs_removed_bytes",
                            json_integer((json_int_t)context.kept_removed_bytes));
    }
    suppressions_free(rules);
    free(options.suppression_files.items);
    report_emit(report, &command.outputs, stdout);
    size_t bugs = report_bug_count(report);
    json_int_t unreached =
        json_integer_value(json_object_get(json_object_get(report, "campaign"), "unreached"));
    if (unreached)
        warn("%lld run(s) never reached the site they were to fail, which the baseline reached: "
             "runs disturbed each other or the command varies (the report's first lines)",
             (long long)unreached);
    json_decref(report);
    module_map_free(&context.modules);
    symboliser_free(context.symbols);
    free(context.baseline_live.items);
    free(context.explored.items);
    free(context.kept_runs.items);
    free(context.wrapper_names);
    programs_free(&context);
    sanitizer_leaks_free(&context.baseline_leaks);
    database_close(context.db);
    campaign_settings_free(&options.settings);
    close_scratch(&context);
    free(context.state_dir);
    free(context.baseline_sanitizer);
    return bugs || unreached ? EXIT_BUGS : 0;
}
