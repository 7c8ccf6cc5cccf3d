"""A findings baseline lets a codebase adopt dynalint: only findings a change adds fail it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

MODEL = """import torch


@torch.compile
def step(x):
    y = x * 2
    print("y", y)
    return y.item()
"""


def dynalint(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dynalint", "--no-cache", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={**os.environ})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    written = dynalint(tmp_path, "--write-baseline", "baseline.json", ".")
    assert written.returncode == 0, written.stderr
    assert "Wrote 2 findings" in written.stderr
    return tmp_path


def codes(result: subprocess.CompletedProcess[str]) -> list[tuple[int, str]]:
    return [(f["location"]["row"], f["code"]) for f in json.loads(result.stdout)]


def test_recorded_findings_are_not_reported(project: Path) -> None:
    result = dynalint(project, "--baseline", "baseline.json", "--output-format", "json", ".")
    assert result.returncode == 0, result.stderr
    assert codes(result) == []
    assert "2 known findings not shown, 0 new, 0 recorded ones gone" in result.stderr


def test_only_a_new_finding_fails_and_moved_or_reformatted_ones_stay_known(project: Path) -> None:
    moved = "# a header added above\n\n\n" + MODEL.replace('print("y", y)', 'print( "y",y )')
    moved = moved.replace("    return y.item()", '    print("again")\n    return y.item()')
    (project / "model.py").write_text(moved, encoding="utf-8")
    result = dynalint(project, "--baseline", "baseline.json", "--output-format", "json", ".")
    assert result.returncode == 1
    assert codes(result) == [(11, "DYN201")]
    assert "2 known findings not shown, 1 new, 0 recorded ones gone" in result.stderr


def test_a_fixed_finding_is_counted_as_gone(project: Path) -> None:
    (project / "model.py").write_text(MODEL.replace('    print("y", y)\n', ""), encoding="utf-8")
    result = dynalint(project, "--baseline", "baseline.json", ".")
    assert result.returncode == 0
    assert "1 known findings not shown, 0 new, 1 recorded ones gone" in result.stderr


@pytest.mark.parametrize("content, says", [
    ('{"functions": {}}', "a --verify break census"),
    ("not json", "cannot read the baseline"),
    ('{"dynalint-findings-baseline": 1, "findings": [{"code": "DYN201"}]}', "fingerprint"),
])
def test_a_file_that_is_not_a_findings_baseline_is_a_clear_error(project: Path, content: str, says: str) -> None:
    (project / "other.json").write_text(content, encoding="utf-8")
    result = dynalint(project, "--baseline", "other.json", ".")
    assert result.returncode == 2
    assert says in result.stderr and "Traceback" not in result.stderr


def test_add_noqa_silences_every_finding_and_keeps_the_file_otherwise_as_it_was(tmp_path: Path) -> None:
    source = (
        "import torch\r\n\r\n\r\n@torch.compile\r\ndef step(x):\r\n"
        "    print(x)  # show it\r\n"
        "    y = x.item()  # noqa: DYN999\r\n"
        '    s = """text\r\n    with lines""" + str(x.item())\r\n'
        '    t = str(x.item()) + """a comment cannot go here\r\n    """\r\n'
        "    return y\r\n"
    )
    (tmp_path / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    target = tmp_path / "m.py"
    target.write_bytes(source.encode("utf-8"))
    before = dynalint(tmp_path, "--output-format", "json", ".")
    assert sorted(codes(before)) == [(6, "DYN201"), (7, "DYN101"), (9, "DYN101"), (10, "DYN101")]
    added = dynalint(tmp_path, "--add-noqa", ".")
    assert added.returncode == 0 and "Added 3 noqa directives to 1 file" in added.stderr, added.stderr
    assert "m.py:10: the line ends inside a string" in added.stderr
    after = target.read_bytes().decode("utf-8")
    assert after.split("\r\n") == [
        "import torch", "", "", "@torch.compile", "def step(x):",
        "    print(x)  # show it  # noqa: DYN201",
        "    y = x.item()  # noqa: DYN101, DYN999",
        '    s = """text',
        '    with lines""" + str(x.item())  # noqa: DYN101',
        '    t = str(x.item()) + """a comment cannot go here', '    """',
        "    return y", "",
    ]
    assert codes(dynalint(tmp_path, "--output-format", "json", ".")) == [(10, "DYN101")]  # only the one left
