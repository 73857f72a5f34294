/*
 * ingest.c — turn the raw record files of a run into processes, modules, sites, faults and live
 * block counts. Every record passes record_check() first; a bad one is skipped with a warning.
 */
#include "ingest.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *function_name(uint32_t function)
{
    static const char *const names[FUNCTION_LIMIT] = {
        [FUNCTION_MALLOC] = "malloc",       [FUNCTION_CALLOC] = "calloc",
        [FUNCTION_REALLOC] = "realloc",     [FUNCTION_REALLOCARRAY] = "reallocarray",
        [FUNCTION_POSIX_MEMALIGN] = "posix_memalign",
        [FUNCTION_ALIGNED_ALLOC] = "aligned_alloc",
        [FUNCTION_MEMALIGN] = "memalign",   [FUNCTION_VALLOC] = "valloc",
        [FUNCTION_PVALLOC] = "pvalloc",    [FUNCTION_STRDUP] = "strdup",
        [FUNCTION_STRNDUP] = "strndup",    [FUNCTION_FAILPOINT] = "failpoint",
        [FUNCTION_SYS_OPEN] = "open",       [FUNCTION_SYS_OPENAT] = "openat",
        [FUNCTION_SYS_READ] = "read",       [FUNCTION_SYS_WRITE] = "write",
        [FUNCTION_SYS_PIPE] = "pipe",       [FUNCTION_SYS_PIPE2] = "pipe2",
        [FUNCTION_SYS_SOCKET] = "socket",   [FUNCTION_SYS_SOCKETPAIR] = "socketpair",
        [FUNCTION_SYS_EPOLL_CREATE1] = "epoll_create1", [FUNCTION_SYS_EVENTFD] = "eventfd",
        [FUNCTION_SYS_MMAP] = "mmap",       [FUNCTION_SYS_FORK] = "fork",
    };
    /* A trapped system call (failrun kernel): FUNCTION_SYSCALL_FIRST + its number. */
    static const char *const syscalls[FUNCTION_SYSCALL_LIMIT - FUNCTION_SYSCALL_FIRST] = {
#include "syscall_names.inc"
    };
    if (function >= FUNCTION_SYSCALL_FIRST && function < FUNCTION_SYSCALL_LIMIT)
        return syscalls[function - FUNCTION_SYSCALL_FIRST] ? syscalls[function - FUNCTION_SYSCALL_FIRST]
                                                           : "syscall";
    return function < FUNCTION_LIMIT && names[function] ? names[function] : "?";
}

/* The process image a record belongs to: the file's own START record when it had one (each file
   is one image), else the newest image with that pid, else a new entry. */
static size_t process_index(struct run_records *out, size_t current, uint32_t pid)
{
    if (current < out->processes.count && out->processes.items[current].pid == pid)
        return current;
    for (size_t i = out->processes.count; i-- > 0;)
        if (out->processes.items[i].pid == pid)
            return i;
    struct ingest_process fresh = {.pid = pid, .exe = xstrdup("?")};
    VECTOR_PUSH(out->processes, fresh);
    return out->processes.count - 1;
}

static void copy_frames(struct frame_list *list, const struct record *r)
{
    list->count = r->frame_count;
    memcpy(list->frames, r->body.frames, sizeof(struct record_frame) * r->frame_count);
}

static void take_module(struct run_records *out, const struct record *r)
{
    for (size_t i = 0; i < out->modules.count; i++)
        if (out->modules.items[i].id == r->signature)
            return;
    struct ingest_module module = {.id = r->signature, .path = xstrdup(r->body.text.path)};
    for (uint64_t i = 0; i < r->value2; i++)
        snprintf(module.build_id + 2 * i, 3, "%02x", r->body.text.build_id[i]);
    VECTOR_PUSH(out->modules, module);
}

