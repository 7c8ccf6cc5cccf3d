"""SARIF 2.1.0 reporter: the log GitHub code scanning and other SARIF viewers upload (``sarif``).

One run whose ``tool.driver.rules`` lists every rule and every DYN9xx diagnostic, whether or not
it fired, each with its page (``helpUri``, ``help.markdown``) and GB ids (``properties.gb_ids``);
each result points into that list by ``ruleId`` and ``ruleIndex``. Locations are URIs relative to
the working directory (files outside it get an absolute ``file://`` URI), with 1-based lines and
columns counted in code points; a finding in a notebook has no region (SARIF cannot point into a
cell): its message starts with ``cell 3:4:5: `` and ``properties`` holds ``cell``, ``cellLine`` and
``cellColumn``. ``partialFingerprints`` carries ``fingerprint.py``'s line-free
fingerprint, and ``invocations`` the exit status the command ends with.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO
from urllib.parse import quote

from dynalint.lint import rule_pages
from dynalint.model.diagnostics import ALL_DIAGNOSTICS
from dynalint.model.finding import Confidence, Finding
from dynalint.model.version import __version__
from dynalint.output.fingerprint import fingerprints
from dynalint.output.reporters import levels, text
from dynalint.output.reporters.run import Run

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/dynalint/dynalint"
FINGERPRINT_KEY = "dynalint/v1"


def rule_descriptors() -> list[dict[str, object]]:
    """``reportingDescriptor`` objects: the rules in catalogue order, then the DYN9xx diagnostics."""
    from dynalint.checks import ALL_RULES  # the rule classes (and LibCST) only when a SARIF log is written

    pages = rule_pages.load_pages()
    descriptors: list[dict[str, object]] = []
    for rule in ALL_RULES:
        page = pages.get(rule.code)
        summary = page.summary if page is not None else rule.help
        what = " ".join(page.sections.get("What it does", "").split()) if page is not None else ""
        descriptors.append({
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": summary},
            "fullDescription": {"text": what or summary},
            "help": {"text": rule.help, **({"markdown": page.text} if page is not None else {})},
            "helpUri": rule.url(),
            "defaultConfiguration": {
                "enabled": rule.default,
                "level": "warning" if rule.confidence is Confidence.LIKELY else "error",
            },
            "properties": {
                "gb_ids": list(rule.gb_ids),
                "torch": rule.torch,
                "confidence": rule.confidence.value,
                "tags": ["torch.compile", rule.hazard],
                "precision": "medium" if rule.confidence is Confidence.LIKELY else "high",
            },
        })
    for diagnostic in ALL_DIAGNOSTICS:
        descriptors.append({
            "id": diagnostic.code,
            "name": diagnostic.name,
            "shortDescription": {"text": diagnostic.summary},
            "fullDescription": {"text": diagnostic.summary},
            "help": {"text": diagnostic.help},
            "defaultConfiguration": {"enabled": True, "level": "error"},
            "properties": {"gb_ids": [], "tags": ["dynalint"]},
        })
    return descriptors


def artifact_uri(filename: str, working_directory: Path) -> str:
    """``filename`` as a URI reference: relative to ``working_directory`` when below it, else ``file://``."""
    absolute = Path(os.path.normpath(working_directory / filename))
    try:
        return quote(absolute.relative_to(working_directory).as_posix())
    except ValueError:
        return absolute.as_uri()


def log(findings: Sequence[Finding], run: Run) -> dict[str, object]:
    """The whole SARIF log as a JSON-ready dict."""
    rules = rule_descriptors()
    index = {str(rule["id"]): position for position, rule in enumerate(rules)}
    results = [
        _result(finding, index, fingerprint, run.working_directory)
        for finding, fingerprint in zip(findings, fingerprints(findings))
    ]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "dynalint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }},
            "invocations": [{
                # Findings are a successful run (exit 1); only exit 2 and up mean dynalint itself failed.
                "executionSuccessful": run.exit_code in (0, 1),
                "exitCode": run.exit_code,
                "workingDirectory": {"uri": run.working_directory.as_uri() + "/"},
            }],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def _result(finding: Finding, index: dict[str, int], fingerprint: str, working_directory: Path) -> dict[str, object]:
    result: dict[str, object] = {"ruleId": finding.code}
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    location: dict[str, object] = {"artifactLocation": {"uri": artifact_uri(finding.filename, working_directory)}}
    properties: dict[str, object] = {"confidence": finding.confidence.value, "gb_ids": list(finding.gb_ids)}
    if finding.torch is not None:
        properties["torch"] = finding.torch.as_dict()  # the target torch the GB ids are for
    if finding.cell is None:
        location["region"] = {
            "startLine": finding.start.line,
            "startColumn": finding.start.column,
            "endLine": finding.end.line,
            "endColumn": finding.end.column,
        }
    else:
        properties.update(cell=finding.cell, cellLine=finding.start.line, cellColumn=finding.start.column)
    result.update({
        "level": levels.level(finding),
        "message": {"text": "\n".join([text.in_notebook(finding) + text.describe(finding), *text.details(finding)])},
        "locations": [{"physicalLocation": location}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": properties,
    })
    if finding.region is not None and finding.region.chain:
        # The why-chain, from the compile site to the function holding the line, as viewers' "related" links.
        result["relatedLocations"] = [
            {
                "id": number,
                "message": {"text": f"{link.how}: {link.function}"
                                    + ("" if link.cell is None else f" (cell {link.cell}:{link.line})")},
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(link.filename, working_directory)},
                    **({"region": {"startLine": link.line}} if link.line > 0 and link.cell is None else {}),
                },
            }
            for number, link in enumerate(finding.region.chain)
        ]
    if finding.verify is not None:
        properties["verify"] = finding.verify.as_dict()  # the object ``result["properties"]`` holds
    if finding.fix is not None and finding.cell is None:
        # SARIF 2.1.0 §3.55: one fix, its edits as replacements of regions of the finding's own file.
        properties["fixApplicability"] = finding.fix.applicability.value
        result["fixes"] = [{
            "description": {"text": finding.fix.message},
            "artifactChanges": [{
                "artifactLocation": {"uri": artifact_uri(finding.filename, working_directory)},
                "replacements": [
                    {"deletedRegion": {"startLine": edit.start.line, "startColumn": edit.start.column,
                                       "endLine": edit.end.line, "endColumn": edit.end.column},
                     "insertedContent": {"text": edit.content}}
                    for edit in finding.fix.edits
                ],
            }],
        }]
    return result


def write(findings: Sequence[Finding], out: TextIO, run: Run) -> None:
    json.dump(log(findings, run), out, indent=2)
    out.write("\n")
