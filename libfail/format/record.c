/*
 * record.c — checksum and validation of event records (see record.h).
 *
 * record_checksum() runs in the target for every record written; record_check() runs in failrun on
 * bytes read from files a crashing or hostile program may have garbled.
 */
#include "record.h"
#include "text.h"

#include <string.h>

uint64_t LF_TEXT record_checksum(const struct record *r)
{
    uint64_t words[offsetof(struct record, checksum) / 8];
    memcpy(words, r, sizeof words);
    return hash_words(0, words, sizeof words / sizeof words[0]);
}

static bool has_nul(const char *text, size_t size)
{
    return memchr(text, '\0', size) != NULL;
}

const char *record_check(const struct record *r)
{
    if (r->magic != RECORD_MAGIC)
        return "bad magic";
    if (r->checksum != record_checksum(r))
        return "checksum mismatch";
    if (r->type == 0 || r->type >= RECORD_TYPE_LIMIT)
        return "unknown record type";
    switch (r->type) {
    case RECORD_START:
    case RECORD_MODULE:
    case RECORD_UNPRELOADED:
        if (!has_nul(r->body.text.path, sizeof r->body.text.path))
            return "unterminated path";
        if (r->type == RECORD_MODULE && r->value2 > RECORD_BUILD_ID_MAX)
            return "build-id too long";
        if (r->frame_count != 0)
            return "frames on a text record";
        break;
    case RECORD_SITE:
    case RECORD_FAULT:
        if (r->function == 0 || (r->function >= FUNCTION_LIMIT &&
                                 (r->function < FUNCTION_SYSCALL_FIRST ||
                                  r->function >= FUNCTION_SYSCALL_LIMIT)))
            return "unknown function";
        if (r->frame_count == 0 || r->frame_count > RECORD_MAX_FRAMES)
            return "frame count out of range";
        break;
    case RECORD_LIVE_SET:
        if (r->frame_count == 0 || r->frame_count % 3 || r->frame_count > 3 * RECORD_LIVE_SET_MAX)
            return "frame count out of range";
        break;
    default:
        if (r->frame_count > RECORD_MAX_FRAMES)
            return "frame count out of range";
        break;
    }
    return NULL;
}
