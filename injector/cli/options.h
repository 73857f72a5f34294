/*
 * options.h — a command's options as one declarative table: each row names the option, its
 * argument, its help and where its value goes; the parser (getopt_long) and the usage text are
 * made from the table, so the two cannot disagree.
 */
#ifndef FAILRUN_OPTIONS_H
#define FAILRUN_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

/* Where an option's value goes. */
enum option_store {
    OPTION_CAMPAIGN,   /* the campaign's settings: stored in its database, resumed with it */
    OPTION_INVOCATION, /* this invocation only (output, parallelism, the database's path) */
};

enum option_argument {
    OPTION_FLAG,     /* --name */
    OPTION_REQUIRED, /* --name VALUE */
    OPTION_OPTIONAL, /* --name or --name=VALUE */
};

struct option_row {
    const char *name;       /* without the dashes; NULL: a heading, `help` is its text */
    char short_name;        /* -x, or 0 */
    enum option_argument argument;
    const char *value_name; /* in the usage: "N", "PATH", "GLOB" ("SIZE" shows as [=SIZE]) */
    enum option_store store;
    const char *help;       /* plain text, wrapped by the usage; '\n' starts a new line */
    /* Takes the value (NULL for a flag, or an optional one not given) into `target`, the
       command's own options; exits through fatal() on a bad value, naming the option. */
    void (*apply)(void *target, const char *value);
};

struct option_table {
    const char *synopsis;    /* "usage: ..." and the command's description, '\n'-ended */
    const struct option_row *rows;
    const char *epilogue;    /* after the options: exit status and the like; may be NULL */
    /* Another command's table whose options also apply (failrun kernel takes failrun run's);
       its rows are parsed, and the usage names it instead of repeating them. */
    const struct option_table *also;
    const char *also_name;   /* "failrun run": named in the usage */
    bool operands_anywhere;  /* options may follow operands (failrun merge A.db B.db -o C.db);
                                else the first operand ends the options */
};

/* Parses argv[0..argc) (argv[0] is the command's name) until the first operand or "--" (or to
   the end, operands moved after the options, with operands_anywhere), applying each option in
   turn. Returns the index of the first operand (after a "--"), or -1 when --help or -h was
   given (the caller prints the usage). An unknown option, or one without its value, is fatal. */
int options_parse(const struct option_table *table, int argc, char **argv, void *target);
/* The usage text: the synopsis, every row (headings included), the options stored with the
   campaign, the epilogue. */
void options_usage(const struct option_table *table, FILE *out);

#endif
