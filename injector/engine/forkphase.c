/*
 * forkphase.c — the fork phase of a campaign: which programs answer their runs by forking (at
 * their sites, or at their start inside one more run of the command), and the start fork runs
 * (the fork runs themselves are forkrun.c's).
 */
#include "engine/campaign_run.h"
#include "engine/forkrun.h"
#include "base/util.h"
#include "format/plan.h"
#include "format/text.h"
#include "store/database.h"
#include "store/forks.h"
#include "store/runs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* By default a process forks where re-running it once per site would take at least this long
   (FAILRUN_FORK_ABOVE_MS sets another bound); --fork forks everywhere, --no-fork nowhere. */
#define AUTO_FORK_COST_MS 60000

/* By default the programs that are not worth a fork run of their own (each re-run alone costs
   little, but there are many) fork their runs at their start inside one more run of the command
   when re-running them would cost this much and twice the command's own run
   (FAILRUN_START_ABOVE_MS sets another bound). */
#define AUTO_START_COST_MS 3000

/* A bound in milliseconds from the environment variable `name`, `otherwise` when unset or not a
   whole number. */
static int64_t bound_from_environment(const char *name, int64_t otherwise)
{
    const char *text = getenv(name);
    char *end = NULL;
    long long value = text && *text ? strtoll(text, &end, 10) : -1;
    return end && !*end && value >= 0 ? value : otherwise;
}

/* A program whose runs can fork at its start: it runs alone (so its outcome alone is its outcome
   in the command, and its runs are judged as its owner runs), is not the command's own process,
   and its standard input is a file or nothing (a pipe would be read away by the first child). */
static bool start_forkable(const struct program *program)
{
    return program->alone && !program->top && program->stdin_path &&
           strcmp(program->stdin_kind, "pipe") != 0;
}

/* A program that does not run alone (it needs the suite's fixtures: a client of its test server)
   but whose runs can fork at its start inside the command, where the fixtures are up: not the
   command's own process, its standard input a file, nothing or a pipe (read out once at the
   start: libfail/fork/forkstart.c, spool_input). Else each of its runs is a
   re-run of the whole command. */
static bool start_in_command(const struct program *program)
{
    return program->checked && !program->alone && !program->top &&
           (program->stdin_path || !strcmp(program->stdin_kind, "pipe"));
}

/* Its place among the baseline's starts of its executable (processes not forked, by pid), and
   the executable's line in ROOT/starts/exes, which is added when new: where forkmode_start
   looks for a start matched by order ("ord-LINE-PLACE"). NULL when it has no such start. */
static char *ordinal_name(struct campaign_context *context, const char *root,
                          const struct program *program)
{
    int64_t ordinal = store_program_start_ordinal(context->db, program->exe, program->id);
    char *list = xasprintf("%s/starts/exes", root);
    size_t length = 0;
    char *text = read_whole_file(list, &length);
    int line = 0;
    bool found = false;
    for (char *at = text; at && *at && !found;) {
        char *end = strchr(at, '\n');
        size_t n = end ? (size_t)(end - at) : strlen(at);
        found = n == strlen(program->exe) && !strncmp(at, program->exe, n);
        line += !found;
        at = end ? end + 1 : at + n;
    }
    free(text);
    if (!found) {
        FILE *out = fopen(list, "a");
        if (!out || fprintf(out, "%s\n", program->exe) < 0 || fclose(out) != 0)
            fatal("cannot write %s: %s; check the folder of --db", list, strerror(errno));
    }
    free(list);
    return ordinal >= 0 ? xasprintf("ord-%d-%lld", line, (long long)ordinal) : NULL;
}

typedef VECTOR(int64_t) id_list;

