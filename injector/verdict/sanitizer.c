/*
 * sanitizer.c — find and parse sanitizer reports of a run (see sanitizer.h).
 */
#include "verdict/sanitizer.h"
#include "base/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *sanitizer_options(const char *existing, const char *dir, bool undefined)
{
    /* Ours come last, so they win over the user's. verify_asan_link_order=0: the preload sits
       before libasan in the library list, on purpose (it forwards to ASan's allocator). */
    const char *common = undefined ? "print_stacktrace=1" : "verify_asan_link_order=0";
    return xasprintf("%s%s%s:log_path=%s/%s:symbolize=0", existing ? existing : "",
                     existing && *existing ? ":" : "", common, dir, SANITIZER_LOG);
}

const char *sanitizer_module_path(const char *name, char *const *known, size_t count)
{
    if (!name || !*name || name[0] == '/')
        return name;
    size_t length = strlen(name);
    const char *found = NULL;
    bool whole = false; /* found ends in "/name" */
    for (size_t i = 0; i < count && !whole; i++) {
        const char *path = known[i];
        size_t path_length = path ? strlen(path) : 0;
        if (path_length <= length || path[0] != '/' || strcmp(path + path_length - length, name))
            continue;
        if (!found || path[path_length - length - 1] == '/') {
            found = path;
            whole = path[path_length - length - 1] == '/';
        }
    }
    return found ? found : name;
}

char *sanitizer_user_options(const char *value, bool undefined, bool *ours)
{
    const char *common = undefined ? "print_stacktrace=1" : "verify_asan_link_order=0";
    char *marker = xasprintf("%s:log_path=", common);
    const char *end = ":symbolize=0";
    size_t length = strlen(value), end_length = strlen(end);
    const char *found = NULL;
    for (const char *at = strstr(value, marker); at; at = strstr(at + 1, marker))
        found = at; /* the last: ours come last */
    free(marker);
    *ours = found && length >= end_length && !strcmp(value + length - end_length, end) &&
            (found == value || found[-1] == ':');
    if (!*ours || found == value)
        return NULL;
    size_t user = (size_t)(found - value) - 1; /* without the ':' before ours */
    char *text = xmalloc(user + 1);
    memcpy(text, value, user);
    text[user] = '\0';
    return text;
}

static const char *after(const char *text, const char *marker)
{
    const char *found = strstr(text, marker);
    return found ? found + strlen(marker) : NULL;
}

/* The report's headline: what kind of error, up to " on " / " at " / the end of the line. */
static void read_kind(const char *start, struct sanitizer_report *out)
{
    size_t length = strcspn(start, "\n");
    const char *cut = NULL;
    for (const char *p = start; p < start + length; p++)
        if (!strncmp(p, " on ", 4) || !strncmp(p, " at pc", 6) || !strncmp(p, " (pc ", 5)) {
            cut = p;
            break;
        }
    if (cut)
        length = (size_t)(cut - start);
    if (length >= sizeof out->kind)
        length = sizeof out->kind - 1;
    memcpy(out->kind, start, length);
    out->kind[length] = '\0';
}

/* Frames: "    #3 0x55d0c2a1b2c3  (/path/to/module+0x1a2b)" until the first line that is not.
   Returns where the scan stopped. */
static const char *scan_frames(const char *text, char **paths, uint64_t *offsets, int *count)
{
    const char *line = strstr(text, "    #0 ");
    while (line && *count < RECORD_MAX_FRAMES) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        const char *open = memchr(line, '(', length);
        const char *plus = NULL;
        for (const char *p = line + length; open && p > open; p--)
            if (*p == '+') {
                plus = p;
                break;
            }
        if (strncmp(line, "    #", 5) || !open || !plus || strncmp(plus, "+0x", 3))
            break;
        paths[*count] = xasprintf("%.*s", (int)(plus - open - 1), open + 1);
        offsets[*count] = strtoull(plus + 3, NULL, 16) + 1;
        (*count)++;
        line = end ? end + 1 : NULL;
    }
    return line;
}

static void read_frames(const char *text, struct sanitizer_report *out)
{
    scan_frames(text, out->paths, out->offsets, &out->frame_count);
}

