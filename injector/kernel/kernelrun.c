/*
 * kernelrun.c — what an armed run of failrun kernel did, stored: the fail-nth counter read back
 * after the armed call, and the kernel allocation it failed (from the kmem trace).
 */
#include "kernel/kernelrun.h"
#include "kernel/kmem.h"
#include "base/util.h"
#include "store/kernelrows.h"

#include <dirent.h>
#include <stdlib.h>

/* failrun kernel: what the armed system call did, reached or not (the sweep's evidence). */
void kernelrun_store_fault(sqlite3 *db, int64_t run_id, const struct run_records *records)
{
    for (size_t i = 0; i < records->faults.count; i++) {
        const struct ingest_fault *fault = &records->faults.items[i];
        if (!fault->kernel)
            continue;
        store_kernel_fault_add(db, run_id, fault->nth, fault->fired, fault->call_failed,
                               fault->error, fault->tid ? fault->tid : fault->pid);
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
            struct store_kernel_alloc row = {
                .kind = alloc.kind,
                .call_site = alloc.call_site,
                .frames = alloc.frames,
                .bytes_req = alloc.bytes_req,
                .bytes_alloc = alloc.bytes_alloc,
                .gfp = alloc.gfp,
                .via_page = alloc.via_page,
                .too_small = reason == NULL,
                .can_fail = reason,
            };
            store_kernel_alloc_add(db, run_id, &row);
            stored = true;
        }
        free(trace);
        free(path);
    }
    closedir(folder);
}
