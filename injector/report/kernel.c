/*
 * kernel.c — the kernel's part of the report (failrun kernel): each site's sweep of N, the
 * allocation each armed call failed, and the kernel error legs per system call.
 */
#include "report/parts.h"
#include "kernel/kernelcov.h"
#include "kernel/kmem.h"
#include "store/campaign.h"
#include "store/kernelrows.h"
#include "symbols/symbolise.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static void add_allocation(const struct store_kernel_alloc *row, void *data)
{
    json_t *into = data;
    json_t *allocation = json_object();
    uint32_t gfp = (uint32_t)row->gfp;
    char flags[256];
    kmem_gfp_format(gfp, flags, sizeof flags);
    json_object_set_new(allocation, "kind", json_string(row->kind));
    json_object_set_new(allocation, "call_site", json_string(row->call_site));
    json_object_set_new(allocation, "stack",
                        row->frames && *row->frames ? json_string(row->frames) : json_null());
    json_object_set_new(allocation, "bytes_req", json_integer((json_int_t)row->bytes_req));
    json_object_set_new(allocation, "bytes_alloc", json_integer((json_int_t)row->bytes_alloc));
    json_object_set_new(allocation, "gfp", json_integer(gfp));
    json_object_set_new(allocation, "gfp_flags", json_string(flags));
    json_object_set_new(allocation, "via_page", json_boolean(row->via_page));
    json_object_set_new(allocation, "too_small_to_fail", json_boolean(row->too_small));
    json_object_set_new(allocation, "can_fail",
                        row->can_fail ? json_string(row->can_fail) : json_null());
    json_object_set_new(into, "allocation", allocation);
}

/* failrun kernel: the kernel allocation the injected failure of `run` hit (kmem.c), into `into`
   as "allocation"; nothing when the run's trace named none. */
static void kernel_allocation(sqlite3 *db, int64_t run, json_t *into)
{
    store_kernel_alloc_of_run(db, run, add_allocation, into);
}

struct leg_counts {
    json_t *legs, *small;
};

static void add_leg_count(const char *name, int64_t lines, int64_t only_too_small, void *data)
{
    struct leg_counts *counts = data;
    json_object_set_new(counts->legs, name, json_integer(lines));
    json_object_set_new(counts->small, name, json_integer(only_too_small));
}

/* failrun kernel --kcov: per system call, its kernel error-leg lines (kernelcov.c) and how many
   of them only failures too small to fail reached: no run anywhere in the campaign whose
   failure can really happen (or whose allocation was not named) reached that line. Into
   `legs` and `small` by system call; false when the campaign has no analysed KCOV data. */
static bool kernel_leg_counts(sqlite3 *db, json_t *legs, json_t *small)
{
    if (!store_kernel_legs_analysed(db))
        return false;
    struct leg_counts counts = {legs, small};
    store_kernel_leg_counts_each(db, add_leg_count, &counts);
    return true;
}

struct table {
    json_t *rows, *legs, *small;
    bool covered;
};

static void add_call_row(const struct store_kernel_call *call, void *data)
{
    struct table *table = data;
    json_t *row = json_object();
    const char *name = call->function;
    json_object_set_new(row, "system_call", json_string(name));
    json_object_set_new(row, "sites", json_integer(call->sites));
    json_object_set_new(row, "fault_points", json_integer(call->fault_points));
    json_object_set_new(row, "allocations_named", json_integer(call->allocations_named));
    json_object_set_new(row, "too_small_to_fail", json_integer(call->too_small));
    json_t *leg_count = json_object_get(table->legs, name);
    json_t *small_count = json_object_get(table->small, name);
    json_object_set_new(row, "kernel_error_leg_lines",
                        !table->covered ? json_null()
                        : leg_count     ? json_incref(leg_count)
                                        : json_integer(0));
    json_object_set_new(row, "error_leg_lines_only_too_small",
                        !table->covered ? json_null()
                        : small_count   ? json_incref(small_count)
                                        : json_integer(0));
    json_object_set_new(row, "userspace_findings", json_integer(call->userspace_findings));
    json_object_set_new(row, "kernel_findings", json_integer(call->kernel_findings));
    json_array_append_new(table->rows, row);
}

