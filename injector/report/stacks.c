/*
 * stacks.c — stacks as the report shows them: a site's frames symbolised, and which of its
 * frames a reader looks at first.
 */
#include "report/parts.h"
#include "base/util.h"
#include "store/campaign.h"
#include "store/database.h"
#include "store/sitequery.h"
#include "symbols/symbolise.h"

#include <stdlib.h>
#include <string.h>

json_t *symbolise_stack(struct symboliser *symboliser, const struct module_map *map,
                        const struct frame_list *frames)
{
    json_t *stack = json_array();
    for (int i = 0; i < frames->count; i++) {
        const struct record_frame *frame = &frames->frames[i];
        const char *path = module_map_path(map, frame->module);
        struct symbol_frame symbols[16];
        int n = path ? symboliser_lookup(symboliser, path, frame->offset, true, symbols, 16) : 0;
        char module[17];
        hex16(module, frame->module);
        for (int j = 0; j < (n ? n : 1); j++) {
            json_t *entry = json_object();
            json_object_set_new(entry, "function", json_string(n ? symbols[j].function : "??"));
            json_object_set_new(entry, "file", json_string(n ? symbols[j].file : ""));
            json_object_set_new(entry, "line", json_integer(n ? symbols[j].line : 0));
            json_object_set_new(entry, "inlined", json_boolean(n && symbols[j].inlined));
            json_object_set_new(entry, "module", json_string(path ? path : "?"));
            json_object_set_new(entry, "offset", json_integer((json_int_t)frame->offset));
            json_object_set_new(entry, "plumbing", json_boolean(module_is_plumbing(path)));
            json_object_set_new(entry, "tool", json_boolean(module_is_tool(path)));
            json_object_set_new(entry, "system", json_boolean(module_is_system(path)));
            json_array_append_new(stack, entry);
        }
    }
    return stack;
}

/* The first frame whose `flag` ("plumbing", "tool") is not set, copied; `fallback` first frame
   when every one has it. */
static json_t *first_frame_without(json_t *stack, const char *flag, bool fallback)
{
    size_t index;
    json_t *entry;
    json_array_foreach(stack, index, entry) {
        if (!json_is_true(json_object_get(entry, flag)))
            return json_deep_copy(entry);
    }
    return fallback && json_array_size(stack) ? json_deep_copy(json_array_get(stack, 0))
                                              : json_null();
}

const char *string_of(json_t *object, const char *key)
{
    const char *text = json_string_value(json_object_get(object, key));
    return text ? text : "?";
}

/* The first frame of the program's own code: where a reader should look. */
json_t *stack_location(json_t *stack)
{
    return first_frame_without(stack, "plumbing", true);
}

/* Where it went wrong: the first frame that is not failrun's or a sanitizer's runtime, even when
   it lies in the C library (a fault inside a system library is headlined there). */
json_t *fault_frame(json_t *stack)
{
    return first_frame_without(stack, "tool", false);
}

/* Is this one of the C library's functions that do only what their arguments say: string and
   memory functions (strlen, __strlen_evex, memcpy, strdup, wcslen, stpcpy), free and realloc of
   a pointer (regfree of a regex), formatting into a buffer (sprintf)? */
static bool leaf_function(const char *function)
{
    static const char *const prefixes[] = {"str", "mem", "wcs", "stp", "free", "libc_free",
                                           "realloc", "libc_realloc", "sprintf", "vsprintf",
                                           "snprintf", "vsnprintf", "regfree"};
    if (!function)
        return false;
    while (*function == '_')
        function++;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(function, prefixes[i], strlen(prefixes[i])))
            return true;
    return false;
}

/* Does the fault lie in the program's use of the library rather than in the library? It does
   when the program called the faulting function itself or through one or two more library
   calls (fputs of a NULL stream, strdup of a NULL that faults in strlen, regfree that frees a
   pointer it never got), or only through functions that do just what their arguments say.
   Deeper inside the library (the NSS code under getpwuid), the fault is the library's. */
bool fault_in_caller(json_t *stack)
{
    size_t index;
    json_t *entry;
    int depth = 0;
    bool leaves_only = true;
    json_array_foreach(stack, index, entry) {
        if (json_is_true(json_object_get(entry, "tool")) ||
            json_is_true(json_object_get(entry, "inlined")))
            continue;
        if (!json_is_true(json_object_get(entry, "plumbing")))
            return depth > 0 && (depth < 3 || leaves_only);
        depth++;
        leaves_only &= leaf_function(json_string_value(json_object_get(entry, "function")));
    }
    return false;
}

json_t *site_stack(sqlite3 *db, struct symboliser *symboliser, const struct module_map *map,
                   const char *site, json_t **function, json_t **max_size)
{
    struct frame_list frames = {0};
    char *stored, *name;
    int64_t size;
    *function = json_string("?");
    *max_size = json_integer(0);
    if (store_site_stack(db, site, &stored, &name, &size)) {
        frames_from_json(stored, &frames);
        json_decref(*function);
        json_decref(*max_size);
        *function = json_string(name);
        *max_size = json_integer(size);
    }
    free(stored);
    free(name);
    return symbolise_stack(symboliser, map, &frames);
}