struct start_lines {
    struct campaign_context *context;
    const struct program *program;
    FILE *out;
    int known;      /* "+" lines so far */
    id_list *given; /* the runs given */
};
/* Known sites a start file lists at most: each takes an entry in the start's site table (and a
   slot of its index, whose near part holds 4,096), which its children then touch as they reach
   those sites: scattered over many pages, or crowding the index's near part, they would cost
   more than the records they spare. */
#define START_KNOWN_MAX 1024

/* "+SITE SIZE": a site the program reached in the baseline, with its largest request ("*": any,
   a site out of scope, whose size is nobody's concern), in its start file: the start's children
   record only the sites they reach that are new. */
static void write_known_line(const char *site, int64_t max_size, void *data)
{
    struct start_lines *lines = data;
    if (lines->known++ >= START_KNOWN_MAX)
        return;
    if (max_size < 0)
        fprintf(lines->out, "+%s *\n", site);
    else
        fprintf(lines->out, "+%s %lld\n", site, (long long)max_size);
}

/* "SITE PLAN": a forkable run of the program, in its start file. */
static void write_start_line(const struct store_fork_run *run, void *data)
{
    struct start_lines *lines = data;
    write_site_line(lines->out, &lines->context->options->settings, lines->program, run->site,
                    run->plan);
    VECTOR_PUSH(*lines->given, run->id);
}

/* ROOT/starts/HASH-N for `program` (libfail/fork/forkstart.c, forkmode_start): its executable,
   working folder, one "+SITE SIZE" line per site it reached in the baseline and one "SITE PLAN"
   line per forkable run it owns. Returns the file's name
   ("HASH-N"), or NULL when the baseline has no command line for it. */
/* Whether a walk of `folder` that skips hidden names reaches `path`: a folder of the campaign
   (its database's, its runs') that putting a start's working folder back would touch. */
static bool walked_from(const char *folder, const char *path)
{
    char *real_folder = realpath(folder, NULL), *real_path = realpath(path, NULL);
    bool reached = false;
    if (!real_folder || !real_path) {
        reached = true; /* cannot tell: as if it did */
    } else {
        size_t length = strlen(real_folder);
        if (!strcmp(real_folder, "/"))
            length = 0;
        if (!strncmp(real_path, real_folder, length) &&
            (real_path[length] == '/' || real_path[length] == '\0')) {
            reached = true;
            for (const char *at = real_path + length; *at; at++)
                if (at[0] == '/' && at[1] == '.')
                    reached = false; /* a hidden folder on the way (.failrun): never walked */
        }
    }
    free(real_folder);
    free(real_path);
    return reached;
}

/* Whether the start's working folder may be put back after its children (forkrestore.c): a
   folder inside the command's own (not /tmp, not a home folder the command was started above),
   from which a walk does not reach the campaign's own files. */
static bool restorable(const struct campaign_context *context, const struct program *program)
{
    if (program->cwd[0] != '/')
        return false; /* inside the run's folder ("@/REST"): failrun's */
    const char *command_cwd = context->options->settings.cwd;
    if (!command_cwd || !walked_from(command_cwd, program->cwd))
        return false;
    char *database = xstrdup(context->options->database_path);
    char *slash = strrchr(database, '/');
    if (slash)
        *slash = '\0';
    bool clear = !walked_from(program->cwd, slash ? database : ".") &&
                 !walked_from(program->cwd, context->state_dir) &&
                 !walked_from(program->cwd, context->runs_dir); /* the fork runs' */
    free(database);
    return clear;
}

