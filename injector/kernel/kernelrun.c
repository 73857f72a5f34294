/*
 * kernelrun.c — what an armed run of failrun kernel did, stored: the fail-nth counter read back
 * after the armed call, and the kernel allocation it failed (from the kmem trace).
 */
#include "kernel/kernelrun.h"
#include "kernel/kmem.h"
#include "base/util.h"
#include "store/database.h"

#include <dirent.h>
#include <stdlib.h>

/* failrun kernel: what the armed system call did, reached or not (the sweep's evidence). */
void kernelrun_store_fault(sqlite3 *db, int64_t run_id, const struct run_records *records)
{
    for (size_t i = 0; i < records->faults.count; i++) {
        const struct ingest_fault *fault = &records->faults.items[i];
        if (!fault->kernel)
            continue;
        sqlite3_stmt *statement = database_prepare(
            db, "INSERT OR REPLACE INTO kernel_faults(run, nth, fired, call_failed, errno, pid)"
                " VALUES (?, ?, ?, ?, ?, ?)");
        sqlite3_bind_int64(statement, 1, run_id);
        sqlite3_bind_int64(statement, 2, (sqlite3_int64)fault->nth);
        sqlite3_bind_int(statement, 3, fault->fired);
        sqlite3_bind_int(statement, 4, fault->call_failed);
        sqlite3_bind_int(statement, 5, fault->error);
        sqlite3_bind_int64(statement, 6, fault->tid ? fault->tid : fault->pid);
        database_step_done(statement);
        database_finalize(statement);
        return;
    }
}

void kernelrun_store_alloc(sqlite3 *db, int64_t run_id, const char *dir)
{
    DIR *folder = opendir(dir);
    if (!folder)
        return;
    bool stored = false;
    char *path;
    while (!stored && (path = next_file_named(folder, dir, "kmem-", ".trace"))) {
        char *trace = read_whole_file(path, NULL);
        struct kmem_alloc alloc;
        if (trace && kmem_parse_trace(trace, &alloc)) {
            const char *reason = kmem_can_fail(alloc.gfp, alloc.bytes_alloc);
            sqlite3_stmt *statement = database_prepare(
                db, "INSERT OR REPLACE INTO kernel_allocs(run, kind, call_site, frames, bytes_req,"
                    " bytes_alloc, gfp, via_page, too_small, can_fail) VALUES (?,?,?,?,?,?,?,?,?,?)");
            sqlite3_bind_int64(statement, 1, run_id);
            sqlite3_bind_text(statement, 2, alloc.kind, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(statement, 3, alloc.call_site, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(statement, 4, alloc.frames, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(statement, 5, (sqlite3_int64)alloc.bytes_req);
            sqlite3_bind_int64(statement, 6, (sqlite3_int64)alloc.bytes_alloc);
            sqlite3_bind_int64(statement, 7, alloc.gfp);
            sqlite3_bind_int(statement, 8, alloc.via_page);
            sqlite3_bind_int(statement, 9, reason == NULL);
            if (reason)
                sqlite3_bind_text(statement, 10, reason, -1, SQLITE_STATIC);
            else
                sqlite3_bind_null(statement, 10);
            database_step_done(statement);
            database_finalize(statement);
            stored = true;
        }
        free(trace);
        free(path);
    }
    closedir(folder);
}
