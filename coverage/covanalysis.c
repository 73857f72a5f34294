/*
 * covanalysis.c — the pure part of coverage: which lines and branches are error legs (the
 * program's reaction to a failure, see coverage.h), which sites reached them, and which of them
 * a NOFAIL policy makes dead. No database, no gcov: counts in, classes out, so every rule is
 * unit-tested on made-up campaigns (tests/unit/test_coverage.c).
 *
 * Two parts kept apart on purpose: attribution (add_legs: which lines a site's failure reached
 * in a run) and the policy rule (run_needs_eligible: does that reach survive under NOFAIL;
 * run_keeps_by_io: is it kept because the run's own failure was an I/O call).
 */
#include "coverage.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

const char *line_class_name(enum line_class class)
{
    static const char *const names[LINE_CLASSES] = {
        [LINE_UNREACHED] = "unreached", [LINE_UNTAKEN] = "untaken",
        [LINE_ORDINARY] = "ordinary",   [LINE_DELETABLE] = "deletable",
        [LINE_KEPT] = "kept"};
    return class < LINE_CLASSES ? names[class] : "?";
}

struct reach {
    bool leg, kept, executed;
    bool by_io; /* kept by a run whose own failure was an I/O call */
    bool plain; /* executed by a run without a fault (the baseline, a program's run alone) */
};

struct coverage_analysis {
    const struct coverage_layout *layout;
    const struct coverage_site *sites;
    size_t site_count;
    const uint64_t *baseline_lines, *baseline_branches;
    long *line_function;  /* per line: its function (the narrowest holding it), -1 none */
    long *reaction_after; /* per line: the first line with branches at or after it, same function */
    size_t *call_start;   /* site s's calls as line indices: call_lines[call_start[s] ..
                             call_start[s + 1] - 1], -1 where the frame has no coverage line */
    long *call_lines;
    bool *reaction_branch; /* at the reaction point right after a failable site's call */
    long *site_reaction;   /* per site: that reaction point (line), -1 none */
    struct reach *line_reach, *branch_reach;
    struct coverage_item *line_items, *branch_items;
    uint32_t *visited; /* per function, for the callee walk */
    uint32_t walks;
};

/* ---- the layout: functions and reaction points ---- */

static long first_line_at(const struct coverage_layout *layout, int64_t file, int line)
{
    size_t low = 0, high = layout->line_count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        const struct coverage_line *at = &layout->lines[middle];
        if (at->file < file || (at->file == file && at->line < line))
            low = middle + 1;
        else
            high = middle;
    }
    return (long)low;
}

long coverage_find_line(const struct coverage_layout *layout, int64_t file, int line)
{
    long at = first_line_at(layout, file, line);
    return (size_t)at < layout->line_count && layout->lines[at].file == file &&
                   layout->lines[at].line == line ? at : -1;
}

static void assign_functions(struct coverage_analysis *a)
{
    const struct coverage_layout *layout = a->layout;
    for (size_t f = 0; f < layout->function_count; f++) {
        const struct coverage_function *function = &layout->functions[f];
        for (long l = first_line_at(layout, function->file, function->start);
             (size_t)l < layout->line_count && layout->lines[l].file == function->file &&
             layout->lines[l].line <= function->end;
             l++) {
            long current = a->line_function[l];
            if (current < 0 || layout->functions[current].end - layout->functions[current].start >
                                   function->end - function->start)
                a->line_function[l] = (long)f;
        }
    }
    long next = -1;
    for (long l = (long)layout->line_count - 1; l >= 0; l--) {
        if ((size_t)l + 1 == layout->line_count || a->line_function[l + 1] != a->line_function[l])
            next = -1; /* a new function: its reaction points are its own */
        if (layout->lines[l].branch_count)
            next = l;
        a->reaction_after[l] = a->line_function[l] >= 0 ? next : -1;
    }
}

/* The function holding (file, line), narrowest first; -1 when none. */
static long function_at(const struct coverage_layout *layout, int64_t file, int line)
{
    long best = -1;
    for (size_t f = 0; f < layout->function_count; f++) {
        const struct coverage_function *function = &layout->functions[f];
        if (function->file == file && function->start <= line && line <= function->end &&
            (best < 0 || function->end - function->start <
                             layout->functions[best].end - layout->functions[best].start))
            best = (long)f;
    }
    return best;
}

