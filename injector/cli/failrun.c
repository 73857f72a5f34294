/*
 * failrun.c — the failrun command: dispatch to one subcommand per file (cmd_*.c).
 */
#include "cli/commands.h"
#include "libfail.h"
#include "base/util.h"

#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: failrun <command> [options]\n"
    "\n"
    "Fail each allocation site of a program, one at a time, and report which failures it\n"
    "mishandles: crashes, hangs, leaks and silently wrong output, each with a replay command.\n"
    "\n"
    "commands:\n"
    "  run -- CMD [ARGS]   run a campaign on CMD and print the report\n"
    "  report              print the stored campaign's report again (--json for JSON)\n"
    "  replay SITE -- CMD  run CMD once with SITE failing, to reproduce a finding\n"
    "  merge A.db B.db -o all.db   join the shards of a campaign (run --shard K/N)\n"
    "  cov                 error-leg coverage (targets built with --coverage): summary, lcov, HTML\n"
    "  kernel -- CMD       fail the kernel's allocations in CMD's system calls (fail-nth)\n"
    "  help [COMMAND]      show help for a command\n"
    "  --version           print the version\n"
    "\n"
    "Example: failrun run -- ./mytests && failrun report --json > findings.json\n";

struct command {
    const char *name;
    int (*run)(int, char **);
    const struct option_table *options; /* its help text is made from it */
};

static const struct command commands[] = {
    {"run", cmd_run, &run_options_table},          {"report", cmd_report, &report_options_table},
    {"replay", cmd_replay, &replay_options_table}, {"merge", cmd_merge, &merge_options_table},
    {"cov", cmd_cov, &cov_options_table},          {"kernel", cmd_kernel, &kernel_options_table},
};

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

/* failrun's own crash: say so, with the return addresses (module+offset: addr2line reads them
   against the same build), then die of the signal as before. Only async-signal-safe calls:
   backtrace was called once at the start, so its unwinder is loaded already. */
static void on_internal_crash(int signo)
{
    static const char head[] = "failrun: internal error (a bug of failrun's; please report it "
                               "with these frames):\n";
    if (write(STDERR_FILENO, head, sizeof head - 1) < 0) {
        /* nothing more can be said */
    }
    void *frames[48];
    backtrace_symbols_fd(frames, backtrace(frames, 48), STDERR_FILENO);
    raise(signo); /* SA_RESETHAND: the default action now */
}

static void catch_internal_crashes(void)
{
    void *warm[1];
    backtrace(warm, 1);
    struct sigaction action = {.sa_handler = on_internal_crash, .sa_flags = SA_RESETHAND};
    sigemptyset(&action.sa_mask);
    const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        sigaction(signals[i], &action, NULL);
}

int main(int argc, char **argv)
{
    catch_internal_crashes();
    if (argc < 2)
        fatal("no command given; see `failrun help`");
    const char *name = argv[1];
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("failrun %s\n", LIBFAIL_VERSION);
        return 0;
    }
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        if (argc > 2) {
            const struct command *command = find_command(argv[2]);
            if (!command)
                fatal("no command '%s'; the commands are run, report, replay, merge, cov, kernel", argv[2]);
            options_usage(command->options, stdout);
        } else {
            fputs(usage, stdout);
        }
        return 0;
    }
    const struct command *command = find_command(name);
    if (!command)
        fatal("'%s' is not a failrun command; see `failrun help`", name);
    return command->run(argc - 1, argv + 1);
}
