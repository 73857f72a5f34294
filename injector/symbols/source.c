/*
 * source.c — source scope (see source.h). Runs in failrun, never in the target.
 */
#include "symbols/source.h"
#include "store/campaign.h"
#include "store/database.h"
#include "store/sitequery.h"
#include "symbols/symbolise.h"
#include "base/util.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Does one glob match the whole path or one of its tails after a '/'? "src/[*]" matches
   /home/me/proj/src/a.c. */
static bool glob_matches(const char *glob, const char *file)
{
    for (const char *tail = file; tail; tail = strchr(tail, '/'), tail = tail ? tail + 1 : NULL)
        if (fnmatch(glob, tail, 0) == 0)
            return true;
    return false;
}

bool source_matches(const char *globs, const char *file)
{
    if (!globs || !*globs)
        return true;
    if (!file || !*file)
        return false;
    char *copy = xstrdup(globs), *saved = NULL;
    bool included = false, any_include = false, excluded = false;
    for (char *glob = strtok_r(copy, ":", &saved); glob && !excluded;
         glob = strtok_r(NULL, ":", &saved)) {
        if (glob[0] == '!') {
            excluded = glob_matches(glob + 1, file);
        } else {
            any_include = true;
            included = included || glob_matches(glob, file);
        }
    }
    free(copy);
    return !excluded && (included || !any_include);
}

char *source_globs_add(const char *existing, const char *argument)
{
    char *result = xstrdup(existing ? existing : "");
    char *copy = xstrdup(argument), *saved = NULL;
    for (char *glob = strtok_r(copy, ",", &saved); glob; glob = strtok_r(NULL, ",", &saved)) {
        char *joined = *result ? xasprintf("%s:%s", result, glob) : xstrdup(glob);
        free(result);
        result = joined;
    }
    free(copy);
    return result;
}

/* A header of the system's (glibc's _FORTIFY_SOURCE wrappers, gcc's builtins): never the code
   under test nor its caller's own code, so a frame inlined from one counts as the function it
   was inlined into. */
static bool system_header(const char *file)
{
    return !strncmp(file, "/usr/include/", 13) || !strncmp(file, "/usr/lib/gcc/", 13);
}

/* The DWARF file of a stack's frame `index`: of its innermost function, inlined or not, past
   functions inlined from system headers; "" when unknown. `exact` when the frame's offset is the
   pc itself (frame 0 of a crash stack), not a return address. *inlined: whether that function
   was inlined into another. */
static void frame_file(struct symboliser *symboliser, const struct module_map *map,
                       const struct frame_list *frames, int index, bool exact, char *file,
                       size_t size, bool *inlined)
{
    const char *path = index >= 0 && index < frames->count
                           ? module_map_path(map, frames->frames[index].module)
                           : NULL;
    struct symbol_frame symbol[8];
    int n = path && symboliser ? symboliser_lookup(symboliser, path, frames->frames[index].offset,
                                                   !exact, symbol, 8)
                               : 0;
    int chosen = 0;
    while (chosen + 1 < n && system_header(symbol[chosen].file))
        chosen++;
    file[0] = '\0';
    if (n > 0)
        snprintf(file, size, "%s", symbol[chosen].file);
    if (inlined)
        *inlined = n > 0 && symbol[chosen].inlined;
}

/* Is frame `index` of a crash stack outside `globs` (1), inside (0), or is its file unknown
   (-1)? */
static int crash_frame_outside(struct symboliser *symboliser, const struct module_map *map,
                               const struct frame_list *frames, int index, const char *globs,
                               bool *inlined)
{
    char file[512];
    frame_file(symboliser, map, frames, index, index == 0, file, sizeof file, inlined);
    return file[0] ? !source_matches(globs, file) : -1;
}

bool crash_outside_source(struct symboliser *symboliser, const struct module_map *map,
                          const struct frame_list *frames, const char *globs)
{
    if (!globs || !*globs)
        return false;
    int own = first_own_frame(map, frames);
    if (own < 0 || crash_frame_outside(symboliser, map, frames, own, globs, NULL) != 1)
        return false;
    /* The code under test still active below (it called back into its caller's code, a handler
       or an allocation hook, or into a library of its own): the crash is reached through it. */
    for (int i = own + 1; i < frames->count; i++)
        if (!module_is_plumbing(module_map_path(map, frames->frames[i].module)) &&
            crash_frame_outside(symboliser, map, frames, i, globs, NULL) == 0)
            return false;
    return true;
}

