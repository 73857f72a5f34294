#!/usr/bin/env python3
"""check.py — the source tree keeps its layout: parts, sizes, and dependencies that point one way.

    python3 tests/layout/check.py [ROOT]        (ROOT: the repository, default: this checkout)

Reads PARTS below (the one table of the layout), the sources, and the object files of a build
(ROOT/build/obj and ROOT/build/pic, so `make all` first). Prints one line per rule broken and
exits 1 when any is; prints the dependency graph between parts either way.

Rules:
  - every .c and .h file under libfail/, injector/ and coverage/ belongs to a part of PARTS;
  - no folder holds more than MAX_C_FILES .c files (a part's subfolders each count on their own),
    and no file has more than MAX_LINES lines (except those in OVERSIZE, which may not grow past
    the size written there);
  - a part includes headers of its own part and of parts below it only (ranks in PARTS), and so
    do the calls between object files: a symbol defined in a higher part is never used lower;
  - what runs inside the target (side "target") never includes a runner header, and the runner
    includes nothing of the target's but the shared record format and the public header;
  - a kind of fault is a row of libfail/format/kinds.def: no code compares a string with a
    kind's name (strcmp(kind, "io")) but through that table;
  - storage is the only code that holds SQL: no object file of the runner outside STORE uses an
    sqlite3_* function or the store's raw SQL functions (RAW_SQL_API), and no source outside it
    has a string that starts like SQL (a statement, a clause, a condition);
  - no files of failrun call each other in a circle (inside a part either): its files' calls
    form a tree you can read from the bottom up. (The in-target core is one unit around
    runtime/runtime.c, which its other files call back; it is not held to this.)
"""
import os
import re
import subprocess
import sys

# (folder, side, rank, what it holds). Lower ranks never depend on higher ones; a part may use any
# part of a lower rank, and parts of one rank never use each other. "shared" is compiled into
# both sides.
PARTS = [
    ("libfail/format", "shared", 0, "the records, plans and text helpers both sides share"),
    ("libfail/include", "shared", 0, "the public header libfail.h"),
    ("libfail", "target", 1, "the in-target core: sites, records, fork mode, test cases"),
    ("injector/preload", "target", 2, "the interposers: allocator, I/O, kernel fail-nth, audit"),
    ("injector/base", "runner", 1, "strings, files, spawning processes, leftovers"),
    ("injector/store", "runner", 2, "the campaign database, settings, reading run records"),
    ("injector/symbols", "runner", 3, "symbolisation with libdw, source scopes"),
    ("injector/verdict", "runner", 4, "outcome rules: classes, sanitizers, suppressions, "
                                      "library boundary, NOFAIL policy"),
    ("injector/kernel", "runner", 4, "kernel analysis: kmem traces, KCOV lines"),
    ("injector/engine", "runner", 5, "execute, baseline, plan, schedule and judge runs"),
    ("injector/report", "runner", 6, "the report and its output formats"),
    ("coverage", "runner", 6, "error legs from gcov data, NOFAIL analysis, HTML"),
    ("injector/cli", "runner", 7, "failrun and its commands"),
]
MAX_C_FILES = 12
# The part that alone holds SQL, and how an SQL statement's text starts.
STORE = "injector/store"
SQL_STRING = re.compile(r'"\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|WITH|REPLACE|PRAGMA|'
                        r'ATTACH|DETACH|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|VACUUM|FROM|WHERE|'
                        r'ORDER BY|GROUP BY|VALUES|NOT [a-z_]+ AND)\b')
# The store's own functions that take SQL text or a statement: storage's, not its users'.
RAW_SQL_API = {"database_prepare", "database_exec", "database_finalize", "database_step_done",
               "column_text", "bind_text_or_null"}
MAX_LINES = 900
# Files still over MAX_LINES, with the most lines they may have: each entry is debt to pay off
# by splitting the file, and may only shrink.
OVERSIZE = {
}


# Parts whose subfolders belong to them too (the public header's libfail/ folder).
WITH_SUBFOLDERS = {"libfail/include"}

