#!/usr/bin/env python3
"""agreement.py — compare failrun campaigns of one command, run by fork_agreement.sh.

  agreement.py modes NAME A.db A.json B.db B.json
      fork mode against re-run mode: every planned run (joined by site, chain and plan) must
      exist in both databases with the same outcome and the same finding (outcome and the
      report's `.identity`), and the two reports must list the same findings.
  agreement.py repeat NAME A.db B.db [C.db ...]
      identical re-run campaigns: same number of runs, same runs, same outcomes.

Prints one line per disagreement (at most 20 per kind, then a count) and a summary line
"NAME: agree (N runs)" or "NAME: DISAGREE (...)"; exit status 0 when they agree.
"""
import collections
import json
import sqlite3
import sys

SHOWN = 20


def runs_of(db_path):
    """(site, chain, plan) -> (outcome, finding id) of every fault run."""
    db = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    rows = db.execute("SELECT site, chain, plan, outcome, state, finding FROM runs"
                      " WHERE kind = 'fault'").fetchall()
    db.close()
    runs = {}
    for site, chain, plan, outcome, state, finding in rows:
        runs[(site, chain, plan)] = (outcome if state == "done" else "planned", finding)
    return runs


def findings_of(report_path):
    """finding id -> "outcome identity", from failrun's JSON report."""
    with open(report_path, encoding="utf-8") as handle:
        report = json.load(handle)
    return {f["id"]: "%s %s" % (f["outcome"], f.get("identity") or "?")
            for f in report.get("findings", [])}


def short(key):
    site, chain, _plan = key
    return chain if chain and "," in chain else site


def show(lines, kind, problems):
    for line in lines[:SHOWN]:
        print("  %s: %s" % (kind, line))
    if len(lines) > SHOWN:
        print("  %s: ... %d more" % (kind, len(lines) - SHOWN))
    if lines:
        problems.append("%d %s" % (len(lines), kind))


def compare_modes(name, rerun_db, rerun_json, fork_db, fork_json):
    rerun, fork = runs_of(rerun_db), runs_of(fork_db)
    rerun_findings, fork_findings = findings_of(rerun_json), findings_of(fork_json)
    problems = []
    only_rerun = sorted(short(k) for k in rerun if k not in fork)
    only_fork = sorted(short(k) for k in fork if k not in rerun)
    show(only_rerun, "run only in re-run mode", problems)
    show(only_fork, "run only in fork mode", problems)
    outcome_lines, finding_lines = [], []
    transitions = collections.Counter()
    for key in sorted(k for k in rerun if k in fork):
        (outcome_a, finding_a), (outcome_b, finding_b) = rerun[key], fork[key]
        if outcome_a != outcome_b:
            outcome_lines.append("%s re-run %s, fork %s" % (short(key), outcome_a, outcome_b))
            transitions["%s -> %s" % (outcome_a, outcome_b)] += 1
            continue
        what_a = rerun_findings.get(finding_a, "") if finding_a else ""
        what_b = fork_findings.get(finding_b, "") if finding_b else ""
        if what_a != what_b:
            finding_lines.append("%s re-run [%s], fork [%s]" % (short(key), what_a, what_b))
    show(outcome_lines, "outcome", problems)
    show(finding_lines, "finding", problems)
    a, b = set(rerun_findings.values()), set(fork_findings.values())
    show(sorted("re-run only: " + f for f in a - b) + sorted("fork only: " + f for f in b - a),
         "report finding", problems)
    if transitions:
        print("  transitions (re-run -> fork): " +
              ", ".join("%s %d" % item for item in sorted(transitions.items())))
    summarise(name, problems, len(rerun), len(fork))
    return not problems


def compare_repeats(name, paths):
    campaigns = [runs_of(p) for p in paths]
    problems = []
    counts = [len(c) for c in campaigns]
    if len(set(counts)) > 1:
        problems.append("run counts " + " vs ".join(map(str, counts)))
        print("  run counts differ: " + " vs ".join(map(str, counts)))
    first = campaigns[0]
    for index, other in enumerate(campaigns[1:], 2):
        lines = sorted(short(k) for k in first if k not in other)
        show(lines, "run only in campaign 1 (not %d)" % index, problems)
        lines = sorted(short(k) for k in other if k not in first)
        show(lines, "run only in campaign %d" % index, problems)
        lines = ["%s: %s vs %s" % (short(k), first[k][0], other[k][0])
                 for k in sorted(k for k in first if k in other) if first[k][0] != other[k][0]]
        show(lines, "outcome (campaign 1 vs %d)" % index, problems)
    summarise(name, problems, *counts)
    return not problems


def summarise(name, problems, *counts):
    if problems:
        print("%s: DISAGREE (%s)" % (name, "; ".join(problems)))
    else:
        print("%s: agree (%s runs)" % (name, "/".join(map(str, counts))))


def main():
    mode, name = sys.argv[1], sys.argv[2]
    if mode == "modes":
        ok = compare_modes(name, *sys.argv[3:7])
    else:
        ok = compare_repeats(name, sys.argv[3:])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