bool crash_in_calling_activation(struct symboliser *symboliser, const struct module_map *map,
                                 const struct frame_list *crash, const struct frame_list *injection,
                                 const char *globs)
{
    if (!globs || !*globs)
        return false;
    int own = first_own_frame(map, crash);
    if (own < 0 || crash_frame_outside(symboliser, map, crash, own, globs, NULL) != 1)
        return false;
    int caller = -1;
    for (int i = 0; i < injection->count && caller < 0; i++) {
        int outside = crash_frame_outside(symboliser, map, injection, i, globs, NULL);
        if (outside < 0)
            return false; /* a frame of unknown source: no telling where the scope ends */
        if (outside == 1)
            caller = i;
    }
    if (caller < 1) /* none, or the allocation was the caller's own */
        return false;
    int compared = 0;
    for (int k = 1; caller + k < injection->count && own + k < crash->count; k++, compared++)
        if (injection->frames[caller + k].module != crash->frames[own + k].module ||
            injection->frames[caller + k].offset != crash->frames[own + k].offset)
            return false;
    if (compared < 2 || injection->frames[caller].module != crash->frames[own].module)
        return false;
    /* The same function too: a callback site may call other handlers, or this one again. */
    const char *path = module_map_path(map, crash->frames[own].module);
    uint64_t crash_start = 0, call_start = 0;
    char name[256];
    return path &&
           symboliser_function(symboliser, path, crash->frames[own].offset, true, &crash_start,
                               name, sizeof name) &&
           symboliser_function(symboliser, path, injection->frames[caller].offset, true,
                               &call_start, name, sizeof name) &&
           crash_start == call_start;
}

bool crash_at_entry_from_outside(struct symboliser *symboliser, const struct module_map *map,
                                 const struct frame_list *frames, const char *globs)
{
    if (!globs || !*globs)
        return false;
    int own = first_own_frame(map, frames);
    bool inlined = true;
    return own >= 0 && crash_frame_outside(symboliser, map, frames, own, globs, &inlined) == 0 &&
           !inlined && crash_frame_outside(symboliser, map, frames, own + 1, globs, NULL) == 1;
}

/* What sites_mark_source looks a site's source file up with. */
struct source_lookup {
    struct symboliser *symboliser;
    struct module_map map;
    const char *globs;
};

/* The source file of a site's first own frame (stored frames, JSON text). */
static void site_source_file(void *context, const char *stored, char *file, size_t size)
{
    struct source_lookup *lookup = context;
    struct frame_list frames = {0};
    frames_from_json(stored, &frames);
    frame_file(lookup->symboliser, &lookup->map, &frames, first_own_frame(&lookup->map, &frames),
               false, file, size, NULL);
}

static bool outside_globs(void *context, const char *file)
{
    return !source_matches(((struct source_lookup *)context)->globs, file);
}

void sites_mark_source(sqlite3 *db, const char *globs)
{
    /* Called after a run that stored new sites (judge.c, database_store_records). */
    if (!globs || !*globs)
        return;
    static struct symboliser *symboliser; /* cached for the campaign: modules stay loaded */
    if (!symboliser)
        symboliser = symboliser_new();
    struct source_lookup lookup = {.symboliser = symboliser, .globs = globs};
    module_map_load(db, &lookup.map);
    store_sites_mark_source(db, &(struct store_site_source){site_source_file, outside_globs,
                                                            &lookup});
    module_map_free(&lookup.map);
}

/* ---- allocation wrappers ---- */

/* Does the name end in one of `endings` (any case)? */
static bool name_ends_in(const char *function, const char *const *endings, size_t count)
{
    size_t length = function ? strlen(function) : 0;
    for (size_t i = 0; i < count; i++) {
        size_t ending = strlen(endings[i]);
        if (length >= ending && !strcasecmp(function + length - ending, endings[i]))
            return true;
    }
    return false;
}

bool wrapper_name_pattern(const char *function)
{
    static const char *const endings[] = {"alloc", "strdup", "strndup", "memdup"};
    return name_ends_in(function, endings, sizeof endings / sizeof endings[0]);
}

bool wrapper_named(const char *function, const char *wrappers)
{
    if (!function || !wrappers)
        return false;
    size_t length = strlen(function);
    for (const char *item = wrappers; *item;) {
        const char *end = strchr(item, ':');
        size_t item_length = end ? (size_t)(end - item) : strlen(item);
        if (item_length == length && !strncmp(item, function, length))
            return true;
        if (!end)
            break;
        item = end + 1;
    }
    return false;
}

/* Named like a function that opens a stream (curl_dbg_fopen, xfopen): it returns the FILE that
   fopen allocated, or its NULL, as an allocation wrapper returns the block. */
static bool opener_name_pattern(const char *function)
{
    static const char *const endings[] = {"fopen", "fdopen", "freopen"};
    return name_ends_in(function, endings, sizeof endings / sizeof endings[0]);
}