# Subfolders that belong to the part of another folder, each named: the in-target core is one unit
# (runtime.c calls fork mode and fork mode calls the runtime back), so its runtime and its fork
# mode cannot be parts of their own (parts of one rank never use each other); they are folders of
# the core's part, each held to MAX_C_FILES on its own. Any other new subfolder of libfail/ is in
# no part until it is named in PARTS or here.
PART_OF_FOLDER = {
    "libfail/runtime": "libfail",
    "libfail/fork": "libfail",
}


def part_of(path):
    """The part holding `path` (relative): the part whose folder holds it (a folder of
    PART_OF_FOLDER: that of the folder named there), or a part of WITH_SUBFOLDERS above it; None
    if none (a new folder must be a row of PARTS or of PART_OF_FOLDER)."""
    folder_of = os.path.dirname(path)
    folder_of = PART_OF_FOLDER.get(folder_of, folder_of)
    for folder, side, rank, _ in PARTS:
        if folder_of == folder or (folder in WITH_SUBFOLDERS and path.startswith(folder + "/")):
            return (folder, side, rank)
    return None


def sources(root):
    found = []
    for top in ("libfail", "injector", "coverage"):
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if name.endswith((".c", ".h", ".def")):
                    found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)


INCLUDE_DIRS = ["libfail", "libfail/include", "injector", "coverage", "build/gen"]


def resolve_include(root, source, name):
    """The repository file `#include "name"` in `source` reads, or None (generated, or system)."""
    for folder in [os.path.dirname(source)] + INCLUDE_DIRS:
        candidate = os.path.normpath(os.path.join(folder, name))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def allowed(user, used):
    """May part `user` (folder, side, rank) depend on part `used`?"""
    if user[0] == used[0]:
        return True
    if used[1] == "shared":
        return True
    if user[1] != used[1]:
        return False
    return used[2] < user[2]


def object_symbols(root):
    """{object: (defined, undefined)} over the build's objects of failrun and of the target."""
    result = {}
    for build in ("build/obj", "build/pic"):
        for folder, _, names in os.walk(os.path.join(root, build)):
            for name in names:
                if not name.endswith(".o"):
                    continue
                path = os.path.join(folder, name)
                source = os.path.relpath(path, os.path.join(root, build))[:-2] + ".c"
                if not os.path.isfile(os.path.join(root, source)):
                    continue  # a stale object of a file that moved
                out = subprocess.run(["nm", "-g", path], capture_output=True, text=True,
                                     check=True).stdout
                defined, undefined = set(), set()
                for line in out.splitlines():
                    fields = line.split()
                    if len(fields) == 2 and fields[0] == "U":
                        undefined.add(fields[1])
                    elif len(fields) == 3 and fields[1] in "TDBRCVW":
                        defined.add(fields[2])
                result[(build, source)] = (defined, undefined)
    return result


def libc_symbols():
    """The C library's dynamic symbols: the interposers define malloc, open, ... under the same
    names, and a call of the core to open() is a call to the C library, not up into them. None
    when the C library cannot be found or read."""
    found = subprocess.run(["cc", "-print-file-name=libc.so.6"], capture_output=True, text=True)
    path = found.stdout.strip()
    if found.returncode != 0 or not os.path.isabs(path):
        found = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True)
        paths = re.findall(r"libc\.so\.6 \(.*?x86-64.*?\) => (\S+)", found.stdout)
        path = paths[0] if paths else ""
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True)
    if not path or out.returncode != 0:
        return None
    return {line.split()[-1].split("@")[0] for line in out.stdout.splitlines() if line.split()}