static void take_site(struct run_records *out, const struct record *r, const char *exe)
{
    /* A system call's FAULT carries the kernel's N in `value`, not a size. */
    uint64_t size = r->function >= FUNCTION_SYS_OPEN ? 0 : r->value;
    for (size_t i = 0; i < out->sites.count; i++) {
        struct ingest_site *site = &out->sites.items[i];
        if (site->signature == r->signature) {
            if (size > site->max_size)
                site->max_size = size;
            site->nofail |= (r->flags & RECORD_FLAG_NOFAIL) != 0;
            return;
        }
    }
    struct ingest_site site = {
        .signature = r->signature, .exe = xstrdup(exe), .function = r->function,
        .max_size = size, .nofail = (r->flags & RECORD_FLAG_NOFAIL) != 0};
    copy_frames(&site.stack, r);
    VECTOR_PUSH(out->sites, site);
}

static void take_live(struct run_records *out, const struct record *r)
{
    for (size_t i = 0; i < out->live.count; i++) {
        if (out->live.items[i].signature == r->signature) {
            out->live.items[i].blocks += r->value;
            out->live.items[i].bytes += r->value2;
            return;
        }
    }
    struct ingest_live live = {.signature = r->signature, .blocks = r->value, .bytes = r->value2};
    if (r->frame_count > 0)
        live.top = r->body.frames[0];
    VECTOR_PUSH(out->live, live);
}

/* The name arrives from the target: keep at most what fits the record, NUL or not. */
static void take_name(struct run_records *out, const struct record *r)
{
    for (size_t i = 0; i < out->names.count; i++)
        if (out->names.items[i].signature == r->signature)
            return;
    size_t length = strnlen(r->body.text.path, sizeof r->body.text.path);
    struct ingest_name name = {.signature = r->signature, .name = xmalloc(length + 1)};
    memcpy(name.name, r->body.text.path, length);
    name.name[length] = '\0';
    VECTOR_PUSH(out->names, name);
}

static void take_record(struct run_records *out, const struct record *r, size_t *current)
{
    if (r->type == RECORD_START) {
        /* Each file starts a new process image (fork child or exec'd program). */
        struct ingest_process fresh = {.pid = r->pid, .parent = (uint32_t)r->value,
                                       .exe = xstrdup(r->body.text.path),
                                       .command_line = r->signature,
                                       .forked = r->flags & RECORD_FLAG_FORKED,
                                       .in_scope = r->flags & RECORD_FLAG_IN_SCOPE};
        for (size_t i = 0; i < out->processes.count; i++)
            if (out->processes.items[i].pid == r->pid && out->processes.items[i].image >= fresh.image)
                fresh.image = out->processes.items[i].image + 1;
        VECTOR_PUSH(out->processes, fresh);
        *current = out->processes.count - 1;
        return;
    }
    *current = process_index(out, *current, r->pid);
    struct ingest_process *process = &out->processes.items[*current];
    switch (r->type) {
    case RECORD_MODULE:
        take_module(out, r);
        break;
    case RECORD_SITE:
        take_site(out, r, process->exe);
        break;
    case RECORD_FAULT:
        take_site(out, r, process->exe);
        {
            struct ingest_fault fault = {.signature = r->signature, .pid = r->pid,
                                         .function = r->function, .size = r->value,
                                         .fired = true};
            if (r->function >= FUNCTION_SYS_OPEN) {
                fault.kernel = true;
                fault.size = 0;
                fault.nth = r->value;
                fault.fired = r->flags & RECORD_FLAG_KERNEL_FIRED;
                fault.call_failed = r->flags & RECORD_FLAG_CALL_FAILED;
                fault.error = (int)(r->flags >> RECORD_FLAG_ERRNO_SHIFT);
            }
            copy_frames(&fault.stack, r);
            VECTOR_PUSH(out->faults, fault);
            if (fault.fired)
                process->faulted = true;
        }
        break;
    case RECORD_EXIT:
        process->exited = true;
        process->exit_status = (int)(r->value & 0xff);
        process->exit_kind = (int)r->value2;
        process->live_overflow = r->flags & RECORD_FLAG_LIVE_OVERFLOW;
        copy_frames(&process->exit_stack, r);
        break;
    case RECORD_SIGNAL:
        process->signal = (int)r->value;
        copy_frames(&process->crash_stack, r);
        break;
    case RECORD_LIVE:
        take_live(out, r);
        break;
    case RECORD_NAME:
        take_name(out, r);
        break;
    default:
        break;
    }
}