/* One candidate: a function first own frame of sites, and the first caller seen. */
struct candidate {
    char name[256];
    uint64_t caller_module, caller_start;
    bool several_callers;
};

static void note_candidate(struct candidate **list, size_t *count, const char *name,
                           uint64_t module, uint64_t start)
{
    for (size_t i = 0; i < *count; i++) {
        struct candidate *known = &(*list)[i];
        if (strcmp(known->name, name))
            continue;
        if (known->caller_module != module || known->caller_start != start)
            known->several_callers = true;
        return;
    }
    *list = xrealloc(*list, (*count + 1) * sizeof **list);
    struct candidate *added = &(*list)[(*count)++];
    snprintf(added->name, sizeof added->name, "%s", name);
    added->caller_module = module;
    added->caller_start = start;
    added->several_callers = false;
}

struct candidate_search {
    struct symboliser *symboliser;
    const struct module_map *map;
    struct candidate **candidates;
    size_t *count;
};

/* A site whose first own frame is in a function named like an allocator (or like fopen) is a
   candidate, with the function its caller is in; so is that caller when it is named like an
   allocator too, and so on (curl's curl_dbg_strdup calls curl_dbg_malloc: both are wrappers). */
static void consider_site(void *context, const char *stored)
{
    struct candidate_search *search = context;
    const struct module_map *map = search->map;
    struct frame_list frames = {0};
    frames_from_json(stored, &frames);
    int own = first_own_frame(map, &frames);
    for (int at = own; at >= 0 && at + 1 < frames.count; at++) {
        const char *path = module_map_path(map, frames.frames[at].module);
        const char *caller_path = module_map_path(map, frames.frames[at + 1].module);
        char name[256];
        uint64_t start = 0, caller_start = 0;
        if (!path || !symboliser_function(search->symboliser, path, frames.frames[at].offset, true,
                                          &start, name, sizeof name) ||
            !(wrapper_name_pattern(name) || (at == own && opener_name_pattern(name))))
            return;
        if (!caller_path || !symboliser_function(search->symboliser, caller_path,
                                                 frames.frames[at + 1].offset, true,
                                                 &caller_start, NULL, 0))
            caller_start = frames.frames[at + 1].offset;
        note_candidate(search->candidates, search->count, name, frames.frames[at + 1].module,
                       caller_start);
    }
}

char *wrappers_find(sqlite3 *db, struct symboliser *symboliser, const char *named)
{
    struct module_map map;
    module_map_load(db, &map);
    struct candidate *candidates = NULL;
    size_t count = 0;
    struct candidate_search search = {symboliser, &map, &candidates, &count};
    store_site_frames_each(db, consider_site, &search);
    char *result = xstrdup(named ? named : "");
    for (size_t i = 0; i < count; i++) {
        if (!candidates[i].several_callers || wrapper_named(candidates[i].name, result))
            continue;
        char *joined = *result ? xasprintf("%s:%s", result, candidates[i].name)
                               : xstrdup(candidates[i].name);
        free(result);
        result = joined;
    }
    free(candidates);
    module_map_free(&map);
    return result;
}

/* ---- an allocation wrapper's own bookkeeping ---- */

/* ':'-separated names, each once: `name` added to *list. */
static void name_add(char **list, const char *name)
{
    if (wrapper_named(name, *list))
        return;
    char *joined = **list ? xasprintf("%s:%s", *list, name) : xstrdup(name);
    free(*list);
    *list = joined;
}

struct bookkeeping_search {
    struct symboliser *symboliser;
    struct module_map map;
    const char *wrappers;
    char *direct;      /* wrappers that are the first own frame of a site: they allocate */
    char *called;      /* "F>W" pairs: F, not a wrapper, first own frame, called by W */
    char *bookkeeping; /* the F whose W allocates */
};

/* The out-of-line function of a site's frame `at`, into name[256]; false when unnamed. */
static bool frame_function(struct bookkeeping_search *search, const struct frame_list *frames,
                           int at, char name[256])
{
    const char *path =
        at >= 0 && at < frames->count ? module_map_path(&search->map, frames->frames[at].module)
                                      : NULL;
    return path && symboliser_function(search->symboliser, path, frames->frames[at].offset, true,
                                       NULL, name, 256);
}

static void note_bookkeeping_candidate(void *context, const char *stored)
{
    struct bookkeeping_search *search = context;
    struct frame_list frames = {0};
    frames_from_json(stored, &frames);
    int own = first_own_frame(&search->map, &frames);
    char function[256], caller[256];
    if (!frame_function(search, &frames, own, function))
        return;
    if (wrapper_named(function, search->wrappers)) {
        name_add(&search->direct, function);
        return;
    }
    if (!frame_function(search, &frames, own + 1, caller) ||
        !wrapper_named(caller, search->wrappers))
        return;
    char *pair = xasprintf("%s>%s", function, caller);
    name_add(&search->called, pair);
    free(pair);
}

