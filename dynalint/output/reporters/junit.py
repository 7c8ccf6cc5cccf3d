"""JUnit XML reporter: findings as failed test cases, for CI servers that read test reports (``junit``).

One ``testsuite`` per file with findings, one ``testcase`` per finding holding a ``failure`` (the
finding) or, for a DYN9xx diagnostic, an ``error`` (the file was not checked). A clean run is one
suite named ``dynalint`` with one passing case, so that the report never reads as "no tests ran".
A finding in a notebook is named by its cell position (``at cell 3:4:5``) and has no ``line`` attribute.
Built with ``xml.etree``, after replacing the characters XML 1.0 cannot hold, so that it always parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from itertools import groupby
from typing import TextIO

from dynalint.model.finding import Finding
from dynalint.output.reporters import levels, text
from dynalint.output.reporters.run import Run

# Control characters, lone surrogates (undecodable file names) and the two non-characters XML 1.0 excludes.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(value: str) -> str:
    return _NOT_XML.sub("\ufffd", value)


def document(findings: Sequence[Finding]) -> ET.Element:
    """The ``testsuites`` element."""
    root = ET.Element("testsuites", name="dynalint")
    if not findings:
        suite = ET.SubElement(root, "testsuite", name="dynalint", tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name="no findings", classname="dynalint")
    for filename, grouped in groupby(findings, key=lambda finding: finding.filename):
        in_file = list(grouped)
        errors = sum(levels.is_unchecked_file(finding) for finding in in_file)
        suite = ET.SubElement(
            root, "testsuite", name=xml_text(filename), tests=str(len(in_file)),
            failures=str(len(in_file) - errors), errors=str(errors),
        )
        for finding in in_file:
            _testcase(suite, finding)
    root.set("tests", str(sum(int(suite.get("tests", "0")) for suite in root)))
    root.set("failures", str(sum(int(suite.get("failures", "0")) for suite in root)))
    root.set("errors", str(sum(int(suite.get("errors", "0")) for suite in root)))
    return root


def _testcase(suite: ET.Element, finding: Finding) -> None:
    where = text.in_notebook(finding).removesuffix(": ") or f"{finding.start.line}:{finding.start.column}"
    case = ET.SubElement(
        suite, "testcase", name=f"{finding.code} {finding.name} at {where}",
        classname=xml_text(finding.filename), file=xml_text(finding.filename),
    )
    if finding.cell is None:
        case.set("line", str(finding.start.line))
    outcome = ET.SubElement(
        case, "error" if levels.is_unchecked_file(finding) else "failure",
        message=xml_text(finding.message), type=finding.code,
    )
    outcome.text = xml_text(text.format_finding(finding))


def write(findings: Sequence[Finding], out: TextIO, run: Run) -> None:
    root = document(findings)
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode") + "\n")