/* A call's line in the layout: the line itself, or, when gcov has no count on it (a statement
   spread over several lines), the nearest instrumented line above it in the same function. */
static long resolve_call(const struct coverage_analysis *a, const struct coverage_call *call)
{
    if (call->file < 0)
        return -1;
    long exact = coverage_find_line(a->layout, call->file, call->line);
    if (exact >= 0)
        return exact;
    long function = function_at(a->layout, call->file, call->line);
    long above = first_line_at(a->layout, call->file, call->line) - 1;
    if (function < 0 || above < 0 || a->layout->lines[above].file != call->file ||
        a->line_function[above] != function)
        return -1;
    return above;
}

static void reaction_candidates(const struct coverage_analysis *a, long call, bool failed_call,
                                long candidates[2]);

static void resolve_sites(struct coverage_analysis *a)
{
    size_t total = 0;
    for (size_t s = 0; s < a->site_count; s++)
        total += a->sites[s].call_count;
    a->call_start = xcalloc(a->site_count + 1, sizeof *a->call_start);
    a->site_reaction = xcalloc(a->site_count + 1, sizeof *a->site_reaction);
    for (size_t s = 0; s < a->site_count; s++)
        a->site_reaction[s] = -1;
    a->call_lines = xcalloc(total + 1, sizeof *a->call_lines);
    size_t at = 0;
    for (size_t s = 0; s < a->site_count; s++) {
        a->call_start[s] = at;
        const struct coverage_site *site = &a->sites[s];
        bool first = true;
        for (size_t c = 0; c < site->call_count; c++) {
            long line = resolve_call(a, &site->calls[c]);
            a->call_lines[at++] = line;
            /* The error reaction of a failable call: the branch after the first call that has
               coverage (the program's own call into an uninstrumented library included). Until
               a run shows which candidate reacts, the call's own line if it has branches. */
            if (line < 0 || !first)
                continue;
            first = false;
            long candidates[2];
            reaction_candidates(a, line, true, candidates);
            if (!site->never_fails)
                a->site_reaction[s] = candidates[0] >= 0 ? candidates[0] : candidates[1];
        }
    }
    a->call_start[a->site_count] = at;
}

/* Lines and branches a run without any fault executed: live whatever the policy. */
static void add_plain(struct coverage_analysis *a, const uint64_t *lines, const uint64_t *branches)
{
    for (size_t l = 0; lines && l < a->layout->line_count; l++)
        a->line_reach[l].plain |= lines[l] > 0;
    for (size_t b = 0; branches && b < a->layout->branch_count; b++)
        a->branch_reach[b].plain |= branches[b] > 0;
}

struct coverage_analysis *coverage_analysis_new(const struct coverage_layout *layout,
                                                const struct coverage_site *sites,
                                                size_t site_count, const uint64_t *baseline_lines,
                                                const uint64_t *baseline_branches)
{
    struct coverage_analysis *a = xcalloc(1, sizeof *a);
    size_t lines = layout->line_count + 1, branches = layout->branch_count + 1;
    *a = (struct coverage_analysis){
        .layout = layout, .sites = sites, .site_count = site_count,
        .baseline_lines = baseline_lines, .baseline_branches = baseline_branches,
        .line_function = xcalloc(lines, sizeof(long)), .reaction_after = xcalloc(lines, sizeof(long)),
        .reaction_branch = xcalloc(branches, sizeof(bool)),
        .line_reach = xcalloc(lines, sizeof(struct reach)),
        .branch_reach = xcalloc(branches, sizeof(struct reach)),
        .line_items = xcalloc(lines, sizeof(struct coverage_item)),
        .branch_items = xcalloc(branches, sizeof(struct coverage_item)),
        .visited = xcalloc(layout->function_count + 1, sizeof(uint32_t)),
    };
    for (size_t l = 0; l < layout->line_count; l++)
        a->line_function[l] = -1;
    add_plain(a, baseline_lines, baseline_branches);
    assign_functions(a);
    resolve_sites(a);
    return a;
}

/* ---- a run ---- */

/* The NOFAIL rule. A run "goes through" an eligible site when any site it failed is eligible:
   under the NOFAIL policy that failure never happens, so nothing after it in the run happens
   either. What such a run reached is deletable unless another run reached it too. */
