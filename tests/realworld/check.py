#!/usr/bin/env python3
"""check.py — judge a realworld corpus run against the hand verdicts (make realworld).

Usage: check.py [--locales "C C.UTF-8"] PROGRAMS.tsv EXPECTED.tsv OUTDIR
Each program ran once per locale (default: C only), its campaign labelled NAME under C and
NAME@LOCALE under another. OUTDIR holds LABEL.json (failrun's report) for each and cpu.tsv
(label, failrun's exit status, CPU seconds including children, wall seconds), written by run.sh.
An expectation line names the program (it holds in every locale) or NAME@LOCALE (only there:
a path only that locale takes).

A finding's identity is the report's `.identity`. Each program passes when every finding has an
expectation line, every expected `real` finding is present, and every finding expected
`suppressed` (a known glibc bug the bundled rules hide) is among the suppressed ones; the
corpus also needs precision (real / all findings) of at least 95 % (one more check). The last
line is "realworld: N passed, N failed".
"""
import json
import os
import sys

PRECISION_FLOOR = 0.95
OUTCOMES = ["crash", "silent", "hang", "leak", "sanitizer"]


def identity(finding):
    """The engine's own "module!function" (with "<-module!function" for a fault inside a
    system library): what the verdicts are keyed by."""
    return finding.get("identity") or "?"


def read_tsv(path):
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            rows.append(line.split("\t"))
    return rows


def suppressed_count(report):
    value = report.get("suppressed", 0)
    if isinstance(value, (list, dict)):
        return len(value)
    return value or 0


def main():
    arguments = sys.argv[1:]
    locales = ["C"]
    if arguments[:1] == ["--locales"]:
        locales = arguments[1].split()
        arguments = arguments[2:]
    programs_path, expected_path, outdir = arguments[:3]
    names = [row[0] for row in read_tsv(programs_path)]
    # (label, program name, locale) per campaign: NAME under C, NAME@LOCALE under another.
    programs = [(name if locale == "C" else "%s@%s" % (name, locale), name, locale)
                for locale in locales for name in names]
    expected = {}
    for row in read_tsv(expected_path):
        if len(row) < 5 or row[3] not in ("real", "false", "suppressed"):
            print("expected.tsv: bad line: %s" % "\t".join(row))
            continue
        expected[(row[0], row[1], row[2])] = (row[3], row[4])

    def verdict_of(name, locale, outcome, ident):
        """The expectation for this locale's campaign, else the program's."""
        return expected.get(("%s@%s" % (name, locale), outcome, ident),
                            expected.get((name, outcome, ident)))

    def applies(program, name, locale):
        return program in (name, "%s@%s" % (name, locale))
    cpu = {}
    cpu_path = os.path.join(outdir, "cpu.tsv")
    if os.path.exists(cpu_path):
        for row in read_tsv(cpu_path):
            cpu[row[0]] = (int(row[1]), float(row[2]), float(row[3]))

    table = []
    passed = failed = 0
    total = real = 0
    total_cpu = total_wall = 0.0
    for label, name, locale in programs:
        problems = []
        report = None
        status, seconds, wall = cpu.get(label, (None, 0.0, 0.0))
        total_cpu += seconds
        total_wall += wall
        try:
            with open(os.path.join(outdir, label + ".json"), encoding="utf-8") as handle:
                report = json.load(handle)
        except (OSError, ValueError) as error:
            problems.append("%s: no report (%s)" % (label, error))
        if status not in (None, 0, 1):
            problems.append("%s: failrun exited %s (see build/realworld/%s.err)" % (label, status, label))
        counts = {}
        present = set()
        reals = 0
        if report is not None:
            for finding in report.get("findings", []):
                key = (label, finding.get("outcome"), identity(finding))
                counts[key[1]] = counts.get(key[1], 0) + 1
                total += 1
                present.add(key[1:])
                verdict = verdict_of(name, locale, key[1], key[2])
                if verdict is None:
                    problems.append("unjudged finding: %s\t%s\t%s\t(replay: %s)"
                                    % (key + (finding.get("replay", ""),)))
                elif verdict[0] == "real":
                    real += 1
                    reals += 1
                elif verdict[0] == "suppressed":
                    problems.append("not suppressed: %s\t%s\t%s" % key)
        hidden = set()
        for finding in (report or {}).get("suppressed_findings", []):
            hidden.add((finding.get("outcome"), identity(finding)))
        for key, (verdict, reason) in sorted(expected.items()):
            if not applies(key[0], name, locale) or key[1:] in present:
                continue
            # A locale's own line overrides the program's for that campaign.
            if key[0] == name and ("%s@%s" % (name, locale),) + key[1:] in expected:
                continue
            shown = (label,) + key[1:]
            if verdict == "suppressed":
                if key[1:] not in hidden:
                    problems.append("lost suppressed finding: %s\t%s\t%s" % shown)
                continue
            if verdict == "real":
                problems.append("lost real finding: %s\t%s\t%s\t(%s)" % (shown + (reason,)))
            else:
                print("gone (was judged false): %s\t%s\t%s" % shown)
        for problem in problems:
            print(problem)
        if problems:
            failed += 1
        else:
            passed += 1
        campaign = (report or {}).get("campaign", {})
        found = ", ".join("%s %d" % (outcome, counts[outcome])
                          for outcome in OUTCOMES + sorted(set(counts) - set(OUTCOMES))
                          if outcome in counts) or "-"
        table.append([label, str(campaign.get("sites", "?")), str(campaign.get("runs", "?")),
                      "%.1f" % seconds, found, str(suppressed_count(report or {})),
                      "%d/%d" % (reals, sum(counts.values())), "FAIL" if problems else "ok"])

    header = ["program", "sites", "runs", "CPU s", "findings by outcome", "suppressed",
              "real/all", "check"]
    table.append(["total", str(sum(int(r[1]) for r in table if r[1].isdigit())),
                  str(sum(int(r[2]) for r in table if r[2].isdigit())), "%.1f" % total_cpu,
                  "%d findings" % total, "", "", ""])
    widths = [max(len(row[i]) for row in table + [header]) for i in range(len(header))]
    print()
    for row in [header] + table:
        print(" | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    precision = real / total if total else 1.0
    print()
    print("precision: %d real of %d findings = %.1f %% (floor %d %%); corpus wall time %.0f s"
          % (real, total, 100 * precision, 100 * PRECISION_FLOOR, total_wall))
    if precision < PRECISION_FLOOR:
        print("precision below %d %%" % (100 * PRECISION_FLOOR))
        failed += 1
    else:
        passed += 1
    print("realworld: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
