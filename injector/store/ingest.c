/*
 * ingest.c — turn the raw record files of a run into processes, modules, sites, faults and live
 * block counts. Every record passes record_check() first; a bad one is skipped with a warning.
 */
#include "store/ingest.h"
#include "format/plan.h"
#include "format/text.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *function_name(uint32_t function)
{
    static const char *const names[FUNCTION_LIMIT] = {
#define FUNCTION_ROW(name, id, kind) [id] = #name,
#include "format/functions.def"
#undef FUNCTION_ROW
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

static const char *const kind_names[KIND_LIMIT] = {
#define FAULT_KIND(kind, name, ...) [kind] = #name,
#include "format/kinds.def"
#undef FAULT_KIND
};

const char *function_kind_name(uint32_t function)
{
    return kind_names[record_function_kind(function)];
}

const char *fault_kind_name(enum function_kind kind)
{
    return kind < KIND_LIMIT ? kind_names[kind] : "?";
}

enum function_kind fault_kind_from_name(const char *name)
{
    for (int kind = 0; name && kind < KIND_LIMIT; kind++)
        if (!strcmp(kind_names[kind], name))
            return (enum function_kind)kind;
    return KIND_LIMIT;
}

int function_io_errno(uint32_t function)
{
    static const int errors[FUNCTION_LIMIT] = {
#define IO_INTERPOSE(name, id, error, ...) [id] = error,
#define IO_INTERPOSE_VARIADIC(name, id, error, ...) [id] = error,
#include "format/interpose_io.def"
#undef IO_INTERPOSE
#undef IO_INTERPOSE_VARIADIC
    };
    return function < FUNCTION_LIMIT ? errors[function] : 0;
}

bool function_io_ends_like_input(uint32_t function)
{
    static const bool like[FUNCTION_LIMIT] = {
#define IO_INTERPOSE(name, id, error, like_eof, ...) [id] = like_eof,
#define IO_INTERPOSE_VARIADIC(name, id, error, like_eof, ...) [id] = like_eof,
#include "format/interpose_io.def"
#undef IO_INTERPOSE
#undef IO_INTERPOSE_VARIADIC
    };
    return function < FUNCTION_LIMIT && like[function];
}

/* The I/O call of that name (as the sites table stores it), or FUNCTION_LIMIT when none has it. */
static uint32_t io_function_named(const char *name)
{
    for (uint32_t function = 1; name && function < FUNCTION_LIMIT; function++)
        if (record_function_kind(function) == KIND_IO && !strcmp(function_name(function), name))
            return function;
    return FUNCTION_LIMIT;
}

bool function_io_ends_like_input_by_name(const char *name)
{
    return function_io_ends_like_input(io_function_named(name));
}

int function_io_errno_by_name(const char *name)
{
    return function_io_errno(io_function_named(name));
}

const char *unpreloaded_reason_name(uint32_t reason)
{
    return reason == UNPRELOADED_SETUID ? "setuid" : "cleared";
}

const char *unpreloaded_reason_words(const char *name)
{
    return name && !strcmp(name, "setuid") ? "set-user-ID, the loader ignores LD_PRELOAD"
                                           : "LD_PRELOAD or LIBFAIL_* cleared";
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

static void take_site(struct run_records *out, const struct record *r, size_t process)
{
    const char *exe = out->processes.items[process].exe;
    VECTOR_PUSH(out->processes.items[process].reached, r->signature);
    /* A system call's FAULT carries the kernel's N in `value`, not a size. */
    uint64_t size = record_function_kind(r->function) == KIND_SYSCALL ? 0 : r->value;
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
        .signature = r->signature, .exe = xstrdup(exe), .process = process,
        .function = r->function,
        .max_size = size, .nofail = (r->flags & RECORD_FLAG_NOFAIL) != 0};
    copy_frames(&site.stack, r);
    VECTOR_PUSH(out->sites, site);
}

/* Live counts are appended as they come and summed per site by merge_live once a file is
   read: searching the list per record was quadratic in the sites of a run. */
static void take_live(struct run_records *out, const struct record *r)
{
    struct ingest_live live = {.signature = r->signature, .blocks = r->value, .bytes = r->value2};
    if (r->frame_count > 0)
        live.top = r->body.frames[0];
    VECTOR_PUSH(out->live, live);
}

static void take_live_set(struct run_records *out, const struct record *r)
{
    for (int i = 0; i + 2 < r->frame_count; i += 3) {
        struct ingest_live live = {.signature = r->body.frames[i + 1].module,
                                   .blocks = r->body.frames[i + 1].offset,
                                   .bytes = r->body.frames[i + 2].module,
                                   .top = r->body.frames[i]};
        VECTOR_PUSH(out->live, live);
    }
}

static int compare_live(const void *a, const void *b)
{
    const struct ingest_live *left = a, *right = b;
    return (left->signature > right->signature) - (left->signature < right->signature);
}

/* One entry per site, the counts of all its records (and processes) summed; in signature order. */
static void merge_live(struct run_records *out)
{
    if (out->live.count < 2)
        return;
    qsort(out->live.items, out->live.count, sizeof *out->live.items, compare_live);
    size_t kept = 0;
    for (size_t i = 0; i < out->live.count; i++) {
        if (kept && out->live.items[kept - 1].signature == out->live.items[i].signature) {
            out->live.items[kept - 1].blocks += out->live.items[i].blocks;
            out->live.items[kept - 1].bytes += out->live.items[i].bytes;
        } else {
            out->live.items[kept++] = out->live.items[i];
        }
    }
    out->live.count = kept;
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

/* An exec announced as starting without the preload, or (RECORD_FLAG_EXEC_FAILED) taken back. */
static void take_unpreloaded(struct run_records *out, const struct record *r, size_t process)
{
    if (r->flags & RECORD_FLAG_EXEC_FAILED) {
        for (size_t i = out->unpreloaded.count; i-- > 0;) {
            struct ingest_unpreloaded *earlier = &out->unpreloaded.items[i];
            if (earlier->process == process && earlier->attempt == r->signature &&
                !earlier->failed) {
                earlier->failed = true;
                return;
            }
        }
        return;
    }
    struct ingest_unpreloaded entry = {.program = xstrdup(r->body.text.path),
                                       .reason = (uint32_t)r->value, .process = process,
                                       .attempt = r->signature};
    VECTOR_PUSH(out->unpreloaded, entry);
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
        take_site(out, r, *current);
        break;
    case RECORD_FAULT:
        take_site(out, r, *current);
        {
            struct ingest_fault fault = {.signature = r->signature, .pid = r->pid, .tid = r->tid,
                                         .function = r->function, .size = r->value,
                                         .fired = true};
            if (record_function_kind(r->function) == KIND_IO) {
                fault.call_failed = true;
                fault.error = function_io_errno(r->function);
            } else if (record_function_kind(r->function) == KIND_SYSCALL) {
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
        process->exit_parent = (uint32_t)r->signature;
        process->live_overflow = r->flags & RECORD_FLAG_LIVE_OVERFLOW;
        copy_frames(&process->exit_stack, r);
        break;
    case RECORD_SIGNAL:
        process->signal = (int)r->value;
        process->signal_addressed = r->flags & RECORD_FLAG_SIGNAL_ADDRESS;
        process->signal_address = r->value2;
        copy_frames(&process->crash_stack, r);
        break;
    case RECORD_LIVE:
        take_live(out, r);
        break;
    case RECORD_LIVE_SET:
        take_live_set(out, r);
        break;
    case RECORD_NAME:
        take_name(out, r);
        break;
    case RECORD_FIXTURE:
        process->fixture |= r->flags;
        break;
    case RECORD_BOUNDARY: {
        size_t length = strnlen(r->body.call.name, sizeof r->body.call.name);
        struct ingest_boundary boundary = {
            .pid = r->pid, .module = r->signature, .function = xmalloc(length + 1),
            .caller = r->body.call.caller, .value = r->value, .value2 = r->value2,
            .faulted = r->flags & RECORD_FLAG_BOUNDARY_FAULTED};
        memcpy(boundary.function, r->body.call.name, length);
        boundary.function[length] = '\0';
        VECTOR_PUSH(out->boundaries, boundary);
        break;
    }
    case RECORD_UNPRELOADED:
        take_unpreloaded(out, r, *current);
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
    merge_live(out);
}

/* One section: "NAME LENGTH\n" (LENGTH: 16 hex digits), the bytes, "\n". */
static bool invocation_section(const char **at, const char *end, const char *name,
                               char **value, size_t *value_length)
{
    size_t name_length = strlen(name);
    const char *p = *at;
    uint64_t length;
    if ((size_t)(end - p) < name_length + 18 || memcmp(p, name, name_length) ||
        p[name_length] != ' ' || p[name_length + 17] != '\n' ||
        !parse_hex(p + name_length + 1, 16, &length))
        return false;
    p += name_length + 18;
    if (length > (uint64_t)(end - p) || (size_t)(end - p) - length < 1 || p[length] != '\n')
        return false;
    *value = xmalloc(length + 1);
    memcpy(*value, p, length);
    (*value)[length] = '\0';
    if (value_length)
        *value_length = length;
    *at = p + length + 1;
    return true;
}

/* A text section must hold no NUL: it is one string. */
static bool one_string(const char *value, size_t length)
{
    return strlen(value) == length;
}

bool invocation_parse(const char *data, size_t length, struct ingest_invocation *out)
{
    static const char magic[] = "libfail-invocation 1\n";
    memset(out, 0, sizeof *out);
    const char *at = data, *end = data + length;
    size_t exe_length = 0, cwd_length = 0, kind_length = 0, path_length = 0;
    bool ok = length >= sizeof magic - 1 && !memcmp(data, magic, sizeof magic - 1);
    at += sizeof magic - 1;
    ok = ok && invocation_section(&at, end, "exe", &out->exe, &exe_length) &&
         invocation_section(&at, end, "cwd", &out->cwd, &cwd_length) &&
         invocation_section(&at, end, "argv", &out->argv, &out->argv_length) &&
         invocation_section(&at, end, "environ", &out->environment, &out->environment_length) &&
         invocation_section(&at, end, "stdin", &out->stdin_kind, &kind_length) &&
         invocation_section(&at, end, "stdin-path", &out->stdin_path, &path_length) &&
         at == end && one_string(out->exe, exe_length) && one_string(out->cwd, cwd_length) &&
         one_string(out->stdin_kind, kind_length) && one_string(out->stdin_path, path_length) &&
         out->exe[0] == '/' && out->cwd[0] == '/' && out->argv_length > 0 &&
         out->argv[out->argv_length - 1] == '\0' &&
         (out->environment_length == 0 || out->environment[out->environment_length - 1] == '\0');
    if (!ok)
        invocation_free(out);
    return ok;
}

void invocation_free(struct ingest_invocation *invocation)
{
    if (!invocation)
        return;
    free(invocation->exe);
    free(invocation->cwd);
    free(invocation->argv);
    free(invocation->environment);
    free(invocation->stdin_kind);
    free(invocation->stdin_path);
    memset(invocation, 0, sizeof *invocation);
}

/* The invocation file beside a record file (X.rec -> X.inv), for the image that file started. */
static void take_invocation(const char *record_path, struct ingest_process *process,
                            struct run_records *out)
{
    char *path = xstrdup(record_path);
    memcpy(path + strlen(path) - 4, ".inv", 4);
    size_t length = 0;
    char *data = read_whole_file(path, &length);
    if (data) {
        struct ingest_invocation parsed;
        if (invocation_parse(data, length, &parsed)) {
            process->invocation = xmalloc(sizeof parsed);
            *process->invocation = parsed;
        } else {
            warn("%s: malformed, ignored", path);
            out->problems++;
        }
    }
    free(data);
    free(path);
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
            size_t before = out->processes.count;
            ingest_bytes(data, length, names.items[i], out);
            /* The file's first record starts its image (ingest_bytes made it processes[before]). */
            if (out->processes.count > before)
                take_invocation(names.items[i], &out->processes.items[before], out);
        }
        free(data);
        free(names.items[i]);
    }
    free(names.items);
    return true;
}

void run_records_free(struct run_records *records)
{
    for (size_t i = 0; i < records->processes.count; i++) {
        free(records->processes.items[i].exe);
        free(records->processes.items[i].reached.items);
        invocation_free(records->processes.items[i].invocation);
        free(records->processes.items[i].invocation);
    }
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
    for (size_t i = 0; i < records->boundaries.count; i++)
        free(records->boundaries.items[i].function);
    free(records->boundaries.items);
    for (size_t i = 0; i < records->unpreloaded.count; i++)
        free(records->unpreloaded.items[i].program);
    free(records->unpreloaded.items);
    memset(records, 0, sizeof *records);
}
