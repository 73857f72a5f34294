#!/usr/bin/env python3
"""run_records.py DB WHERE — count what the kept runs of a campaign wrote in their record files.

The runs are those of `SELECT dir FROM runs WHERE <WHERE>` in the campaign database DB (kept with
--keep-runs). Records are libfail/format/record.h's: 512 bytes each, the type a little-endian
uint16 at offset 4, the flags a uint32 at 16, the signature a uint64 at 32. Prints one line:
"runs R faults F known-sites K new-sites N classes C", where a known site is one the baseline
reached in some program (program_sites, or program_known when the database has it) and a class
record a BOUNDARY record without RECORD_FLAG_BOUNDARY_FAULTED (what a call returned, for the
conventions; a faulted one is the run's own).
"""
import glob
import os
import sqlite3
import sys

RECORD_SIZE = 512
RECORD_SITE, RECORD_FAULT, RECORD_BOUNDARY = 3, 4, 11
BOUNDARY_FAULTED = 0x200

db = sqlite3.connect(sys.argv[1])
tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
known_sql = "SELECT site FROM program_sites"
if "program_known" in tables:
    known_sql += " UNION SELECT site FROM program_known"
known = {row[0] for row in db.execute(known_sql)}
dirs = [row[0] for row in db.execute("SELECT dir FROM runs WHERE " + sys.argv[2]) if row[0]]
counts = {"faults": 0, "known-sites": 0, "new-sites": 0, "classes": 0}
for folder in dirs:
    for path in glob.glob(os.path.join(folder, "*.rec")):
        data = open(path, "rb").read()
        for at in range(0, len(data) - RECORD_SIZE + 1, RECORD_SIZE):
            kind = int.from_bytes(data[at + 4:at + 6], "little")
            flags = int.from_bytes(data[at + 16:at + 20], "little")
            signature = "%016x" % int.from_bytes(data[at + 32:at + 40], "little")
            if kind == RECORD_SITE:
                counts["known-sites" if signature in known else "new-sites"] += 1
            elif kind == RECORD_FAULT:
                counts["faults"] += 1
            elif kind == RECORD_BOUNDARY and not flags & BOUNDARY_FAULTED:
                counts["classes"] += 1
print("runs %d %s" % (len(dirs), " ".join("%s %d" % item for item in counts.items())))