void ingest_bytes(const unsigned char *data, size_t length, const char *name,
                  struct run_records *out)
{
    size_t current = SIZE_MAX;
    size_t offset = 0;
    for (; offset + RECORD_SIZE <= length; offset += RECORD_SIZE) {
        struct record r;
        memcpy(&r, data + offset, sizeof r);
        const char *problem = record_check(&r);
        if (problem) {
            warn("%s: record %zu skipped: %s", name, offset / RECORD_SIZE, problem);
            out->problems++;
            continue;
        }
        take_record(out, &r, &current);
    }
    if (offset != length) {
        warn("%s: %zu trailing bytes (truncated record) ignored", name, length - offset);
        out->problems++;
    }
}

const struct ingest_process *final_image(const struct run_records *records, uint32_t pid)
{
    const struct ingest_process *last = NULL;
    for (size_t i = 0; i < records->processes.count; i++)
        if (records->processes.items[i].pid == pid &&
            (!last || records->processes.items[i].image > last->image))
            last = &records->processes.items[i];
    return last;
}

/* Files are named PID-IMAGE.rec: read them in that order, numerically, so the images of one
   pid are numbered as they ran. */
static int compare_record_files(const void *a, const void *b)
{
    const char *left = strrchr(*(char *const *)a, '/') + 1;
    const char *right = strrchr(*(char *const *)b, '/') + 1;
    unsigned long left_pid = strtoul(left, NULL, 10), right_pid = strtoul(right, NULL, 10);
    if (left_pid != right_pid)
        return left_pid < right_pid ? -1 : 1;
    unsigned long left_image = strtoul(strchr(left, '-') ? strchr(left, '-') + 1 : left, NULL, 10);
    unsigned long right_image =
        strtoul(strchr(right, '-') ? strchr(right, '-') + 1 : right, NULL, 10);
    return (left_image > right_image) - (left_image < right_image);
}

bool ingest_run(const char *dir, struct run_records *out)
{
    DIR *folder = opendir(dir);
    if (!folder)
        return false;
    struct dirent *entry;
    VECTOR(char *) names = {0};
    while ((entry = readdir(folder))) {
        size_t n = strlen(entry->d_name);
        if (n > 4 && !strcmp(entry->d_name + n - 4, ".rec"))
            VECTOR_PUSH(names, xasprintf("%s/%s", dir, entry->d_name));
    }
    closedir(folder);
    if (names.count > 1)
        qsort(names.items, names.count, sizeof *names.items, compare_record_files);
    for (size_t i = 0; i < names.count; i++) {
        size_t length = 0;
        unsigned char *data = (unsigned char *)read_whole_file(names.items[i], &length);
        if (!data) {
            warn("%s: cannot read", names.items[i]);
            out->problems++;
        } else {
            ingest_bytes(data, length, names.items[i], out);
        }
        free(data);
        free(names.items[i]);
    }
    free(names.items);
    return true;
}

void run_records_free(struct run_records *records)
{
    for (size_t i = 0; i < records->processes.count; i++)
        free(records->processes.items[i].exe);
    for (size_t i = 0; i < records->modules.count; i++)
        free(records->modules.items[i].path);
    for (size_t i = 0; i < records->sites.count; i++)
        free(records->sites.items[i].exe);
    free(records->processes.items);
    free(records->modules.items);
    free(records->sites.items);
    free(records->live.items);
    free(records->faults.items);
    for (size_t i = 0; i < records->names.count; i++)
        free(records->names.items[i].name);
    free(records->names.items);
    memset(records, 0, sizeof *records);
}