bool sanitizer_parse(const char *text, struct sanitizer_report *out)
{
    memset(out, 0, sizeof *out);
    const char *kind = after(text, "ERROR: AddressSanitizer: ");
    if (!kind)
        kind = after(text, "ERROR: LeakSanitizer: ");
    if (!kind) {
        const char *runtime = strstr(text, "runtime error: ");
        kind = runtime;
    }
    if (!kind)
        return false;
    read_kind(kind, out);
    out->crash = !strncmp(out->kind, "SEGV", 4) || !strncmp(out->kind, "BUS", 3) ||
                 !strncmp(out->kind, "FPE", 3) || !strncmp(out->kind, "ILL", 3) ||
                 !strncmp(out->kind, "stack-overflow", 14);
    read_frames(kind, out);
    return true;
}

void sanitizer_report_free(struct sanitizer_report *report)
{
    for (int i = 0; i < report->frame_count; i++)
        free(report->paths[i]);
    memset(report, 0, sizeof *report);
}

bool sanitizer_parse_leaks(const char *text, sanitizer_leak_list *out, bool *scan_failed)
{
    if (strstr(text, "LeakSanitizer has encountered a fatal error") ||
        strstr(text, "LeakSanitizer: StopTheWorld failed")) {
        *scan_failed = true; /* e.g. no ptrace: the scan never ran */
        return false;
    }
    const char *at = after(text, "ERROR: LeakSanitizer: detected memory leaks");
    if (!at)
        return false;
    static const char *const headings[] = {"Direct leak of ", "Indirect leak of "};
    for (;;) {
        const char *next = NULL;
        int kind = 0;
        for (int i = 0; i < 2; i++) {
            const char *found = strstr(at, headings[i]);
            if (found && (!next || found < next)) {
                next = found;
                kind = i;
            }
        }
        if (!next)
            break;
        struct sanitizer_leak leak = {.direct = kind == 0};
        char *rest = NULL;
        leak.bytes = strtoull(next + strlen(headings[kind]), &rest, 10);
        const char *objects = strstr(rest, " in ");
        if (objects)
            leak.objects = strtoull(objects + 4, NULL, 10);
        const char *stop = scan_frames(next, leak.paths, leak.offsets, &leak.frame_count);
        VECTOR_PUSH(*out, leak);
        at = stop ? stop : next + 1;
    }
    return true;
}

void sanitizer_leaks_free(sanitizer_leak_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        for (int j = 0; j < list->items[i].frame_count; j++)
            free(list->items[i].paths[j]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

size_t sanitizer_read_leaks(const char *dir, const char *prefix, sanitizer_leak_list *out,
                            bool *scan_failed)
{
    DIR *folder = opendir(dir);
    if (!folder)
        return 0;
    size_t reports = 0, length = strlen(prefix);
    struct dirent *entry;
    while ((entry = readdir(folder))) {
        if (strncmp(entry->d_name, prefix, length) || entry->d_name[length] != '.')
            continue;
        char *path = xasprintf("%s/%s", dir, entry->d_name);
        char *text = read_whole_file(path, NULL);
        size_t before = out->count;
        if (text && sanitizer_parse_leaks(text, out, scan_failed))
            reports++;
        uint32_t pid = (uint32_t)strtoul(entry->d_name + length + 1, NULL, 10);
        for (size_t i = before; i < out->count; i++)
            out->items[i].pid = pid;
        free(text);
        free(path);
    }
    closedir(folder);
    return reports;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

bool sanitizer_read(const char *dir, struct sanitizer_report *out)
{
    DIR *folder = opendir(dir);
    if (!folder)
        return false;
    VECTOR(char *) names = {0};
    struct dirent *entry;
    while ((entry = readdir(folder)))
        if (!strncmp(entry->d_name, SANITIZER_LOG ".", strlen(SANITIZER_LOG) + 1))
            VECTOR_PUSH(names, xasprintf("%s/%s", dir, entry->d_name));
    closedir(folder);
    if (names.count > 1)
        qsort(names.items, names.count, sizeof *names.items, compare_names);
    bool found = false;
    for (size_t i = 0; i < names.count; i++) {
        char *text = found ? NULL : read_whole_file(names.items[i], NULL);
        if (text)
            found = sanitizer_parse(text, out);
        free(text);
        free(names.items[i]);
    }
    free(names.items);
    return found;
}
