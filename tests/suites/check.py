#!/usr/bin/env python3
"""check.py — judge a `make suites` run against the hand verdicts and print its table.

Usage: check.py LIBRARIES.tsv EXPECTED.tsv OUTDIR [NAME...]
OUTDIR holds, per library, NAME.json (failrun's report), NAME.cov.json (failrun cov --json) and
a line of stats.tsv written by run.sh: name, source version, plain suite exit status, its wall
and CPU seconds (median of three), failrun's exit status, the campaign's wall and CPU seconds,
failrun cov's exit status and wall seconds, KiB on disk of the campaign (database and files
folder), and the --max-runs bound ("" when unbounded).

A finding's identity is the report's `.identity` (module!function); an expectation's identity
may be a glob (fnmatch), e.g. "test1*!to_json_string" for a function of test code built into
test1 and test1Formatted, whichever program's run reported it first, and may end in
" via FUNCTION": only findings whose injection stack passes through FUNCTION (a glob). A library passes when its
plain suite passed, failrun and failrun cov ran (exit 0/1 and 0), the campaign found sites and
gathered coverage, every finding has a verdict line in EXPECTED.tsv, and every finding judged
`real` is present — unless the campaign was bounded by --max-runs and stopped at the bound, when
a missing one is named but not counted. A real bug judged `missed` is one the campaign reaches
but is known not to report (the reason says which run and why): named on every check, not
counted; reported after all, it counts as real and the check asks for the verdict to be changed.
Only the NAMEs given are checked (default: all). The last line is "suites: N passed, N failed".
"""
import fnmatch
import json
import os
import sys

VERDICTS = ("real", "false", "missed")


def read_tsv(path):
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            rows.append(line.split("\t"))
    return rows


def load_json(path, problems, what):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as error:
        problems.append("%s: %s unreadable (%s)" % (os.path.basename(path), what, error))
        return None


def read_stats(outdir):
    stats = {}
    path = os.path.join(outdir, "stats.tsv")
    if not os.path.exists(path):
        return stats
    for row in read_tsv(path):
        row += [""] * (12 - len(row))
        stats[row[0]] = {
            "version": row[1], "plain_status": int(row[2]), "plain_wall": float(row[3]),
            "plain_cpu": float(row[4]), "status": int(row[5]), "wall": float(row[6]),
            "cpu": float(row[7]), "cov_status": int(row[8]), "cov_wall": float(row[9]),
            "disk_kib": int(row[10]), "max_runs": int(row[11]) if row[11] else None,
        }
    return stats


def expectation_of(expected, key, stack):
    """The expectation line matching a finding's (library, outcome, identity): the first, in
    file order, whose identity glob matches and, for "IDENTITY via FUNCTION", whose FUNCTION (a
    glob) is a function of the finding's injection stack `stack`. One function reached from
    several callers can be a library bug from one (the library ignores the failure) and test
    code's from another (the test ignores what the library returned): via-lines come first."""
    for candidate in expected:
        identity, _, via = candidate[2].partition(" via ")
        if candidate[:2] == key[:2] and fnmatch.fnmatchcase(key[2], identity) and \
                (not via or any(fnmatch.fnmatchcase(function, via) for function in stack)):
            return candidate
    return None