def circles(graph):
    """The strongly connected components of more than one node (Tarjan), each as a path of
    sources, sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(source for _, source in component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def kind_names(root):
    """The names of the kinds of fault, from kinds.def."""
    with open(os.path.join(root, "libfail/format/kinds.def"), encoding="utf-8") as handle:
        return re.findall(r"^FAULT_KIND\(\s*\w+\s*,\s*(\w+)", handle.read(), re.M)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                           else os.path.join(os.path.dirname(__file__), "..", ".."))
    problems = []
    edges = {}
    files = sources(root)
    c_files = {}
    for path in files:
        part = part_of(path)
        if part is None:
            problems.append(f"{path}: in no part of the layout (tests/layout/check.py PARTS, "
                            "PART_OF_FOLDER)")
            continue
        if path.endswith(".c"):
            c_files.setdefault(os.path.dirname(path), []).append(path)
        with open(os.path.join(root, path), encoding="utf-8") as handle:
            text = handle.read()
        lines = text.count("\n")
        limit = OVERSIZE.get(path, MAX_LINES)
        if lines > limit:
            problems.append(f"{path}: {lines} lines, more than {limit}")
        elif path in OVERSIZE and lines <= MAX_LINES:
            problems.append(f"{path}: {lines} lines now, remove it from OVERSIZE")
        for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            target = resolve_include(root, path, name)
            if target is None:
                continue
            used = part_of(target)
            if used is None:
                continue
            if used[0] != part[0]:
                edges.setdefault((part[0], used[0]), set()).add(f"{path} includes {target}")
            if not allowed(part, used):
                problems.append(f"{path} ({part[0]}) includes {target} ({used[0]})")
        if part[0] != STORE and part[1] == "runner":
            for number, line in enumerate(text.split("\n"), 1):
                found = SQL_STRING.search(line)
                if found:
                    problems.append(f"{path}:{number}: an SQL statement ({found.group(1)} ...) "
                                    f"outside storage ({STORE}), which alone holds SQL")
    kinds = kind_names(root)
    compare = re.compile(r'\b(?:strn?cmp|key_is)\s*\([^;]*?"(%s)"' % "|".join(kinds))
    for path in files:
        if path.endswith(".def"):
            continue
        with open(os.path.join(root, path), encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                found = compare.search(line)
                if found:
                    problems.append(f"{path}:{number}: compares a string with the kind name "
                                    f"\"{found.group(1)}\" (use kinds.def: fault_kind_from_name)")
    for folder, names in sorted(c_files.items()):
        if len(names) > MAX_C_FILES:
            problems.append(f"{folder}/: {len(names)} .c files, more than {MAX_C_FILES}")
    for path, limit in OVERSIZE.items():
        if not os.path.isfile(os.path.join(root, path)):
            problems.append(f"{path}: listed in OVERSIZE but gone (remove the entry)")

    objects = object_symbols(root)
    if not objects:
        problems.append("no object files under build/obj or build/pic: run `make all` first")
    libc = libc_symbols()
    if libc is None:
        problems.append("cannot read the C library's symbols (cc -print-file-name=libc.so.6, "
                        "ldconfig -p, nm -D): the calls are not checked")
        libc = set()
    calls = {}
    for build in ("build/obj", "build/pic"):
        definer = {}
        for (b, source), (defined, _) in objects.items():
            if b == build:
                for symbol in defined:
                    definer[symbol] = source
        for (b, source), (_, undefined) in objects.items():
            if b != build:
                continue
            user = part_of(source)
            for symbol in sorted(undefined):
                other = definer.get(symbol)
                if other is None or other == source or symbol in libc:
                    continue
                used = part_of(other)
                if build == "build/obj":
                    calls.setdefault((build, source), set()).add((build, other))
                if used[0] != user[0]:
                    edges.setdefault((user[0], used[0]), set()).add(f"{source} calls {symbol}")
                if not allowed(user, used):
                    problems.append(f"{source} ({user[0]}) uses {symbol} of {other} ({used[0]})")

    for (build, source), (_, undefined) in sorted(objects.items()):
        part = part_of(source)
        if build != "build/obj" or part[0] == STORE or part[1] != "runner":
            continue
        sql_calls = sorted(symbol for symbol in undefined
                           if symbol.startswith("sqlite3_") or symbol in RAW_SQL_API)
        if sql_calls:
            problems.append(f"{source} ({part[0]}) calls {', '.join(sql_calls)}: only storage "
                            f"({STORE}) holds SQL")

    for circle in circles(calls):
        problems.append("files that call each other in a circle: " + " -> ".join(circle))

    print("dependencies between parts (user -> used: how many includes and calls):")
    for (user, used), why in sorted(edges.items()):
        print(f"  {user} -> {used}: {len(why)}")
    for problem in problems:
        print("layout: " + problem)
    print(f"layout: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