static bool run_needs_eligible(const struct coverage_analysis *a, const struct coverage_run *run)
{
    for (size_t i = 0; i < run->chain_count; i++)
        if (run->chain[i] >= 0 && (size_t)run->chain[i] < a->site_count &&
            a->sites[run->chain[i]].eligible)
            return true;
    return run->site >= 0 && (size_t)run->site < a->site_count && a->sites[run->site].eligible;
}

/* Kept because of I/O: the run keeps what it reached (no exempted failure on its way) and the
   failure it was planned for is an I/O call. The policy never exempts an I/O site, so such a
   leg stays under NOFAIL whatever else reaches it. */
static bool run_keeps_by_io(const struct coverage_analysis *a, const struct coverage_run *run,
                            bool needs_eligible)
{
    return !needs_eligible && run->site >= 0 && (size_t)run->site < a->site_count &&
           a->sites[run->site].io;
}

static void add_site(struct coverage_item *item, int site)
{
    for (size_t i = 0; i < item->site_count; i++)
        if (item->sites[i] == site)
            return;
    item->sites = xrealloc(item->sites, (item->site_count + 1) * sizeof *item->sites);
    item->sites[item->site_count++] = site;
}

/* How a run's reach counts under the policy: kept (no exempted failure on its way) and, of
   those, kept because its own failure was an I/O call. */
struct keep {
    bool kept, by_io;
};

static void reached(struct reach *reach, struct coverage_item *item, int site, struct keep keep)
{
    reach->leg = true;
    reach->kept |= keep.kept;
    reach->by_io |= keep.by_io;
    add_site(item, site);
}

/* The reaction point candidates of a call on line `call`: the call's own line when it has
   branches, and the next line with branches after it in the same function; -1 when none. The
   next line is a candidate beside a branching call line only for the failed call itself (its
   line's branches may come before the call: `malloc(n ? n : 1)`); a caller's line with
   branches is its check of the result (`if (f() < 0)`), and when that did not change the
   failure went no further, whatever later branches did. */
static void reaction_candidates(const struct coverage_analysis *a, long call, bool failed_call,
                                long candidates[2])
{
    const struct coverage_layout *layout = a->layout;
    candidates[0] = layout->lines[call].branch_count ? call : -1;
    candidates[1] = -1;
    long next = call + 1;
    if ((candidates[0] < 0 || failed_call) && (size_t)next < layout->line_count &&
        a->line_function[next] == a->line_function[call])
        candidates[1] = a->reaction_after[next];
}

/* The counts a run is compared with: its own reference (the program it started alone, run
   alone without a fault), else the campaign's baseline. */
static const uint64_t *reference_branches(const struct coverage_analysis *a,
                                          const struct coverage_run *run)
{
    return run->reference_branches ? run->reference_branches : a->baseline_branches;
}

static const uint64_t *reference_lines(const struct coverage_analysis *a,
                                       const struct coverage_run *run)
{
    return run->reference_lines ? run->reference_lines : a->baseline_lines;
}

/* The branches of `point` this run took more often than its reference: reached; the
   reference's count of them in *baseline_taken. False when there is none. */
static bool reacted_at(struct coverage_analysis *a, const struct coverage_run *run, long point,
                       int site, struct keep keep, uint64_t *baseline_taken)
{
    const struct coverage_line *reaction = &a->layout->lines[point];
    const uint64_t *reference = reference_branches(a, run);
    bool reacted = false;
    *baseline_taken = 0;
    for (size_t b = reaction->first_branch; b < reaction->first_branch + reaction->branch_count; b++)
        if (run->branch_counts[b] > reference[b]) {
            reached(&a->branch_reach[b], &a->branch_items[b], site, keep);
            *baseline_taken += reference[b];
            reacted = true;
        }
    return reacted;
}

struct leg_walk {
    struct coverage_analysis *analysis;
    const struct coverage_run *run;
    const uint64_t *reference; /* the run's reference line counts */
    int site;
    struct keep keep;
    uint32_t *visited; /* per function: the walk that last entered it */
    uint32_t walk;
};

#define CALLEE_DEPTH 6

static void walk_lines(struct leg_walk *w, long from, long function, uint64_t allowance, int depth);

