/*
 * leftover.h — no process a campaign started outlives it (leftover.c): fixtures that daemonise
 * end with their run, and a killed campaign's with the next campaign's start.
 */
#ifndef FAILRUN_LEFTOVER_H
#define FAILRUN_LEFTOVER_H

#include <stdbool.h>

/* Process `pid` is a failrun (its command name); `if_unreadable` when it lives but its name
   cannot be read. */
bool process_is_failrun(long pid, bool if_unreadable);
/* failrun becomes a child subreaper: orphans of its runs become its children. */
void leftovers_adopt(void);
/* A run whose folder is `run_dir` ended: the orphans failrun adopted from it end (`keep`: the
   processes spawn.c still waits for, never touched). */
void leftovers_end_run(const char *run_dir, bool (*keep)(long pid));
/* The campaign ends: every orphan failrun adopted from a run ends. */
void leftovers_end_all(void);
/* The processes whose run folder lies in `folder` end: a killed campaign's scratch folder
   (`owner_gone`), or this campaign's own folder, where only those no live failrun is above.
   Returns how many. */
int leftovers_end_stale(const char *folder, bool owner_gone);

#endif
