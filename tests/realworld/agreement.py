#!/usr/bin/env python3
"""agreement.py — compare failrun campaigns of one command, run by fork_agreement.sh.

  agreement.py modes NAME A.db A.json B.db B.json [C.db]
      fork mode (B) against re-run mode (A): every planned run (joined by site, chain and plan)
      must exist in both databases with the same outcome and the same finding (outcome and the
      report's `.identity`), and the two reports must list the same findings. C, a second
      re-run campaign, is the control: when A and C do not plan the same runs either, the
      program's sites vary by themselves and runs found in one mode only are noted, not
      counted; an outcome on which A and C differ is not counted either.
      Runs whose failing call is listed in fork_exceptions.tsv (with the reason) are noted, not
      counted.
  agreement.py repeat NAME A.db B.db [C.db ...]
      identical re-run campaigns: same number of runs, same runs, same outcomes.

Prints one line per disagreement (at most 20 per kind, then a count) and a summary line
"NAME: agree (N runs)" or "NAME: DISAGREE (...)"; exit status 0 when they agree.
"""
import collections
import json
import os
import sqlite3
import sys

SHOWN = 20


EXCEPTIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fork_exceptions.tsv")


def excepted_sites(name, db_path):
    """Sites of the campaign whose failing call fork_exceptions.tsv lists for program NAME:
    {site: reason}. A rule names the call by the module and offset of one of its frames."""
    rules = []
    if os.path.exists(EXCEPTIONS):
        with open(EXCEPTIONS, encoding="utf-8") as handle:
            for line in handle:
                fields = line.rstrip("\n").split("\t")
                if line.startswith("#") or len(fields) < 5 or fields[0] != name:
                    continue
                rules.append((int(fields[1]), fields[2], int(fields[3], 0), fields[4]))
    if not rules:
        return {}
    db = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    paths = dict(db.execute("SELECT id, path FROM modules"))
    sites = {}
    for site, frames in db.execute("SELECT id, frames FROM sites"):
        frames = json.loads(frames)
        for level, module, offset, reason in rules:
            if level < len(frames) and frames[level][1] == offset and \
                    os.path.basename(paths.get(frames[level][0], "")) == module:
                sites[site] = reason
    db.close()
    return sites


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


def compare_modes(name, rerun_db, rerun_json, fork_db, fork_json, control_db=None):
    rerun, fork = runs_of(rerun_db), runs_of(fork_db)
    rerun_findings, fork_findings = findings_of(rerun_json), findings_of(fork_json)
    control = runs_of(control_db) if control_db else None
    varies = control is not None and set(control) != set(rerun)
    excepted = excepted_sites(name, rerun_db)
    excepted.update(excepted_sites(name, fork_db))
    problems, notes = [], []
    only_rerun = sorted(short(k) for k in rerun if k not in fork)
    only_fork = sorted(short(k) for k in fork if k not in rerun)
    target = notes if varies else problems
    show(only_rerun, "run only in re-run mode", target)
    show(only_fork, "run only in fork mode", target)
    if varies:
        print("  (not counted: two re-run campaigns of %s do not plan the same runs either)" % name)
    outcome_lines, finding_lines, excused_lines = [], [], []
    transitions = collections.Counter()
    excused_findings = set()
    for key in sorted(k for k in rerun if k in fork):
        (outcome_a, finding_a), (outcome_b, finding_b) = rerun[key], fork[key]
        what_a = rerun_findings.get(finding_a, "") if finding_a else ""
        what_b = fork_findings.get(finding_b, "") if finding_b else ""
        if outcome_a == outcome_b and what_a == what_b:
            continue
        reason = excepted.get(key[0])
        if reason is None and control is not None and key in control and \
                control[key][0] != outcome_a:
            reason = "re-run campaigns differ on it too"
        if reason is not None:
            excused_lines.append("%s re-run %s [%s], fork %s [%s]: %s" %
                                 (short(key), outcome_a, what_a, outcome_b, what_b, reason))
            excused_findings.update(f for f in (what_a, what_b) if f)
        elif outcome_a != outcome_b:
            outcome_lines.append("%s re-run %s, fork %s" % (short(key), outcome_a, outcome_b))
            transitions["%s -> %s" % (outcome_a, outcome_b)] += 1
        else:
            finding_lines.append("%s re-run [%s], fork [%s]" % (short(key), what_a, what_b))
    show(outcome_lines, "outcome", problems)
    show(finding_lines, "finding", problems)
    show(excused_lines, "not counted", notes)
    a, b = set(rerun_findings.values()), set(fork_findings.values())
    differ = sorted("re-run only: " + f for f in a - b - excused_findings) + \
        sorted("fork only: " + f for f in b - a - excused_findings)
    show(differ, "report finding", problems)
    if transitions:
        print("  transitions (re-run -> fork): " +
              ", ".join("%s %d" % item for item in sorted(transitions.items())))
    summarise(name, problems, len(rerun), len(fork), notes=notes)
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


def summarise(name, problems, *counts, notes=()):
    if problems:
        print("%s: DISAGREE (%s)" % (name, "; ".join(problems)))
    else:
        print("%s: agree (%s runs%s)" % (name, "/".join(map(str, counts)),
                                         "; not counted: " + "; ".join(notes) if notes else ""))


def main():
    mode, name = sys.argv[1], sys.argv[2]
    if mode == "modes":
        ok = compare_modes(name, *sys.argv[3:8])
    else:
        ok = compare_repeats(name, sys.argv[3:])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
