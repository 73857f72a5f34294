/*
 * covanalysis.c — the pure part of coverage: which items (lines or branches) are error legs,
 * which sites reached them, and which of them a NOFAIL policy makes dead (see coverage.h).
 */
#include "coverage.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

const char *line_class_name(enum line_class class)
{
    static const char *const names[LINE_CLASSES] = {
        [LINE_UNTESTED] = "untested", [LINE_BASELINE] = "baseline",
        [LINE_DELETABLE] = "deletable", [LINE_KEPT] = "kept"};
    return class < LINE_CLASSES ? names[class] : "?";
}

/* A run "goes through" an eligible site when any site it failed is eligible: under the NOFAIL
   policy that failure never happens, so nothing after it in the run happens either. */
static bool run_needs_eligible(const struct coverage_input *input, const struct coverage_run *run)
{
    for (size_t i = 0; i < run->chain_count; i++)
        if (run->chain[i] >= 0 && (size_t)run->chain[i] < input->site_count &&
            input->site_eligible[run->chain[i]])
            return true;
    return run->site >= 0 && (size_t)run->site < input->site_count &&
           input->site_eligible[run->site];
}

/* Kept because of I/O: the run keeps what it reached (no exempted failure on its way) and the
   failure it was planned for is an I/O call. */
static bool run_keeps_by_io(const struct coverage_input *input, const struct coverage_run *run,
                            bool needs_eligible)
{
    return !needs_eligible && input->site_io && run->site >= 0 &&
           (size_t)run->site < input->site_count && input->site_io[run->site];
}

static int compare_ints(const void *a, const void *b)
{
    int left = *(const int *)a, right = *(const int *)b;
    return (left > right) - (left < right);
}

static void add_site(struct coverage_item *item, int site)
{
    for (size_t i = 0; i < item->site_count; i++)
        if (item->sites[i] == site)
            return;
    item->sites = xrealloc(item->sites, (item->site_count + 1) * sizeof *item->sites);
    item->sites[item->site_count++] = site;
}

void coverage_analyse(const struct coverage_input *input, struct coverage_item *out)
{
    size_t n = input->item_count;
    /* Per item: run in the baseline, reached by a fault run, reached by one the policy allows. */
    bool *in_baseline = xcalloc(n ? n : 1, 1), *in_fault = xcalloc(n ? n : 1, 1);
    bool *allowed = xcalloc(n ? n : 1, 1), *in_any = xcalloc(n ? n : 1, 1);
    bool *by_io = xcalloc(n ? n : 1, 1);
    for (size_t r = 0; r < input->run_count; r++) {
        const struct coverage_run *run = &input->runs[r];
        bool fault = !run->baseline && run->site >= 0;
        bool needs_eligible = fault && run_needs_eligible(input, run);
        bool keeps_by_io = fault && run_keeps_by_io(input, run, needs_eligible);
        for (size_t h = 0; h < run->hit_count; h++) {
            size_t item = run->hits[h];
            if (item >= n)
                continue;
            in_any[item] = true;
            if (run->baseline)
                in_baseline[item] = true;
            if (fault) {
                in_fault[item] = true;
                allowed[item] |= !needs_eligible;
                by_io[item] |= keeps_by_io;
            }
        }
    }
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        if (in_fault[i] && !in_baseline[i]) {
            out[i].class = allowed[i] ? LINE_KEPT : LINE_DELETABLE;
            out[i].by_io = by_io[i];
        }
        else if (in_any[i])
            out[i].class = LINE_BASELINE; /* also: only in a run whose fault never fired */
        else
            out[i].class = LINE_UNTESTED;
    }
    /* Attribution: the faulted site of every fault run that executed an error-leg item. */
    for (size_t r = 0; r < input->run_count; r++) {
        const struct coverage_run *run = &input->runs[r];
        if (run->baseline || run->site < 0)
            continue;
        for (size_t h = 0; h < run->hit_count; h++)
            if (run->hits[h] < n && (out[run->hits[h]].class == LINE_DELETABLE ||
                                     out[run->hits[h]].class == LINE_KEPT))
                add_site(&out[run->hits[h]], run->site);
    }
    for (size_t i = 0; i < n; i++)
        if (out[i].site_count > 1)
            qsort(out[i].sites, out[i].site_count, sizeof *out[i].sites, compare_ints);
    free(in_baseline);
    free(in_fault);
    free(allowed);
    free(in_any);
    free(by_io);
}

void coverage_items_free(struct coverage_item *items, size_t count)
{
    for (size_t i = 0; items && i < count; i++)
        free(items[i].sites);
}
