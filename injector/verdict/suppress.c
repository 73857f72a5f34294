/*
 * suppress.c — suppression rules: known bugs that are not the program's to fix (glibc's, a
 * dependency's) hidden from a report and counted as "suppressed: N" instead.
 *
 * One rule a line, as LeakSanitizer's and valgrind's files have them:
 *     KIND:PATTERN        # a comment
 * KIND is a finding's outcome (crash, leak, silent, hang, sanitizer) or `*`. PATTERN is a shell
 * glob matched against every frame of the finding's stack (crash stack, or where a leaked block
 * was allocated): against the function's name, "module!function" (module = file name of the
 * library or program), the module alone and the source file's name. Blank lines and lines
 * starting with # are ignored. A bundled default (below) covers known glibc bugs.
 *
 * Rules are applied when a report is built, not when runs are judged: a campaign keeps every
 * finding, and a changed suppression file changes the next report.
 */
#include "verdict/suppress.h"
#include "base/util.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* Known bugs of Debian 12's glibc (2.36) reached only when an allocation fails inside it. Each was
   replayed and read by hand before it was added here. */
static const char default_rules[] =
#include "suppress_default.inc"
    ;

struct rule {
    char *kind;
    char *pattern;
    char *text; /* the line as written, to say which rule hid a finding */
};

struct suppressions {
    VECTOR(struct rule) rules;
};

static char *trimmed(char *text)
{
    while (*text == ' ' || *text == '\t')
        text++;
    char *end = text + strlen(text);
    while (end > text && strchr(" \t\r\n", end[-1]))
        *--end = '\0';
    return text;
}

/* Returns false with *error set for a line that is not a rule. */
static bool add_rules(struct suppressions *list, const char *text, const char *origin,
                      char **error)
{
    char *copy = xstrdup(text);
    int number = 0;
    bool ok = true;
    for (char *line = copy, *next; ok && line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        number++;
        char *comment = strchr(line, '#');
        if (comment)
            *comment = '\0';
        char *rule = trimmed(line);
        if (!*rule)
            continue;
        char *colon = strchr(rule, ':');
        if (!colon || colon == rule || !colon[1]) {
            *error = xasprintf("%s:%d: \"%s\" is not a rule; write KIND:PATTERN, e.g. "
                               "leak:setlocale", origin, number, rule);
            ok = false;
            break;
        }
        *colon = '\0';
        const char *kind = trimmed(rule);
        static const char *const kinds[] = {"*", "crash", "leak", "silent", "hang", "sanitizer"};
        bool known = false;
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
            known |= !strcmp(kind, kinds[i]);
        if (!known) {
            *error = xasprintf("%s:%d: unknown kind \"%s\"; use crash, leak, silent, hang, "
                               "sanitizer or *", origin, number, kind);
            ok = false;
            break;
        }
        struct rule entry = {
            .kind = xstrdup(kind),
            .pattern = xstrdup(trimmed(colon + 1)),
            .text = xasprintf("%s:%s", kind, trimmed(colon + 1)),
        };
        VECTOR_PUSH(list->rules, entry);
    }
    free(copy);
    return ok;
}

struct suppressions *suppressions_load(const char *const *files, bool defaults)
{
    struct suppressions *list = xcalloc(1, sizeof *list);
    char *error = NULL;
    if (defaults && !add_rules(list, default_rules, "the bundled suppressions", &error))
        fatal("%s", error);
    for (size_t i = 0; files && files[i]; i++) {
        char *text = read_whole_file(files[i], NULL);
        if (!text)
            fatal("cannot read the suppression file %s: %s", files[i], strerror(errno));
        if (!add_rules(list, text, files[i], &error))
            fatal("%s", error);
        free(text);
    }
    return list;
}

void suppressions_free(struct suppressions *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->rules.count; i++) {
        free(list->rules.items[i].kind);
        free(list->rules.items[i].pattern);
        free(list->rules.items[i].text);
    }
    free(list->rules.items);
    free(list);
}

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "";
}

static bool frame_matches(const char *pattern, const struct suppress_frame *frame)
{
    const char *module = base_name(frame->module);
    char *qualified = xasprintf("%s!%s", module, frame->function ? frame->function : "");
    bool match = (frame->function && !fnmatch(pattern, frame->function, 0)) ||
                 !fnmatch(pattern, qualified, 0) || (*module && !fnmatch(pattern, module, 0)) ||
                 (frame->file && *frame->file && !fnmatch(pattern, base_name(frame->file), 0));
    free(qualified);
    return match;
}

const char *suppressions_match(const struct suppressions *list, const char *kind,
                               const struct suppress_frame *frames, size_t count)
{
    for (size_t i = 0; list && i < list->rules.count; i++) {
        const struct rule *rule = &list->rules.items[i];
        if (strcmp(rule->kind, "*") && strcmp(rule->kind, kind))
            continue;
        for (size_t j = 0; j < count; j++)
            if (frame_matches(rule->pattern, &frames[j]))
                return rule->text;
    }
    return NULL;
}

size_t suppressions_count(const struct suppressions *list)
{
    return list ? list->rules.count : 0;
}