/* The functions line `l` calls, each entered once per walk. */
static void walk_callees(struct leg_walk *w, long l, int depth)
{
    const struct coverage_layout *layout = w->analysis->layout;
    if (!layout->callee_start || depth >= CALLEE_DEPTH)
        return;
    for (size_t c = layout->callee_start[l]; c < layout->callee_start[l + 1]; c++) {
        long callee = layout->callees[c];
        if (callee < 0 || (size_t)callee >= layout->function_count || w->visited[callee] == w->walk)
            continue;
        w->visited[callee] = w->walk;
        const struct coverage_function *function = &layout->functions[callee];
        walk_lines(w, first_line_at(layout, function->file, function->start), callee,
                   w->reference[l], depth + 1);
    }
}

/* The leg lines of `function` from line index `from` on: run more often than in the run's
   reference, and by the reference no more often than `allowance` (its own failures' share). */
static void walk_lines(struct leg_walk *w, long from, long function, uint64_t allowance, int depth)
{
    struct coverage_analysis *a = w->analysis;
    const struct coverage_layout *layout = a->layout;
    const struct coverage_function *span = &layout->functions[function];
    for (long l = from; (size_t)l < layout->line_count && layout->lines[l].file == span->file &&
                        layout->lines[l].line <= span->end;
         l++) {
        if (a->line_function[l] != function || w->run->line_counts[l] <= w->reference[l] ||
            w->reference[l] > allowance)
            continue;
        reached(&a->line_reach[l], &a->line_items[l], w->site, w->keep);
        walk_callees(w, l, depth);
    }
}

/* The first line with branches after line `call`, in its function, that reads a name in
   `reading` (any when 0) and at which the run reacted; -1 when none did. */
static long later_reaction(struct coverage_analysis *a, const struct coverage_run *run, long call,
                           uint64_t reading, int site, struct keep keep, uint64_t *allowance)
{
    const struct coverage_layout *layout = a->layout;
    long function = a->line_function[call];
    for (long next = call + 1; (size_t)next < layout->line_count &&
                               a->line_function[next] == function;) {
        long point = a->reaction_after[next];
        if (point < 0 || a->line_function[point] != function)
            return -1;
        if ((!reading || (layout->line_names[point] & reading)) &&
            reacted_at(a, run, point, site, keep, allowance))
            return point;
        next = point + 1;
    }
    return -1;
}

/* Attribution: the error legs of `site`'s failure in this run, walked from the failed call
   outwards through the callers (coverage.h says why each step is what it is). */
static void add_legs(struct coverage_analysis *a, const struct coverage_run *run, int site,
                     struct keep keep)
{
    struct leg_walk w = {a, run, reference_lines(a, run), site, keep, a->visited, ++a->walks};
    bool failed_call = true;
    for (size_t c = a->call_start[site]; c < a->call_start[site + 1]; c++) {
        long call = a->call_lines[c];
        if (call < 0)
            continue; /* a frame without coverage: look at its caller */
        long candidates[2];
        bool at_failed_call = failed_call;
        reaction_candidates(a, call, at_failed_call, candidates);
        failed_call = false;
        if (candidates[0] < 0 && candidates[1] < 0)
            continue; /* no decision after the call here: the failure goes back to the caller */
        uint64_t allowance = 0;
        long point = -1;
        for (int i = 0; i < 2 && point < 0; i++)
            if (candidates[i] >= 0 && reacted_at(a, run, candidates[i], site, keep, &allowance))
                point = candidates[i];
        if (point < 0 && at_failed_call && a->sites[site].ends_like_eof) {
            /* A read failing like the end of its input leaves its loop the way the last read
               of the baseline did: the reaction is the first later decision in this function
               that went otherwise (its ferror() check), or, when none did, its caller's. */
            point = later_reaction(a, run, call, 0, site, keep, &allowance);
            if (point < 0)
                continue;
        }
        if (point < 0 && candidates[0] < 0 && a->layout->line_names && a->layout->line_assigns[call])
            /* The result was kept for later (`rc = f(); if (rc == DONE) break; if (rc == ERR)`):
               the first later decision of this function that reads it and went otherwise. A
               call whose result is not kept (`use(p);`) gets no such search: what changes
               after it is the failure's corrupted data, not a reaction. */
            point = later_reaction(a, run, call, a->layout->line_assigns[call], site, keep,
                                   &allowance);
        if (point < 0 && at_failed_call && candidates[1] < 0)
            continue; /* its own line decides before the call (`return malloc(n ? n : 1);`)
                         and nothing after it: the value goes back to the caller */
        if (point < 0)
            return; /* absorbed here, or the program never came back: the leg ends */
        if (at_failed_call && !a->sites[site].never_fails)
            a->site_reaction[site] = point; /* the candidate that reacted is the reaction */
        walk_lines(&w, point + 1, a->line_function[point], allowance, 0);
    }
}