static char *write_start_file(struct campaign_context *context, const char *root,
                              const struct program *program, bool restore, bool rounds,
                              id_list *given)
{
    char *name = program->in_command ? ordinal_name(context, root, program) : NULL;
    char *hash = !program->in_command ? store_program_command_line(context->db, program->id)
                                      : NULL;
    if (hash) {
        for (int n = 0; !name && n < 64; n++) {
            char *path = xasprintf("%s/starts/%s-%d", root, hash, n);
            if (access(path, F_OK) != 0)
                name = xasprintf("%s-%d", hash, n);
            free(path);
        }
    }
    free(hash);
    if (!name)
        return NULL;
    char *path = xasprintf("%s/starts/%s", root, name);
    FILE *out = fopen(path, "w");
    if (!out)
        fatal("cannot write %s: %s; check the folder of --db", path, strerror(errno));
    /* A working folder inside the baseline's run folder (a harness that makes its scratch
       folder in LIBFAIL_DIR) is that folder inside the fork run's: "@/REST". */
    char *base = store_baseline_dir(context->db);
    size_t length = base ? strlen(base) : 0;
    if (base && !strncmp(program->cwd, base, length) &&
        (program->cwd[length] == '/' || program->cwd[length] == '\0'))
        fprintf(out, "%s\n@%s\n", program->exe, program->cwd + length);
    else
        fprintf(out, "%s\n%s\n", program->exe, program->cwd);
    free(base);
    /* own-time=1: the children's time is bounded by the unfailed child's (forkstart.c), unless
       the user gave the runs' limit. */
    fprintf(out, "restore=%d own-time=%d", restore && restorable(context, program),
            !context->options->settings.timeout_ms);
    if (rounds) /* its children judged while it waits (startrounds.c) */
        fprintf(out, " rounds=%ld", (long)getpid());
    /* A program inside the command: its children share the suite's live fixtures and files
       (two curl children at once against one test server: one waited for its reply until its
       time ran out), so they run one at a time, as the runs of a command with fixtures do. */
    if (program->in_command)
        fputs(" one-at-a-time=1", out);
    /* Under valgrind the program's own run after the children is native, in the zygote that
       forked them (forkstart.c): the baseline gave its verdict under valgrind.
       FAILRUN_START_NATIVE=0: the guest runs it, under valgrind, as in the baseline. */
    const char *native = getenv("FAILRUN_START_NATIVE");
    if (native && !strcmp(native, "0"))
        fputs(" guest-main=1", out);
    fputc('\n', out);
    struct start_lines lines = {context, program, out, 0, given};
    store_program_known_sites_each(context->db, program->id, write_known_line, &lines);
    store_fork_runs_each(context->db, program->id, write_start_line, &lines);
    if (fclose(out) != 0)
        fatal("cannot write %s: %s", path, strerror(errno));
    free(path);
    return name;
}

/* The runs lent to programs that fork at their start inside the command go back to the command
   (those not answered are re-runs of it). */
static void release_in_command(struct campaign_context *context, struct program **starts,
                               size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (!starts[i]->in_command)
            continue;
        store_program_runs_release(context->db, starts[i]->id);
        store_start_program_unmark(context->db, starts[i]->id);
        starts[i]->in_command = false;
    }
}

/* One run of the command (the `pass`-th, from 1) in which each program of `starts` forks its
   runs at its start. Returns true when the command ended otherwise than in the baseline; then
   untaken[i] says that starts[i] never started in it (a harness that stops at its first failed
   test stopped before it), and its runs stay planned for another pass. */
struct lending {
    struct campaign_context *context;
    program_list *starts;
    int64_t *start_sites, *start_cost, baseline_wall;
};

/* A program that does not run alone: when it can fork at its start inside the command, it is
   lent its runs. */
static void lend_to(int64_t id, void *data)
{
    struct lending *lending = data;
    struct campaign_context *context = lending->context;
    struct program *program = program_get(context, id);
    if (!program || !start_in_command(program))
        return;
    int64_t sites = store_fork_runs_lend(context->db, program->id);
    if (sites <= 0)
        return;
    store_start_program_mark(context->db, program->id);
    program->in_command = true;
    VECTOR_PUSH(*lending->starts, program);
    *lending->start_sites += sites;
    *lending->start_cost += sites * (lending->baseline_wall > 0 ? lending->baseline_wall : 1);
}

