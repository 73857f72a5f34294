/*
 * options.c — the option tables of options.h: getopt_long's table made from the rows, and the
 * usage text printed from them.
 */
#include "cli/options.h"
#include "base/util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define HELP_COLUMN 20 /* where each option's help starts */
#define USAGE_WIDTH 94 /* the usage's lines end before this column */

static size_t row_count(const struct option_row *rows)
{
    size_t count = 0;
    while (rows[count].name || rows[count].help)
        count++;
    return count;
}

/* The row of option number `index` over the table and the tables it takes options from. */
static const struct option_row *row_at(const struct option_table *table, size_t index)
{
    for (; table; table = table->also) {
        size_t count = row_count(table->rows);
        if (index < count)
            return &table->rows[index];
        index -= count;
    }
    return NULL;
}

int options_parse(const struct option_table *table, int argc, char **argv, void *target)
{
    size_t total = 0;
    for (const struct option_table *t = table; t; t = t->also)
        total += row_count(t->rows);
    struct option *longs = xcalloc(total + 2, sizeof *longs);
    /* '+': stop at the first operand; ':': a missing value is told apart from an unknown option */
    char shorts[64] = "+:h";
    if (table->operands_anywhere)
        memmove(shorts, shorts + 1, strlen(shorts));
    size_t n = 0;
    for (size_t i = 0; i < total; i++) {
        const struct option_row *row = row_at(table, i);
        if (!row->name)
            continue;
        longs[n].name = row->name;
        longs[n].has_arg = row->argument == OPTION_FLAG       ? no_argument
                           : row->argument == OPTION_REQUIRED ? required_argument
                                                              : optional_argument;
        longs[n].val = 256 + (int)i; /* above every character: the row's index */
        n++;
        if (row->short_name && strlen(shorts) + 4 < sizeof shorts) {
            size_t at = strlen(shorts);
            shorts[at++] = row->short_name;
            if (row->argument != OPTION_FLAG)
                shorts[at++] = ':';
            if (row->argument == OPTION_OPTIONAL)
                shorts[at++] = ':';
            shorts[at] = '\0';
        }
    }
    longs[n].name = "help";
    longs[n].val = 'h';
    optind = 0; /* 0, not 1: glibc then also forgets where it was inside a grouped option */
    opterr = 0; /* the messages below name the command */
    int c, result = 0;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        if (c == 'h') {
            result = -1;
            break;
        }
        /* Name the option getopt stopped at: optopt is the short option's character, the long
           option's value (256 + its row) when it was given a value it does not take, or 0 for
           a long option it does not know (or an abbreviation of several). */
        if (c == ':' && optopt > 0 && optopt < 256)
            fatal("-%c needs a value; see `failrun help %s`", optopt, argv[0]);
        if (c == ':')
            fatal("%s needs a value; see `failrun help %s`", argv[optind - 1], argv[0]);
        if (c == '?' && optopt > 0 && optopt < 256)
            fatal("unknown option -%c; see `failrun help %s`", optopt, argv[0]);
        if (c == '?' && optopt >= 256 && row_at(table, (size_t)optopt - 256))
            fatal("--%s takes no value; see `failrun help %s`",
                  row_at(table, (size_t)optopt - 256)->name, argv[0]);
        if (c == '?')
            fatal("unknown or ambiguous option %s; see `failrun help %s`", argv[optind - 1],
                  argv[0]);
        const struct option_row *row = NULL;
        if (c >= 256)
            row = row_at(table, (size_t)c - 256);
        else
            for (size_t i = 0; i < total && !row; i++)
                if (row_at(table, i)->name && row_at(table, i)->short_name == c)
                    row = row_at(table, i);
        if (!row)
            fatal("unknown option; see `failrun help %s`", argv[0]);
        row->apply(target, optarg);
    }
    free(longs);
    return result < 0 ? -1 : optind;
}

/* `text` from the cursor at column `at`, wrapped before USAGE_WIDTH, each following line
   indented to `column`; '\n' in the text starts a new line. */
static void print_wrapped(FILE *out, const char *text, int at, int column)
{
    bool first = true;
    while (*text) {
        if (*text == '\n') {
            fprintf(out, "\n%*s", column, "");
            at = column;
            first = true;
            text++;
            continue;
        }
        size_t word = strcspn(text, " \n");
        if (!first && at + 1 + (int)word > USAGE_WIDTH) {
            fprintf(out, "\n%*s", column, "");
            at = column;
        } else if (!first && at > column) {
            fputc(' ', out);
            at++;
        }
        first = false;
        fwrite(text, 1, word, out);
        at += (int)word;
        text += word;
        while (*text == ' ')
            text++;
    }
    fputc('\n', out);
}

/* "  -j, --jobs N" or "  --keep-runs[=SIZE]", as the usage shows an option. */
static char *option_title(const struct option_row *row)
{
    char short_part[8] = "";
    if (row->short_name)
        snprintf(short_part, sizeof short_part, "-%c, ", row->short_name);
    if (row->argument == OPTION_FLAG)
        return xasprintf("  %s--%s", short_part, row->name);
    if (row->argument == OPTION_OPTIONAL)
        return xasprintf("  %s--%s[=%s]", short_part, row->name, row->value_name);
    return xasprintf("  %s--%s %s", short_part, row->name, row->value_name);
}

void options_usage(const struct option_table *table, FILE *out)
{
    fputs(table->synopsis, out);
    for (const struct option_row *row = table->rows; row->name || row->help; row++) {
        if (!row->name) { /* a heading, or "" for a blank line between groups */
            fputc('\n', out);
            if (*row->help)
                print_wrapped(out, row->help, 0, 0);
            continue;
        }
        char *title = option_title(row);
        int length = (int)strlen(title);
        fputs(title, out);
        if (length + 2 > HELP_COLUMN) { /* a long title: its help goes on after two spaces */
            fputs("  ", out);
            print_wrapped(out, row->help, length + 2, HELP_COLUMN);
        } else {
            fprintf(out, "%*s", HELP_COLUMN - length, "");
            print_wrapped(out, row->help, HELP_COLUMN, HELP_COLUMN);
        }
        free(title);
    }
    if (table->also)
        fprintf(out, "\nEvery option of `%s` applies too (see `failrun help %s`).\n",
                table->also_name, strchr(table->also_name, ' ') + 1);
    /* What a resumed campaign keeps: its options of OPTION_CAMPAIGN. */
    char *stored = xstrdup("");
    for (const struct option_row *row = table->rows; row->name || row->help; row++)
        if (row->name && row->store == OPTION_CAMPAIGN) {
            char *joined = xasprintf("%s%s--%s", stored, *stored ? ", " : "", row->name);
            free(stored);
            stored = joined;
        }
    if (*stored) {
        fputc('\n', out);
        char *text = xasprintf("Kept with the campaign in its database, where its reports read "
                               "them: %s. The same command resumes an unfinished campaign only "
                               "with the same values (--timeout and --vmlinux may change; "
                               "others need --replace).", stored);
        print_wrapped(out, text, 0, 0);
        free(text);
    }
    free(stored);
    if (table->epilogue) {
        fputc('\n', out);
        fputs(table->epilogue, out);
    }
}
