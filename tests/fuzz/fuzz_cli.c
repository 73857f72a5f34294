/* fuzz_cli.c — libFuzzer target: failrun's command-line parser over failrun kernel's option
   table (its own rows and all of failrun run's). The input is split at NUL bytes into arguments;
   parse_options either accepts them (a command must follow, the settings must be in range) or
   rejects them through fatal(), which here jumps back instead of exiting. The parser is static
   in cmd_run.c, so this harness includes that file. */
#include "../../injector/cli/cmd_run.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = xmalloc(size + 1);
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *argv[66] = {"run"};
    int argc = 1;
    for (size_t start = 0; start <= size && argc < 65;) {
        argv[argc++] = copy + start;
        start += strlen(copy + start) + 1;
    }
    argv[argc] = NULL;
    jmp_buf back;
    struct run_command command;
    memset(&command, 0, sizeof command);
    struct run_options *parsed = &command.options;
    warnings_quiet = true;
    fatal_jump = &back;
    opterr = 0;
    if (setjmp(back) == 0) {
        parse_options(&kernel_options_table, argc, argv, &command);
        struct campaign_settings *settings = &parsed->settings;
        if (!parsed->help && (!settings->argv || !settings->argv[0] || settings->depth < 1 ||
            settings->depth > RECORD_MAX_FRAMES || parsed->jobs < 1 || settings->max_runs < 1 ||
            (settings->shards && (settings->shard < 1 || settings->shard > settings->shards))))
            __builtin_trap(); /* accepted settings out of range */
    }
    fatal_jump = NULL;
    free(copy);
    return 0; /* what parse_options allocated before a rejection is not tracked: -detect_leaks=0 */
}