/* Lends each program that forks at its start inside the command the planned runs whose first
   site it reached in the baseline (the first program to reach one has it), chains included,
   and adds it to `starts` and temp.start_programs. */
static void lend_in_command(struct campaign_context *context, program_list *starts,
                            int64_t *start_sites, int64_t *start_cost, int64_t baseline_wall)
{
    struct lending lending = {context, starts, start_sites, start_cost, baseline_wall};
    store_programs_not_alone_each(context->db, lend_to, &lending);
}

/* The folder of the `number`-th start fork run of this failrun (each its own: the folders of
   the runs that found bugs stay in it). */
static char *start_root(const struct campaign_context *context, int number)
{
    return number > 1 ? xasprintf("%s/fork-%ld-starts%d", context->runs_dir, (long)getpid(), number)
                      : xasprintf("%s/fork-%ld-starts", context->runs_dir, (long)getpid());
}

static bool start_fork_run(struct campaign_context *context, struct program **starts, size_t count,
                           int pass, int number, bool *untaken, int64_t *forkable_total,
                           int64_t *concluded_total)
{
    char *root = start_root(context, number);
    char *command_dir = xasprintf("%s/command", root);
    char *starts_dir = xasprintf("%s/starts", root);
    remove_tree(root);
    if (!make_directories(command_dir) || !make_directories(starts_dir))
        fatal("cannot create %s: %s; check the folder of --db", command_dir, strerror(errno));
    char **names = xcalloc(count, sizeof *names);
    int64_t forkable = 0, timeout_ms = 1;
    /* The children of programs inside the command are judged while their start waits, which
       then forks the chains on their error legs (startrounds.c). FAILRUN_START_ROUNDS=0:
       never; the chains wait for one more fork run of the command a level. */
    const char *asked = getenv("FAILRUN_START_ROUNDS");
    bool with_rounds = !(asked && !strcmp(asked, "0"));
    struct start_rounds *rounds = start_rounds_begin(context, root, command_dir);
    for (size_t i = 0; i < count; i++) {
        id_list given = {0};
        bool rounded = with_rounds && starts[i]->in_command;
        names[i] = write_start_file(context, root, starts[i], context->restore_starts, rounded,
                                    &given);
        if (names[i] && rounded)
            start_rounds_add(rounds, starts[i], names[i], given.items, given.count);
        free(given.items);
        if (names[i])
            forkable += forkable_count(context->db, starts[i]->id);
        /* One that does not run alone has no time of its own alone: the command's bound. */
        int64_t limit = starts[i]->in_command ? context->timeout_ms : starts[i]->timeout_ms;
        if (limit > timeout_ms)
            timeout_ms = limit;
    }
    size_t restored = 0;
    for (size_t i = 0; context->restore_starts && i < count; i++)
        restored += names[i] && restorable(context, starts[i]);
    if (number == 1 && restored) { /* for the report, once */
        char *note = xasprintf("the working folder of %zu program start(s) put back after "
                               "their children (files that grew cut back, new ones removed)",
                               restored);
        add_fork_note(context, note);
        free(note);
    }
    if (!context->options->quiet) {
        fprintf(stderr, "failrun: fork run of %s, %zu program(s) forking at their start (%lld "
                        "sites)%s",
                context->options->settings.argv[0], count, (long long)forkable,
                !context->restore_starts ? "\n"
                : restored ? ""
                           : " (their working folders are not put back after their children: "
                             "outside the command's folder, or the campaign's files lie in "
                             "them)\n");
        if (context->restore_starts && restored)
            fprintf(stderr, ", the working folder of %zu of them put back after their children "
                            "(files that grew cut back, new ones removed)\n",
                    restored);
    }
    start_rounds_serve(rounds);
    struct spawn_result command = /* a control child per start, too */
        execute_fork_run(context, root, command_dir, forkable + 3 * (int64_t)count, NULL,
                         timeout_ms, start_rounds_progress(rounds));
    int64_t given = 0;
    int64_t concluded = start_rounds_end(rounds, &given);
    /* The programs' unfailed processes go on after their children: the command must end as in
       the baseline, or the children changed something it used (see fork_run), and every site
       is re-run. With programs that need the command around them (in_command),
       it may end otherwise because its fixtures saw what the children did (a test server logs
       every request, and the harness compares its log): then each start stands or falls by its
       own unfailed child (start_differs). */
    bool in_command = false;
    for (size_t i = 0; i < count; i++)
        in_command |= starts[i]->in_command;
    bool diverged = command.timed_out || command.signal != context->baseline.signal ||
                    command.exit_code != context->baseline.exit_code;
    if (diverged) {
        char *note = xasprintf(in_command ? "the fork run of %s ended otherwise than in the "
                                            "baseline (its fixtures or files saw what the "
                                            "children did): each program's start was judged by "
                                            "its own unfailed child"
                                          : "the fork run of %s ended otherwise than in the "
                                            "baseline: the children of its programs' starts may "
                                            "have changed files it used; their sites are re-run",
                               context->options->settings.argv[0]);
        warn("%s", note);
        add_fork_note(context, note);
        free(note);
    }
    /* The command's own output, its starts' children's never in it: the command run once
       more without faults, for the check that its output is stable (no run of its own). */
    if (!diverged)
        check_output_from(context, command_dir);
    for (size_t i = 0; i < count && (!diverged || in_command); i++) {
        if (!names[i])
            continue;
        char *taken = xasprintf("%s/starts/%s.taken", root, names[i]);
        untaken[i] = diverged && access(taken, F_OK) != 0;
        free(taken);
        if (untaken[i])
            continue; /* never started: the command stopped before it */
        const char *why = start_differs(root, names[i], starts[i]);
        if (why) {
            char *note = xasprintf("%s's start in the fork run left its sites to re-runs: %s",
                                   base_name(starts[i]->exe), why);
            if (!context->options->quiet)
                fprintf(stderr, "failrun: %s\n", note);
            add_fork_note(context, note);
            free(note);
            explain_refusals(context, root, starts[i]->exe, starts[i]->id); /* why it could not */
            continue;
        }
        concluded +=
            conclude_start(context, root, command_dir, &command, starts[i], names[i], NULL);
        explain_refusals(context, root, starts[i]->exe, starts[i]->id);
    }
    for (size_t i = 0; i < count; i++) {
        if (!untaken[i])
            finish_fork_run(context, root, starts[i]->id);
        free(names[i]);
    }
    free(names);
    if (pass == 1)
        *forkable_total += forkable;
    *forkable_total += given; /* the chains the rounds gave */
    *concluded_total += concluded;
    remove_fork_folder(context, root);
    free(starts_dir);
    free(command_dir);
    free(root);
    return diverged;
}

