#!/usr/bin/python3
"""check_sarif.py FILE — check a SARIF log failrun wrote against the SARIF 2.1.0 object model.

Debian 12 ships no SARIF JSON schema, but it ships the object model as Python classes
(python3-sarif-python-om): every property name of the standard is there, with the class it
belongs to. This check requires that every property failrun writes is one the standard defines
for that object, that the properties the standard requires are present, and that the values the
standard constrains (version, level, line numbers, nesting levels, rule ids) are valid.
Prints one line per problem; exit status 1 when there is any.
"""
import json
import sys

import attr
import sarif_om

# Which sarif_om class describes the object at each property (only the ones failrun writes).
CHILDREN = {
    "SarifLog": {"runs": "Run"},
    "Run": {"tool": "Tool", "results": "Result", "originalUriBaseIds": "ArtifactLocation*"},
    "Tool": {"driver": "ToolComponent"},
    "ToolComponent": {"rules": "ReportingDescriptor"},
    "ReportingDescriptor": {"shortDescription": "MultiformatMessageString"},
    "Result": {"message": "Message", "locations": "Location", "codeFlows": "CodeFlow"},
    "Location": {"physicalLocation": "PhysicalLocation", "logicalLocations": "LogicalLocation"},
    "PhysicalLocation": {"artifactLocation": "ArtifactLocation", "region": "Region"},
    "CodeFlow": {"message": "Message", "threadFlows": "ThreadFlow"},
    "ThreadFlow": {"locations": "ThreadFlowLocation"},
    "ThreadFlowLocation": {"location": "Location"},
}
REQUIRED = {
    "SarifLog": ["version", "runs"], "Run": ["tool"], "Tool": ["driver"],
    "ToolComponent": ["name"], "ReportingDescriptor": ["id"], "Result": ["message"],
    "Message": ["text"], "CodeFlow": ["threadFlows"], "ThreadFlow": ["locations"],
    "MultiformatMessageString": ["text"],
}
problems = []


def properties(class_name):
    fields = attr.fields(getattr(sarif_om, class_name))
    return {f.metadata["schema_property_name"] for f in fields}


def check(value, class_name, path):
    if class_name.endswith("*"):  # a map of names to objects
        for key, item in value.items():
            check(item, class_name[:-1], f"{path}.{key}")
        return
    if not isinstance(value, dict):
        problems.append(f"{path}: expected an object for {class_name}")
        return
    allowed = properties(class_name)
    for key in value:
        if key not in allowed:
            problems.append(f"{path}: '{key}' is not a property of {class_name}")
    for key in REQUIRED.get(class_name, []):
        if key not in value:
            problems.append(f"{path}: {class_name} requires '{key}'")
    for key, child in CHILDREN.get(class_name, {}).items():
        if key in value:
            items = value[key] if isinstance(value[key], list) else [value[key]]
            if isinstance(value[key], list) and not value[key] and key != "results":
                problems.append(f"{path}.{key}: must not be empty")
            for index, item in enumerate(items):
                check(item, child, f"{path}.{key}[{index}]")


def main():
    log = json.load(open(sys.argv[1]))
    check(log, "SarifLog", "$")
    if log.get("version") != "2.1.0":
        problems.append("$.version: must be 2.1.0")
    for run in log.get("runs", []):
        rules = {rule["id"] for rule in run["tool"]["driver"].get("rules", [])}
        for result in run.get("results", []):
            if result.get("ruleId") not in rules:
                problems.append(f"result ruleId {result.get('ruleId')} is not a declared rule")
            if result.get("level") not in ("none", "note", "warning", "error"):
                problems.append(f"result level {result.get('level')} is not a SARIF level")
            for flow in result.get("codeFlows", []):
                for thread in flow["threadFlows"]:
                    levels = [loc.get("nestingLevel", 0) for loc in thread["locations"]]
                    if any(level < 0 for level in levels):
                        problems.append("nestingLevel must be >= 0")
            for location in result.get("locations", []):
                line = location.get("physicalLocation", {}).get("region", {}).get("startLine", 1)
                if not isinstance(line, int) or line < 1:
                    problems.append(f"startLine {line} must be an integer >= 1")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


sys.exit(main())