def judge_findings(name, report, expected, bounded, problems, notes, real_found):
    """Each finding against its verdict; returns (real found, all findings, known misses).
    Counts the real ones found in real_found, by verdict line."""
    present = set()
    reals = misses = 0
    findings = report.get("findings", []) if report else []
    for finding in findings:
        key = (name, finding.get("outcome"), finding.get("identity") or "?")
        stack = [frame.get("function") or "" for frame in finding.get("injection_stack", [])]
        line = expectation_of(expected, key, stack)
        present.add(line)
        verdict = expected.get(line)
        if verdict is None:
            location = finding.get("location") or {}
            problems.append("unjudged finding: %s\t%s\t%s\t(at %s:%s; replay: %s)"
                            % (key + (location.get("file"), location.get("line"),
                                      finding.get("replay", ""))))
        elif verdict[0] in ("real", "missed"):
            reals += 1
            if verdict[0] == "missed":
                notes.append("reported now, judged missed: %s\t%s\t%s (make it real)" % key)
            # one line per verdict: a silent bug is a finding per wrong output
            tally = real_found.setdefault(line, [0, 0, verdict[1]])
            tally[0] += 1
            tally[1] += finding.get("runs", 0)
    for key, (verdict, reason) in sorted(expected.items()):
        if key[0] != name or key in present:
            continue
        if verdict == "missed":
            misses += 1
            notes.append("known miss (a real bug reached, not reported): %s\t%s\t%s\t(%s)"
                          % (key + (reason,)))
        elif verdict == "real":
            message = "real finding not found: %s\t%s\t%s\t(%s)" % (key + (reason,))
            if bounded:
                notes.append(message + " [campaign bounded by --max-runs]")
            else:
                problems.append(message)
        else:
            notes.append("gone (was judged false): %s\t%s\t%s" % key)
    return reals, len(findings), misses


def shard_summary(report, cov):
    """What a sharded and merged campaign must share with the unsharded one: its findings
    (outcome, identity, where, runs), outcomes and coverage (not gcov_files: how many data
    files gcov had to read, each shard its own first copies)."""
    findings = sorted([f.get("outcome"), f.get("identity"), (f.get("location") or {}).get("file"),
                       (f.get("location") or {}).get("line"), f.get("runs")]
                      for f in report.get("findings", []))
    runs = dict(cov.get("runs", {}))
    runs.pop("gcov_files", None)
    return {"findings": findings, "outcomes": report.get("outcomes"),
            "sites": report.get("campaign", {}).get("sites"),
            "lines": cov.get("lines"), "branches": cov.get("branches"), "coverage runs": runs,
            "files": [(f.get("path"), [(l.get("line"), l.get("class")) for l in f.get("lines", [])])
                      for f in cov.get("files", [])]}


def check_shards(name, outdir, report, cov, problems, notes):
    """The 4 shards under GNU parallel, merged (run.sh, SUITES_SHARDED), against the unsharded
    campaign: a difference is a problem."""
    merged_path = os.path.join(outdir, name + ".merged.json")
    if not os.path.exists(merged_path) or report is None or cov is None:
        return
    merged = load_json(merged_path, problems, "merged report")
    merged_cov = load_json(os.path.join(outdir, name + ".merged.cov.json"), problems,
                           "merged coverage")
    if merged is None or merged_cov is None:
        return
    whole, sharded = shard_summary(report, cov), shard_summary(merged, merged_cov)
    differ = [key for key in whole if whole[key] != sharded[key]]
    for key in differ:
        problems.append("%s: 4 shards merged differ from the unsharded campaign in %s: %s / %s"
                        % (name, key, json.dumps(whole[key])[:300],
                           json.dumps(sharded[key])[:300]))
    if not differ:
        notes.append("%s: 4 shards under GNU parallel, merged: the same findings, outcomes and"
                     " coverage as the unsharded campaign" % name)