/* Fork runs of the command for `starts` until every start has been reached once. A harness that
   stops at its first failed test (curl's runtests) stops early in a fork run whose children
   disturbed a fixture: the starts after that test never happen. Another run then reaches them,
   the starts answered already running unforked, as long as each run answers some site. */
static void start_fork_runs(struct campaign_context *context, struct program **starts, size_t count,
                            int64_t *forkable_total, int64_t *concluded_total)
{
    bool *untaken = xcalloc(count + 1, sizeof *untaken);
    struct program **left_over = xcalloc(count + 1, sizeof *left_over); /* starts stays whole */
    memcpy(left_over, starts, count * sizeof *starts);
    starts = left_over;
    static int made; /* start fork runs of this failrun so far */
    /* What the children do shows in the suite's files (a test server's log of every request,
       which the harness then compares): each start's working folder is put back after its
       children, where it can be (restorable). FAILRUN_START_RESTORE=0: never. */
    const char *asked = getenv("FAILRUN_START_RESTORE");
    context->restore_starts = !(asked && !strcmp(asked, "0"));
    for (int pass = 1;; pass++) {
        memset(untaken, 0, (count + 1) * sizeof *untaken);
        int64_t before = *concluded_total;
        int number = ++made;
        bool diverged = start_fork_run(context, starts, count, pass, number, untaken,
                                       forkable_total, concluded_total);
        size_t left = 0;
        for (size_t i = 0; i < count; i++)
            if (untaken[i])
                starts[left++] = starts[i];
        if (!diverged || left == 0)
            break;
        if (*concluded_total == before) {
            /* No progress: what is left goes to re-runs. */
            char *root = start_root(context, number);
            for (size_t i = 0; i < left; i++)
                finish_fork_run(context, root, starts[i]->id);
            free(root);
            char *note = xasprintf("%zu program start(s) never happened in the fork runs of %s "
                                   "(it stops before them): their sites are re-run",
                                   left, context->options->settings.argv[0]);
            if (!context->options->quiet)
                fprintf(stderr, "failrun: %s\n", note);
            add_fork_note(context, note);
            free(note);
            break;
        }
        /* What its children did showed in the suite's files, in a folder not put back. */
        char *note = xasprintf("the fork run of %s stopped before %zu program start(s): fork "
                               "run %d of it for them",
                               context->options->settings.argv[0], left, pass + 1);
        if (!context->options->quiet)
            fprintf(stderr, "failrun: %s\n", note);
        add_fork_note(context, note);
        free(note);
        count = left;
    }
    free(untaken);
    free(left_over);
}