static bool site_is_bookkeeping(void *context, const char *stored, char *function, size_t size)
{
    struct bookkeeping_search *search = context;
    struct frame_list frames = {0};
    frames_from_json(stored, &frames);
    char name[256];
    if (!frame_function(search, &frames, first_own_frame(&search->map, &frames), name) ||
        !wrapper_named(name, search->bookkeeping))
        return false;
    snprintf(function, size, "%s", name);
    return true;
}

size_t sites_mark_bookkeeping(sqlite3 *db, struct symboliser *symboliser, const char *wrappers)
{
    if (!wrappers || !*wrappers)
        return 0;
    struct bookkeeping_search search = {.symboliser = symboliser, .wrappers = wrappers,
                                        .direct = xstrdup(""), .called = xstrdup(""),
                                        .bookkeeping = xstrdup("")};
    module_map_load(db, &search.map);
    store_site_frames_each(db, note_bookkeeping_candidate, &search);
    /* F is bookkeeping when one of the wrappers that call it allocates itself. */
    size_t found = 0;
    char *pairs = xstrdup(search.called);
    for (char *pair = strtok(pairs, ":"); pair; pair = strtok(NULL, ":")) {
        char *caller = strchr(pair, '>');
        *caller++ = '\0';
        if (wrapper_named(caller, search.direct) && !wrapper_named(pair, search.bookkeeping)) {
            name_add(&search.bookkeeping, pair);
            found++;
        }
    }
    free(pairs);
    if (found)
        store_sites_mark_bookkeeping(db, site_is_bookkeeping, &search);
    module_map_free(&search.map);
    free(search.direct);
    free(search.called);
    free(search.bookkeeping);
    return found;
}

/* ---- a leak inside a system library ---- */

static bool system_frame(const struct module_map *map, const struct record_frame *frame)
{
    return module_is_system(module_map_path(map, frame->module));
}

static bool tool_frame(const struct module_map *map, const struct record_frame *frame)
{
    return module_is_tool(module_map_path(map, frame->module));
}

/* Are frames first .. last - 1 each the system library's (or, on the leak's side, the tools'
   allocator interposers above them), with at least one library frame? */
static bool all_system(const struct module_map *map, const struct frame_list *frames, int last)
{
    bool any = false;
    for (int i = 0; i < last; i++) {
        if (tool_frame(map, &frames->frames[i]) && !any)
            continue;
        if (!system_frame(map, &frames->frames[i]))
            return false;
        any = true;
    }
    return any;
}

int system_leak_frame(struct symboliser *symboliser, const struct module_map *map,
                      const struct frame_list *leaked, const struct frame_list *injection)
{
    int own_leaked = first_own_frame(map, leaked), own_injection = first_own_frame(map, injection);
    if (own_leaked <= 0 || own_injection <= 0 ||
        leaked->frames[own_leaked].module != injection->frames[own_injection].module ||
        leaked->frames[own_leaked].offset != injection->frames[own_injection].offset ||
        !all_system(map, leaked, own_leaked) || !all_system(map, injection, own_injection))
        return -1;
    /* From the program's call inwards: the same return addresses are the same activations. */
    int i = own_leaked - 1, j = own_injection - 1, shared = -1, depth = 0;
    while (i >= 0 && j >= 0 && leaked->frames[i].module == injection->frames[j].module &&
           leaked->frames[i].offset == injection->frames[j].offset &&
           system_frame(map, &leaked->frames[i])) {
        shared = i--;
        j--;
        depth++;
    }
    /* Then the innermost shared activation: one function, called at one place (the frames below
       were equal), left at two places, one to allocate the block, one to fail. */
    if (i >= 0 && j >= 0 && leaked->frames[i].module == injection->frames[j].module &&
        system_frame(map, &leaked->frames[i])) {
        const char *path = module_map_path(map, leaked->frames[i].module);
        uint64_t start_leaked = 0, start_injection = 0;
        if (path &&
            symboliser_function(symboliser, path, leaked->frames[i].offset, true, &start_leaked,
                                NULL, 0) &&
            symboliser_function(symboliser, path, injection->frames[j].offset, true,
                                &start_injection, NULL, 0) &&
            start_leaked == start_injection) {
            shared = i;
            depth++;
        }
    }
    /* The function the program called is depth 1: a block allocated there may be its own. */
    return depth >= 2 ? shared : -1;
}
