/*
 * kernel.c — the kernel's part of the report (failrun kernel): each site's sweep of N, the
 * allocation each armed call failed, and the kernel error legs per system call.
 */
#include "report/parts.h"
#include "kernel/kernelcov.h"
#include "kernel/kmem.h"
#include "store/campaign.h"
#include "store/database.h"
#include "symbols/symbolise.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* failrun kernel: the kernel allocation the injected failure of `run` hit (kmem.c), into `into`
   as "allocation"; nothing when the run's trace named none. */
static void kernel_allocation(sqlite3 *db, int64_t run, json_t *into)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT kind, call_site, frames, bytes_req, bytes_alloc, gfp, via_page, too_small,"
            " can_fail FROM kernel_allocs WHERE run = ?");
    sqlite3_bind_int64(statement, 1, run);
    if (sqlite3_step(statement) == SQLITE_ROW) {
        json_t *allocation = json_object();
        uint32_t gfp = (uint32_t)sqlite3_column_int64(statement, 5);
        char flags[256];
        kmem_gfp_format(gfp, flags, sizeof flags);
        const char *frames = (const char *)sqlite3_column_text(statement, 2);
        const char *reason = (const char *)sqlite3_column_text(statement, 8);
        json_object_set_new(allocation, "kind", json_string((const char *)sqlite3_column_text(statement, 0)));
        json_object_set_new(allocation, "call_site", json_string((const char *)sqlite3_column_text(statement, 1)));
        json_object_set_new(allocation, "stack", frames && *frames ? json_string(frames) : json_null());
        json_object_set_new(allocation, "bytes_req", json_integer(sqlite3_column_int64(statement, 3)));
        json_object_set_new(allocation, "bytes_alloc", json_integer(sqlite3_column_int64(statement, 4)));
        json_object_set_new(allocation, "gfp", json_integer(gfp));
        json_object_set_new(allocation, "gfp_flags", json_string(flags));
        json_object_set_new(allocation, "via_page", json_boolean(sqlite3_column_int(statement, 6)));
        json_object_set_new(allocation, "too_small_to_fail", json_boolean(sqlite3_column_int(statement, 7)));
        json_object_set_new(allocation, "can_fail", reason ? json_string(reason) : json_null());
        json_object_set_new(into, "allocation", allocation);
    }
    database_finalize(statement);
}

/* Has kernelcov.c compared any run (analysed KCOV data)? */
static bool kernel_legs_analysed(sqlite3 *db)
{
    sqlite3_stmt *statement = database_prepare(db, "SELECT 1 FROM kernel_cov_done LIMIT 1");
    bool present = sqlite3_step(statement) == SQLITE_ROW;
    database_finalize(statement);
    return present;
}

/* failrun kernel --kcov: per system call, its kernel error-leg lines (kernelcov.c) and how many
   of them only failures too small to fail reached: no run anywhere in the campaign whose
   failure can really happen (or whose allocation was not named) reached that line. Into
   `legs` and `small` by system call; false when the campaign has no analysed KCOV data. */
static bool kernel_leg_counts(sqlite3 *db, json_t *legs, json_t *small)
{
    if (!kernel_legs_analysed(db))
        return false;
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT s.function, COUNT(DISTINCT l.file || ':' || l.line),"
            " COUNT(DISTINCT CASE WHEN NOT EXISTS (SELECT 1 FROM kernel_legs o"
            "   LEFT JOIN kernel_allocs oa ON oa.run = o.run"
            "   WHERE o.file = l.file AND o.line = l.line AND COALESCE(oa.too_small, 0) = 0)"
            "  THEN l.file || ':' || l.line END)"
            " FROM kernel_legs l JOIN runs r ON r.id = l.run JOIN sites s ON s.id = r.site"
            " GROUP BY s.function");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(statement, 0);
        json_object_set_new(legs, name, json_integer(sqlite3_column_int64(statement, 1)));
        json_object_set_new(small, name, json_integer(sqlite3_column_int64(statement, 2)));
    }
    database_finalize(statement);
    return true;
}