/* Whether the programs gathered for a start fork run (re-running them alone would take
   `cost_ms`) fork at their start. Said on stderr and kept for the report. */
static bool starts_pay(struct campaign_context *context, size_t count, int64_t forkable,
                       int64_t cost_ms, int64_t baseline_wall_ms)
{
    if (count == 0 || forkable == 0)
        return false;
    int64_t bound = bound_from_environment(
        "FAILRUN_START_ABOVE_MS",
        AUTO_START_COST_MS > 2 * baseline_wall_ms ? AUTO_START_COST_MS : 2 * baseline_wall_ms);
    if (cost_ms < bound)
        return false;
    char *note = xasprintf("%zu program(s) fork at their start for their %lld sites, inside one "
                           "more run of the command: re-running them would take about "
                           "%lld s; --no-fork re-runs",
                           count, (long long)forkable, (long long)(cost_ms / 1000));
    if (!context->options->quiet)
        fprintf(stderr, "failrun: %s\n", note);
    add_fork_note(context, note);
    free(note);
    return true;
}

/* Whether `name` (a program alone, or the command) forks for its `forkable` runs, each of which
   would otherwise start it once more for `wall_ms`. By default only where that would add up to a
   minute or more; the choice is said on stderr and kept for the report (campaign.fork_note). */
static bool fork_pays(struct campaign_context *context, const char *name, int64_t forkable,
                      int64_t wall_ms)
{
    if (forkable == 0)
        return false;
    if (context->options->fork == FORK_ALWAYS)
        return true;
    if (wall_ms < 1)
        wall_ms = 1;
    if (forkable * wall_ms < bound_from_environment("FAILRUN_FORK_ABOVE_MS", AUTO_FORK_COST_MS))
        return false;
    const char *base = base_name(name);
    char *note = xasprintf("%s forks at its sites: re-running it for each of its %lld sites would "
                           "take about %lld s (%lld ms a run); --no-fork re-runs",
                           base, (long long)forkable, (long long)(forkable * wall_ms / 1000),
                           (long long)wall_ms);
    if (!context->options->quiet)
        fprintf(stderr, "failrun: %s\n", note);
    add_fork_note(context, note);
    free(note);
    return true;
}

static void add_id(int64_t id, void *data)
{
    id_list *ids = data;
    VECTOR_PUSH(*ids, id);
}

