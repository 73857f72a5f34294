/* fuzz_records.c — libFuzzer target: the reader of event records (injector/store/ingest.c), which
   failrun feeds with files a crashing or hostile program wrote. It must never crash, leak or
   read out of bounds, and must count every malformed record. Also the reader of invocation
   files (invocation_parse). */
#include "store/ingest.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct run_records records = {0};
    warnings_quiet = true;
    ingest_bytes(data, size, "fuzz", &records);
    if (size % RECORD_SIZE == 0 && records.problems == 0 && size >= RECORD_SIZE &&
        records.processes.count == 0 && records.modules.count == 0 && records.sites.count == 0 &&
        records.faults.count == 0 && records.live.count == 0)
        __builtin_trap(); /* well-formed records that produced nothing: a reader bug */
    for (size_t i = 0; i < records.processes.count; i++)
        (void)final_image(&records, records.processes.items[i].pid);
    run_records_free(&records);
    /* The same bytes as a process's invocation file (PID-IMAGE.inv), just as untrusted. */
    struct ingest_invocation invocation;
    if (invocation_parse((const char *)data, size, &invocation))
        invocation_free(&invocation);
    return 0;
}
