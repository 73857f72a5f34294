/*
 * campaign.h — a campaign's settings (what to run, how deep, which processes), as stored in the
 * database; module lookups over the stored modules.
 */
#ifndef FAILRUN_CAMPAIGN_H
#define FAILRUN_CAMPAIGN_H

#include "store/ingest.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#define DEFAULT_DATABASE ".failrun/campaign.db"

struct campaign_settings {
    char **argv; /* NULL-terminated */
    char *cwd;
    char *top_exe;
    char *stdin_path; /* NULL: /dev/null */
    int depth;
    int64_t timeout_ms; /* 0: derived from the baseline */
    char *exe_globs;    /* --exe globs, ':'-separated; "" when not given */
    char *module_globs;
    char *scope;        /* LIBFAIL_EXE of the runs: globs, or "" for every non-system executable;
                           decided after the baseline (decide_scope), NULL before */
    /* What each fault run fails (doc/guide/faults.md). */
    uint64_t occurrence; /* site mode: fail each site's K-th call (default 1) */
    bool persistent;     /* site mode: and every call after it */
    uint64_t nth;        /* nth mode: fail the N-th call (0: not this mode) */
    bool nth_sweep;      /* nth mode: N = 1, 2, ... until a run where the N-th call never comes */
    char *probability;   /* random mode: "P" as given, NULL: not this mode */
    uint64_t seed;       /* random mode: the first run's seed, then seed+1, ... */
    int64_t max_runs;    /* bound on fault runs, exploration included */
    unsigned shard, shards; /* --shard K/N: this campaign runs slice K (1-based) of N */
    bool kernel;            /* failrun kernel: system-call sites and the kernel's fail-nth */
    bool kernel_wrappers;   /* failrun kernel --wrappers: sites only at libc's wrappers */
    bool kmem_trace;        /* failrun kernel --kmem-trace: name each failed kernel allocation */
    bool syscall_once;      /* failrun kernel --once-per-syscall: one site per system call */
    char *kernel_build_id;  /* failrun kernel: the running kernel's build-id (hex), NULL: unknown */
    bool kcov;              /* failrun kernel --kcov: the kernel lines each armed call ran */
    char *vmlinux;          /* failrun kernel --vmlinux: symbolises the KCOV PCs; NULL: none */
    bool policy_nofail;     /* --policy nofail: NOFAIL-eligible sites never fail (policy.h) */
    bool policy_realistic;  /* failrun kernel --policy realistic: the kernel counts as fault points
                               only allocations its allocator can fail (cmd_kernel.c) */
    uint64_t nofail_below;  /* --nofail-below: the size threshold of eligibility */
    unsigned fault_kinds;   /* --faults: PLAN_FAULT_ALLOC, PLAN_FAULT_IO (0 reads as alloc) */
    bool whole_command;     /* --whole-command: every run re-runs the command, never the program
                               that owns the site alone (owner.c) */
    char *source_globs;     /* --source globs, ':'-separated; NULL or "": every site (source.h) */
    char *wrappers;         /* --wrapper functions, ':'-separated; NULL or "": none named */
    char *returns;          /* --returns FUNC=KIND rules, ':'-separated; NULL or "": learned */
    bool boundary;          /* --boundary: record what the code under test returned (LD_AUDIT) */
    bool boundary_idle;     /* not stored: the baseline saw no call into a library in scope, so
                               later runs go without the audit module (load_baseline) */
    bool every_start;       /* --every-start: a site is failed in every program that reached it
                               in the baseline, not only its owner (planner.c) */
    bool fail_bookkeeping;  /* --fail-bookkeeping: also fail what an allocation wrapper allocates
                               for itself (source.h: sites_mark_bookkeeping) */
    char *test_cases;       /* --test-case FUNC[:int] entries, ','-separated; NULL or "": the
                               built-in runners only (libfail/fork/testcase.c) */
    int64_t hang_cpu_ms;    /* not stored: the CPU a process may use after its planned fault
                               fired before it is a hang (plan key cpu; 0: none); from the
                               baseline's CPU time (load_baseline) */
};

/* --faults as text ("alloc", "io", "alloc,io": the kinds.def names of the set), and back: 0
   when `text` is not such a list. The plan's form (";faults=alloc,io") too. */
const char *fault_kinds_text(unsigned kinds);
const char *fault_kinds_plan_text(unsigned kinds);
unsigned fault_kinds_parse(const char *text);

/* Where a run's gcov data goes (its GCOV_PREFIX): beside its folder, not in it, so coverage
   outlives the folders of runs that found no bug. */
char *coverage_directory(const char *run_dir);
/* The same data as one pack (base/pack.h) in the collection of its kept place's folder
   (FOLDER/gcov.packs, under the key of the run's name, returned in *key: inside run_dir): what
   a run in the scratch file system leaves when failrun keeps it (settle_run_folder). failrun
   cov reads either. */
char *coverage_collection(const char *run_dir, const char **key);
/* Removes a run's gcov data: its folder, its pack (a removal appended to the collection). */
void remove_coverage(const char *run_dir);
/* Removes a run's folder and its coverage beside it. */
void remove_run_folder(const char *run_dir);

/* Frees a NULL-terminated list of strings (strings_from_blob's, run_environment's). */
void environment_free(char **environment);

void campaign_store(sqlite3 *db, const struct campaign_settings *settings, int64_t started_ms);
/* False when the database holds no campaign. */
bool campaign_load(sqlite3 *db, struct campaign_settings *settings);
/* Is the first fault run planned for this site / nth / seed in this shard's slice? */
bool in_shard(const struct campaign_settings *settings, uint64_t value);
bool campaign_same_command(const struct campaign_settings *a, const struct campaign_settings *b);
void campaign_settings_free(struct campaign_settings *settings);
char *argv_to_json(char *const *argv);
/* NUL-terminated strings one after another (a program's argv or environment as stored), as a
   NULL-terminated list; free with environment_free. */
char **strings_from_blob(const void *bytes, int length);
/* "prog ARGS": a program of the baseline as the report names it (the executable's base name and
   the arguments, shell-quoted), newly allocated. */
char *program_title(const char *exe, char *const *argv);

/* Module paths by id, loaded from the database, and plumbing detection. */
struct module_map {
    size_t count;
    uint64_t *ids;
    char **paths;
};
void module_map_load(sqlite3 *db, struct module_map *map);
const char *module_map_path(const struct module_map *map, uint64_t id);
void module_map_free(struct module_map *map);
/* libc, the loader, libfail's own preload and its unwinder: frames there are never "the" site. */
bool module_is_plumbing(const char *path);
/* failrun's own runtime and the sanitizers' (never where a bug is). */
bool module_is_tool(const char *path);
/* The C library, the loader and the compiler's runtime: a fault there is marked as such. */
bool module_is_system(const char *path);
/* Index of the first frame outside plumbing modules, or -1. */
int first_own_frame(const struct module_map *map, const struct frame_list *frames);


#endif