void run_fork_phase(struct campaign_context *context)
{
    int64_t forkable = 0, concluded = 0;
    store_start_programs_create(context->db);
    int64_t baseline_wall = store_baseline_wall_ms(context->db);
    if (owner_mode(&context->options->settings)) {
        owners_check(context); /* which programs run alone: they fork alone too */
        id_list programs = {0};
        store_fork_run_owners_each(context->db, add_id, &programs);
        bool told = false;
        program_list starts = {0};
        int64_t start_sites = 0, start_cost = 0;
        for (size_t i = 0; i < programs.count; i++) {
            struct program *program = program_get(context, programs.items[i]);
            if (!program || !program->alone)
                continue;
            int64_t sites = forkable_count(context->db, program->id);
            if (!fork_pays(context, program->exe, sites, program->alone_wall_ms)) {
                if (context->options->fork == FORK_AUTO && sites > 0 && start_forkable(program)) {
                    VECTOR_PUSH(starts, program);
                    start_sites += sites;
                    start_cost += sites * (program->alone_wall_ms > 0 ? program->alone_wall_ms : 1);
                }
                continue;
            }
            if (!told && !context->options->quiet && context->options->fork == FORK_ALWAYS)
                fprintf(stderr, "failrun: fork runs of %zu program(s) alone\n", programs.count);
            told = true;
            fork_run(context, program, 0, &forkable, &concluded);
        }
        /* Then the programs that need the command around them: the runs of the sites each
           reached in the baseline (the first to reach one has it), lent for the fork run.
           What the children leave in the files, fixtures and pipes the program shares with its
           suite (a repository a later child finds made, a token read away from the driver's
           pipe, a stale lock) is caught by the start's unfailed children: the second (its
           output varies) and the last, after all the others (they changed what it depends
           on); either sends the start's sites to re-runs. FAILRUN_START_IN_COMMAND=0: never. */
        const char *asked = getenv("FAILRUN_START_IN_COMMAND");
        bool in_command = context->options->fork == FORK_AUTO && !(asked && !strcmp(asked, "0"));
        if (in_command)
            lend_in_command(context, &starts, &start_sites, &start_cost, baseline_wall);
        bool paid = starts_pay(context, starts.count, start_sites, start_cost, baseline_wall);
        if (paid)
            start_fork_runs(context, starts.items, starts.count, &forkable, &concluded);
        release_in_command(context, starts.items, starts.count);
        /* Their children's error legs reached sites of their own: the chains planned for them
           (a failure, then one on its error leg) fork at the start as well, in one more run of
           the command per level, rather than each in a re-run of it. */
        for (int level = 1; paid && in_command && level < PLAN_MAX_FAULTS; level++) {
            starts.count = 0;
            start_sites = start_cost = 0;
            lend_in_command(context, &starts, &start_sites, &start_cost, baseline_wall);
            if (starts.count == 0)
                break;
            if (!context->options->quiet)
                fprintf(stderr, "failrun: %lld run(s) of sites on the error legs of %zu program "
                                "start(s): one more fork run of the command\n",
                        (long long)start_sites, starts.count);
            start_fork_runs(context, starts.items, starts.count, &forkable, &concluded);
            release_in_command(context, starts.items, starts.count);
        }
        free(starts.items);
        free(programs.items);
    }
    /* The command forks for what is left: by default only for the runs of no program alone. */
    int64_t selector = context->options->fork == FORK_ALWAYS ? 0 : UNOWNED;
    if (fork_pays(context, context->options->settings.argv[0],
                  forkable_count(context->db, selector), baseline_wall)) {
        check_output(context); /* the command's fork run compares its output */
        fork_run(context, NULL, selector, &forkable, &concluded);
    }
    if (!context->options->quiet && forkable)
        fprintf(stderr, "failrun: %lld of %lld sites answered by forks, the rest re-run\n",
                (long long)concluded, (long long)forkable);
}
