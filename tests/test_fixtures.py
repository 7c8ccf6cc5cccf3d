"""The fixture suite: multi-rule cases with annotated lines, and a clean project that must stay silent.

``fixtures/cases/*.py`` are small realistic files in which every line that graph-breaks under torch
2.13 (checked with real Dynamo when the file was written) ends with ``# error: DYN101`` or
``# error: DYN101, DYN103``; each file must yield exactly those (line, code) pairs. ``fixtures/clean``
is a small model/training/data project whose compiled parts compile without a break: it is the
false-positive guard. The CLI tests run ``python -m dynalint`` in a subprocess on the folders, the way
users and pre-commit do. Static tests only: nothing here imports torch.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from dynalint.api import lint_paths
from dynalint.checks import ALL_RULES
from dynalint.lint import rule_pages
from dynalint.project.config import Config

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CASES = sorted((FIXTURES / "cases").glob("*.py"))
CLEAN = FIXTURES / "clean"
ANNOTATION = re.compile(r"#\s*error:\s*(?P<codes>DYN\d{3}(?:\s*,\s*DYN\d{3})*)\s*$")
ALL_CODES = {rule.code for rule in ALL_RULES}


def annotations(path: Path) -> set[tuple[int, str]]:
    """(line, code) pairs from the ``# error: CODE[, CODE]`` comments of a file (comments only)."""
    pairs: set[tuple[int, str]] = set()
    text = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            match = ANNOTATION.search(token.string)
            if match:
                pairs |= {(token.start[0], code.strip()) for code in match["codes"].split(",")}
    return pairs


CASE_CODES = {code for path in CASES for _, code in annotations(path)}


def dynalint(*args: str) -> subprocess.CompletedProcess[str]:
    """The command on paths of the checkout, with no cache (it would be written into the fixtures)."""
    return subprocess.run(
        [sys.executable, "-m", "dynalint", "--no-cache", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def relative(filename: str) -> str:
    path = Path(filename)
    return (path if path.is_absolute() else ROOT / path).resolve().relative_to(ROOT).as_posix()


def test_fixture_folders_are_populated() -> None:
    assert len(CASES) >= 3
    clean = sorted(CLEAN.glob("*.py"))
    assert len(clean) >= 5
    assert sum(len(p.read_text(encoding="utf-8").splitlines()) for p in clean) >= 400


def test_every_rule_is_exercised_by_the_fixture_cases_or_its_page_examples() -> None:
    """A new rule's page examples (linted and run under Dynamo by test_rule_pages) are its coverage;
    the fixture cases add realistic code around the rules, and may only name rules that exist."""
    in_cases = CASE_CODES
    in_pages = {code for page in rule_pages.load_pages().values() for b in page.blocks("Example") for _, code in b.expected()}
    assert in_cases <= ALL_CODES, in_cases - ALL_CODES
    assert ALL_CODES <= in_cases | in_pages, ALL_CODES - in_cases - in_pages


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_case_yields_exactly_its_annotations(path: Path) -> None:
    expected = annotations(path)
    assert expected, f"{path.name} annotates no line with # error: CODE"
    findings = lint_paths([str(path)], Config()).findings
    assert {(f.start.line, f.code) for f in findings} == expected


def test_clean_project_is_silent() -> None:
    result = dynalint("fixtures/clean")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_clean_project_is_silent_per_file() -> None:
    """Each clean file alone (no cross-file linking) is silent too."""
    for path in sorted(CLEAN.glob("*.py")):
        findings = lint_paths([str(path)], Config()).findings
        assert findings == [], [f"{path.name}:{f.start.line} {f.code}" for f in findings]


def test_whole_fixture_tree_reports_every_rule_its_cases_annotate() -> None:
    result = dynalint("fixtures/")
    assert result.returncode == 1, result.stderr
    reported = set(re.findall(r"^\S+:\d+:\d+: (DYN\d{3}) ", result.stdout, flags=re.M))
    assert CASE_CODES <= reported


def test_whole_fixture_tree_json() -> None:
    result = dynalint("--output-format", "json", "fixtures/")
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout)
    assert isinstance(findings, list) and findings
    for finding in findings:
        assert {"code", "name", "message", "filename", "location", "end_location", "confidence"} <= set(finding)
        assert finding["location"]["row"] >= 1 and finding["location"]["column"] >= 1
    assert CASE_CODES <= {f["code"] for f in findings}
    # Linking the whole tree at once changes nothing for the cases, and the clean project stays silent.
    ours = {
        (relative(f["filename"]), f["location"]["row"], f["code"])
        for f in findings
        if relative(f["filename"]).startswith(("fixtures/cases/", "fixtures/clean/"))
    }
    expected = {(path.relative_to(ROOT).as_posix(), line, code) for path in CASES for line, code in annotations(path)}
    assert ours == expected