/* failrun kernel: one row per system call: its sites, the fault points that failed (injected
   failures), how many of them the trace named and how many were too small to fail, the kernel
   error-leg lines (with --kcov; null without) and of them those only too-small-to-fail
   failures reached, and the findings of its sites, the program's and the kernel's. */
json_t *kernel_table(sqlite3 *db)
{
    json_t *rows = json_array();
    json_t *legs = json_object(), *small = json_object();
    bool covered = kernel_leg_counts(db, legs, small);
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT s.function, COUNT(DISTINCT r.site), COALESCE(SUM(k.fired), 0),"
            " COALESCE(SUM(k.fired AND a.run IS NOT NULL), 0), COALESCE(SUM(k.fired AND a.too_small), 0),"
            " (SELECT COUNT(*) FROM findings f JOIN sites fs ON fs.id = f.site"
            "   WHERE fs.function = s.function AND f.outcome != 'kernel'),"
            " (SELECT COUNT(*) FROM findings f JOIN sites fs ON fs.id = f.site"
            "   WHERE fs.function = s.function AND f.outcome = 'kernel')"
            " FROM runs r JOIN kernel_faults k ON k.run = r.id JOIN sites s ON s.id = r.site"
            " LEFT JOIN kernel_allocs a ON a.run = r.id GROUP BY s.function ORDER BY s.function");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        json_t *row = json_object();
        const char *name = (const char *)sqlite3_column_text(statement, 0);
        json_object_set_new(row, "system_call", json_string(name));
        json_object_set_new(row, "sites", json_integer(sqlite3_column_int64(statement, 1)));
        json_object_set_new(row, "fault_points", json_integer(sqlite3_column_int64(statement, 2)));
        json_object_set_new(row, "allocations_named", json_integer(sqlite3_column_int64(statement, 3)));
        json_object_set_new(row, "too_small_to_fail", json_integer(sqlite3_column_int64(statement, 4)));
        json_t *leg_count = json_object_get(legs, name), *small_count = json_object_get(small, name);
        json_object_set_new(row, "kernel_error_leg_lines",
                            !covered ? json_null() : leg_count ? json_incref(leg_count) : json_integer(0));
        json_object_set_new(row, "error_leg_lines_only_too_small",
                            !covered ? json_null() : small_count ? json_incref(small_count) : json_integer(0));
        json_object_set_new(row, "userspace_findings", json_integer(sqlite3_column_int64(statement, 5)));
        json_object_set_new(row, "kernel_findings", json_integer(sqlite3_column_int64(statement, 6)));
        json_array_append_new(rows, row);
    }
    database_finalize(statement);
    json_decref(legs);
    json_decref(small);
    return rows;
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

/* failrun kernel --kcov: the census per kernel subsystem: its error-leg lines, of them those
   only failures too small to fail reached (see kernel_leg_counts), and those a failure that can
   happen in practice reached (an allocation named, and not too small to fail: what a realistic
   allocator would still exercise). Null without analysed KCOV data. */