/* failrun kernel: one row per system call: its sites, the fault points that failed (injected
   failures), how many of them the trace named and how many were too small to fail, the kernel
   error-leg lines (with --kcov; null without) and of them those only too-small-to-fail
   failures reached, and the findings of its sites, the program's and the kernel's. */
json_t *kernel_table(sqlite3 *db)
{
    struct table table = {.rows = json_array(), .legs = json_object(), .small = json_object()};
    table.covered = kernel_leg_counts(db, table.legs, table.small);
    store_kernel_calls_each(db, add_call_row, &table);
    json_decref(table.legs);
    json_decref(table.small);
    return table.rows;
}

/* The kernel subsystem of a source path: its first component that is a top-level folder of the
   kernel tree ("/build/src/fs/pipe.c" is fs/; arch/ keeps its architecture: arch/x86/). */
static void subsystem_of(const char *path, char *out, size_t size)
{
    const char *inside = kernel_tree_path(path);
    if (!inside) {
        snprintf(out, size, "other");
        return;
    }
    size_t keep = strcspn(inside, "/") + 1;
    if (!strncmp(inside, "arch/", 5) && strchr(inside + 5, '/'))
        keep = (size_t)(strchr(inside + 5, '/') - inside) + 1; /* arch/x86/ */
    snprintf(out, size, "%.*s", (int)keep, inside);
}

static void add_census_line(const char *file, bool only_too_small, bool can_fail, void *data)
{
    json_t *by_name = data;
    char name[64];
    subsystem_of(file, name, sizeof name);
    json_t *row = json_object_get(by_name, name);
    if (!row) {
        row = json_pack("{s:s, s:i, s:i, s:i}", "subsystem", name, "error_leg_lines", 0,
                        "only_too_small", 0, "can_fail", 0);
        json_object_set_new(by_name, name, row);
    }
    const char *keys[] = {"error_leg_lines", "only_too_small", "can_fail"};
    int adds[] = {1, only_too_small, can_fail};
    for (int i = 0; i < 3; i++) {
        json_int_t value = json_integer_value(json_object_get(row, keys[i]));
        json_object_set_new(row, keys[i], json_integer(value + adds[i]));
    }
}

/* failrun kernel --kcov: the census per kernel subsystem: its error-leg lines, of them those
   only failures too small to fail reached (see kernel_leg_counts), and those a failure that can
   happen in practice reached (an allocation named, and not too small to fail: what a realistic
   allocator would still exercise). Null without analysed KCOV data. */
json_t *kernel_census(sqlite3 *db)
{
    if (!store_kernel_legs_analysed(db))
        return json_null();
    json_t *by_name = json_object();
    store_kernel_leg_lines_each(db, add_census_line, by_name);
    /* Most lines first; by name among equals. */
    json_t *rows = json_array();
    const char *name;
    json_t *row;
    json_object_foreach(by_name, name, row) {
        size_t at = 0;
        json_int_t lines = json_integer_value(json_object_get(row, "error_leg_lines"));
        for (; at < json_array_size(rows); at++) {
            json_t *other = json_array_get(rows, at);
            json_int_t other_lines = json_integer_value(json_object_get(other, "error_leg_lines"));
            if (other_lines < lines ||
                (other_lines == lines && strcmp(json_string_value(json_object_get(other, "subsystem")), name) > 0))
                break;
        }
        json_array_insert(rows, at, row);
    }
    json_decref(by_name);
    return rows;
}

json_t *kernel_calls(sqlite3 *db)
{
    json_t *calls = json_object();
    int64_t with_sites, swept;
    if (store_kernel_call_counts(db, &with_sites, &swept)) {
        json_object_set_new(calls, "with_sites", json_integer(with_sites));
        json_object_set_new(calls, "swept", json_integer(swept));
    }
    return calls;
}