def check_library(name, outdir, stats, report, cov, expected, real_found):
    """The row of the table, the problems (failures) and notes."""
    problems, notes = [], []
    if stats is None:
        return None, ["%s: not run (no line in stats.tsv)" % name], notes
    campaign = (report or {}).get("campaign", {})
    runs = campaign.get("runs", 0)
    bounded = stats["max_runs"] is not None and runs - 1 >= stats["max_runs"]
    if stats["plain_status"] != 0:
        problems.append("%s: the plain suite failed (exit %d)" % (name, stats["plain_status"]))
    if stats["status"] not in (0, 1):
        problems.append("%s: failrun run exited %d (see build/suites/%s.err)"
                        % (name, stats["status"], name))
    if stats["cov_status"] != 0:
        problems.append("%s: failrun cov exited %d (see build/suites/%s.err)"
                        % (name, stats["cov_status"], name))
    if report is not None and not campaign.get("sites"):
        problems.append("%s: the campaign found no sites" % name)
    if cov is not None and not cov.get("runs", {}).get("fault"):
        problems.append("%s: no fault run left coverage data" % name)
    if campaign.get("runs_pending"):
        problems.append("%s: %d runs still pending" % (name, campaign["runs_pending"]))
    reals, total, misses = judge_findings(name, report, expected, bounded, problems, notes, real_found)
    check_shards(name, outdir, report, cov, problems, notes)
    lines = (cov or {}).get("lines", {})
    plain = stats["plain_wall"] or float("nan")
    row = [name, stats["version"].split(" ", 1)[-1], str(campaign.get("sites", "?")),
           "%d%s" % (runs, " (bound)" if bounded else ""),
           "%.1f" % stats["wall"], "%.1f" % stats["cpu"],
           "%.2f / %.2f" % (stats["plain_wall"], stats["plain_cpu"]),
           "%.0fx / %.0fx" % (stats["wall"] / plain, stats["cpu"] / (stats["plain_cpu"] or float("nan"))),
           "%d/%d%s" % (reals, total, " (+%d missed)" % misses if misses else ""),
           "%s/%s/%s" % (lines.get("tested", "?"), lines.get("deletable", "?"),
                         lines.get("kept", "?")),
           "%.1f" % (1000 * stats["cov_wall"] / runs if runs else 0),
           "%.0f" % (stats["disk_kib"] / 1024), "FAIL" if problems else "ok"]
    return row, problems, notes


def main():
    libraries_path, expected_path, outdir = sys.argv[1:4]
    names = sys.argv[4:] or [row[0] for row in read_tsv(libraries_path)]
    expected = {}
    bad = 0
    for row in read_tsv(expected_path):
        if len(row) < 5 or row[3] not in VERDICTS or not row[4].strip():
            print("expected.tsv: bad line (library, outcome, identity, real|false|missed, reason): %s"
                  % "\t".join(row))
            bad += 1
            continue
        expected[(row[0], row[1], row[2])] = (row[3], row[4])
    stats = read_stats(outdir)
    table, real_found, passed, failed = [], {}, 0, 0
    for name in names:
        problems = []
        report = cov = None
        if name in stats:
            report = load_json(os.path.join(outdir, name + ".json"), problems, "report")
            cov = load_json(os.path.join(outdir, name + ".cov.json"), problems, "coverage")
        row, more, notes = check_library(name, outdir, stats.get(name), report, cov, expected, real_found)
        problems += more
        for line in problems + notes:
            print(line)
        if row:
            table.append(row)
        if problems:
            failed += 1
        else:
            passed += 1
    header = ["library", "version", "sites", "runs", "wall s", "CPU s", "plain suite wall / CPU s",
              "ratio wall / CPU", "findings real/all", "error-leg lines tested/deletable/kept",
              "cov ms/run", "disk MB", "check"]
    print()
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in table:
        print("| " + " | ".join(row) + " |")
    print()
    print("ratio: the campaign's wall and CPU time over one plain run of the suite (median of"
          " three); findings: judged real by hand (expected.tsv) / all (missed: real bugs reached"
          " but not reported, expected.tsv says why); error-leg lines from"
          " failrun cov; cov ms/run: failrun cov's wall time over the runs it read; disk: the"
          " campaign's database and files folder after failrun cov")
    if real_found:
        print()
        print("real bugs found:")
        for line, (findings, runs, reason) in real_found.items():
            print("  %s\t%s\t%s\t(%d finding(s), %d runs): %s"
                  % (line + (findings, runs, reason)))
    if bad:
        failed += 1
    print("suites: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