json_t *kernel_census(sqlite3 *db)
{
    if (!kernel_legs_analysed(db))
        return json_null();
    json_t *by_name = json_object();
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT l.file, SUM(COALESCE(a.too_small, 0) = 0) = 0, SUM(a.too_small = 0) > 0"
            " FROM kernel_legs l LEFT JOIN kernel_allocs a ON a.run = l.run"
            " GROUP BY l.file, l.line");
    while (sqlite3_step(statement) == SQLITE_ROW) {
        char name[64];
        subsystem_of((const char *)sqlite3_column_text(statement, 0), name, sizeof name);
        json_t *row = json_object_get(by_name, name);
        if (!row) {
            row = json_pack("{s:s, s:i, s:i, s:i}", "subsystem", name, "error_leg_lines", 0,
                            "only_too_small", 0, "can_fail", 0);
            json_object_set_new(by_name, name, row);
        }
        const char *keys[] = {"error_leg_lines", "only_too_small", "can_fail"};
        int adds[] = {1, sqlite3_column_int(statement, 1), sqlite3_column_int(statement, 2)};
        for (int i = 0; i < 3; i++)
            json_object_set_new(row, keys[i],
                                json_integer(json_integer_value(json_object_get(row, keys[i])) + adds[i]));
    }
    database_finalize(statement);
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
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT (SELECT count(DISTINCT function) FROM sites),"
            " (SELECT count(DISTINCT s.function) FROM runs r JOIN sites s ON s.id = r.site"
            "  WHERE r.kind = 'fault')");
    json_t *calls = json_object();
    if (sqlite3_step(statement) == SQLITE_ROW) {
        json_object_set_new(calls, "with_sites", json_integer(sqlite3_column_int64(statement, 0)));
        json_object_set_new(calls, "swept", json_integer(sqlite3_column_int64(statement, 1)));
    }
    database_finalize(statement);
    return calls;
}

/* failrun kernel: what the armed system call of `run` did, into `into`. */
void kernel_detail(sqlite3 *db, int64_t run, json_t *into)
{
    sqlite3_stmt *statement = database_prepare(
        db, "SELECT nth, fired, call_failed, errno FROM kernel_faults WHERE run = ?");
    sqlite3_bind_int64(statement, 1, run);
    if (sqlite3_step(statement) == SQLITE_ROW) {
        json_object_set_new(into, "kernel_nth", json_integer(sqlite3_column_int64(statement, 0)));
        json_object_set_new(into, "kernel_fired", json_boolean(sqlite3_column_int(statement, 1)));
        bool failed = sqlite3_column_int(statement, 2);
        int error = sqlite3_column_int(statement, 3);
        const char *name = failed ? strerrorname_np(error) : NULL;
        json_object_set_new(into, "errno", failed ? json_string(name ? name : "?") : json_null());
    }
    database_finalize(statement);
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

/* failrun kernel: per system-call site, what each N did, in order (the sweep). */
json_t *kernel_sweeps(sqlite3 *db)
{
    struct symboliser *symboliser = symboliser_new();
    struct module_map map;
    module_map_load(db, &map);
    json_t *list = json_array();
    sqlite3_stmt *sites = database_prepare(
        db, "SELECT DISTINCT r.site FROM runs r JOIN kernel_faults k ON k.run = r.id"
            " ORDER BY r.id");
    while (sqlite3_step(sites) == SQLITE_ROW) {
        const char *site = (const char *)sqlite3_column_text(sites, 0);
        json_t *sweep = json_object(), *function, *size;
        json_t *stack = site_stack(db, symboliser, &map, site, &function, &size);
        json_object_set_new(sweep, "site", json_string(site));
        json_object_set_new(sweep, "function", function);
        json_object_set_new(sweep, "location", stack_location(stack));
        json_object_set_new(sweep, "via",
                            syscall_via(symboliser, stack, json_string_value(function)));
        json_decref(stack);
        json_decref(size);
        json_t *calls = json_array();
        sqlite3_stmt *runs = database_prepare(
            db, "SELECT r.id, r.outcome FROM runs r JOIN kernel_faults k ON k.run = r.id"
                " WHERE r.site = ? ORDER BY k.nth");
        sqlite3_bind_text(runs, 1, site, -1, SQLITE_TRANSIENT);
        while (sqlite3_step(runs) == SQLITE_ROW) {
            json_t *call = json_object();
            kernel_detail(db, sqlite3_column_int64(runs, 0), call);
            const char *outcome = (const char *)sqlite3_column_text(runs, 1);
            json_object_set_new(call, "outcome", json_string(outcome ? outcome : "?"));
            json_array_append_new(calls, call);
        }
        database_finalize(runs);
        json_object_set_new(sweep, "calls", calls);
        json_array_append_new(list, sweep);
    }
    database_finalize(sites);
    module_map_free(&map);
    symboliser_free(symboliser);
    return list;
}