/* failrun kernel: what the armed system call of `run` did, into `into`. */
void kernel_detail(sqlite3 *db, int64_t run, json_t *into)
{
    struct store_kernel_fault fault;
    if (store_kernel_fault_of_run(db, run, &fault)) {
        json_object_set_new(into, "kernel_nth", json_integer(fault.nth));
        json_object_set_new(into, "kernel_fired", json_boolean(fault.fired));
        const char *name = fault.call_failed ? strerrorname_np(fault.error) : NULL;
        json_object_set_new(into, "errno",
                            fault.call_failed ? json_string(name ? name : "?") : json_null());
    }
    kernel_allocation(db, run, into);
}

/* Is `function` (a C library symbol: write, __write, __libc_write, __GI___libc_write) the
   wrapper of the system call `name` itself? */
static bool wrapper_of(const char *function, const char *name)
{
    static const char *const prefixes[] = {"__GI_", "__libc_", "__"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(function, prefixes[i], strlen(prefixes[i])))
            function += strlen(prefixes[i]);
    size_t length = strlen(name);
    return !strncmp(function, name, length) &&
           (!function[length] || !strcmp(function + length, "64") ||
            !strcmp(function + length, "_nocancel"));
}

/* The system library function a trapped system call was made in for the program: "fopen" for
   the openat inside fopen. The name the program called, read from its call instruction (the
   PLT's symbol), else the last library frame's. Null when the program called the system call's
   own wrapper, or no library stands between. */
json_t *syscall_via(struct symboliser *symboliser, json_t *stack, const char *name)
{
    size_t index = 0;
    const char *via = NULL;
    for (; index < json_array_size(stack); index++) {
        json_t *frame = json_array_get(stack, index);
        if (!json_is_true(json_object_get(frame, "plumbing")))
            break;
        via = json_string_value(json_object_get(frame, "function"));
    }
    if (!via || index >= json_array_size(stack))
        return json_null();
    json_t *entry = json_array_get(stack, index); /* the program's frame: its call instruction */
    char called[256];
    if (symboliser_call_target(symboliser, json_string_value(json_object_get(entry, "module")),
                               (uint64_t)json_integer_value(json_object_get(entry, "offset")),
                               called, sizeof called))
        via = called;
    return !wrapper_of(via, name) ? json_string(via) : json_null();
}

struct sweeps {
    sqlite3 *db;
    struct symboliser *symboliser;
    struct module_map map;
    json_t *list, *calls;
};

static void add_sweep_call(int64_t run, const char *outcome, void *data)
{
    struct sweeps *sweeps = data;
    json_t *call = json_object();
    kernel_detail(sweeps->db, run, call);
    json_object_set_new(call, "outcome", json_string(outcome ? outcome : "?"));
    json_array_append_new(sweeps->calls, call);
}

static void add_sweep(const char *site, void *data)
{
    struct sweeps *sweeps = data;
    json_t *sweep = json_object(), *function, *size;
    json_t *stack =
        site_stack(sweeps->db, sweeps->symboliser, &sweeps->map, site, &function, &size);
    json_object_set_new(sweep, "site", json_string(site));
    json_object_set_new(sweep, "function", function);
    json_object_set_new(sweep, "location", stack_location(stack));
    json_object_set_new(sweep, "via",
                        syscall_via(sweeps->symboliser, stack, json_string_value(function)));
    json_decref(stack);
    json_decref(size);
    sweeps->calls = json_array();
    store_kernel_sweep_runs_each(sweeps->db, site, add_sweep_call, sweeps);
    json_object_set_new(sweep, "calls", sweeps->calls);
    json_array_append_new(sweeps->list, sweep);
}

/* failrun kernel: per system-call site, what each N did, in order (the sweep). */
json_t *kernel_sweeps(sqlite3 *db)
{
    struct sweeps sweeps = {.db = db, .symboliser = symboliser_new(), .list = json_array()};
    module_map_load(db, &sweeps.map);
    store_kernel_swept_sites_each(db, add_sweep, &sweeps);
    module_map_free(&sweeps.map);
    symboliser_free(sweeps.symboliser);
    return sweeps.list;
}