void coverage_analysis_add_run(struct coverage_analysis *a, const struct coverage_run *run)
{
    for (size_t l = 0; l < a->layout->line_count; l++)
        a->line_reach[l].executed |= run->line_counts[l] > 0;
    for (size_t b = 0; b < a->layout->branch_count; b++)
        a->branch_reach[b].executed |= run->branch_counts[b] > 0;
    /* Every unfailed run of the whole command: the baseline, and each program's run alone
       that a fault run is compared with (it ran in the baseline too, but it counts alone). */
    if (run->baseline)
        add_plain(a, run->line_counts, run->branch_counts);
    if (run->reference_lines)
        add_plain(a, run->reference_lines, run->reference_branches);
    if (run->baseline || run->site < 0 || (size_t)run->site >= a->site_count)
        return;
    bool needs_eligible = run_needs_eligible(a, run);
    struct keep keep = {!needs_eligible, run_keeps_by_io(a, run, needs_eligible)};
    bool faulted_in_chain = false;
    for (size_t i = 0; i < run->chain_count; i++) {
        int member = run->chain[i];
        if (member >= 0 && (size_t)member < a->site_count) {
            add_legs(a, run, member, keep);
            faulted_in_chain |= member == run->site;
        }
    }
    if (!faulted_in_chain)
        add_legs(a, run, run->site, keep);
}

/* ---- the classes ---- */

static int compare_ints(const void *left, const void *right)
{
    int a = *(const int *)left, b = *(const int *)right;
    return (a > b) - (a < b);
}

static void classify(const struct reach *reach, bool reaction, struct coverage_item *item)
{
    if (reach->leg) {
        /* A leg some run without a fault also executes (a parse error another test program of
           the suite reports, a public error getter) is live code: the policy cannot make it
           dead, so it is kept, whichever sites' failures reach it. */
        item->class = reach->kept || reach->plain ? LINE_KEPT : LINE_DELETABLE;
        item->by_io = reach->by_io;
        item->by_plain = reach->plain;
    } else if (reach->executed)
        item->class = LINE_ORDINARY;
    else
        item->class = reaction ? LINE_UNTAKEN : LINE_UNREACHED;
    if (item->site_count > 1)
        qsort(item->sites, item->site_count, sizeof *item->sites, compare_ints);
}

void coverage_analysis_finish(struct coverage_analysis *a, struct coverage_item *lines,
                              struct coverage_item *branches)
{
    for (size_t s = 0; s < a->site_count; s++) {
        if (a->site_reaction[s] < 0)
            continue;
        const struct coverage_line *reaction = &a->layout->lines[a->site_reaction[s]];
        for (size_t b = 0; b < reaction->branch_count; b++)
            a->reaction_branch[reaction->first_branch + b] = true;
    }
    for (size_t l = 0; l < a->layout->line_count; l++) {
        classify(&a->line_reach[l], false, &a->line_items[l]);
        lines[l] = a->line_items[l];
    }
    for (size_t b = 0; b < a->layout->branch_count; b++) {
        classify(&a->branch_reach[b], a->reaction_branch[b], &a->branch_items[b]);
        branches[b] = a->branch_items[b];
    }
    free(a->line_function);
    free(a->reaction_after);
    free(a->call_start);
    free(a->call_lines);
    free(a->reaction_branch);
    free(a->site_reaction);
    free(a->line_reach);
    free(a->branch_reach);
    free(a->line_items);
    free(a->branch_items);
    free(a->visited);
    free(a);
}

void coverage_items_free(struct coverage_item *items, size_t count)
{
    for (size_t i = 0; items && i < count; i++)
        free(items[i].sites);
}
