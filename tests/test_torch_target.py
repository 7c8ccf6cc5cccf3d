"""Findings on the user's torch (issue 25): the target, and what the version table makes of a finding there.

The version table (``dynalint/model/torch_releases.py``) is what ``bench/versions/table.py`` makes of the
measured matrix (``rules/versions.json``); the page tests check the matrix against the installed torch.
Here: the target comes from ``target-torch``, else the installed torch's metadata (faked, never imported),
else the project's pins, else the newest measured release; a finding whose pattern does not break on the
target is not reported, one that does names that release's GB ids, and past the newest measured release
it says how far the measurements go. No torch is imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dynalint.api import lint_source
from dynalint.lint import rule_pages
from dynalint.model.torch_releases import BASELINE, MEASURED, PATTERNS
from dynalint.project import torch_target
from dynalint.project.config import Config

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "versions"))

import table  # noqa: E402  (bench/versions/table.py: the matrix -> the version table)

DYN303_EXAMPLES = rule_pages.load_pages()["DYN303"].blocks("Example")
REDUCE_SCATTER = "torch.distributed.reduce_scatter"


def dyn303(block: rule_pages.Block, target: str) -> list[tuple[int, tuple[str, ...], str]]:
    findings = lint_source(block.source, f"{block.id}.py", Config(select=("DYN303",), target_torch=target))
    return [(f.start.line, f.gb_ids, f.pattern) for f in findings]


def test_the_version_table_is_what_the_committed_matrix_makes() -> None:
    matrix = json.loads((ROOT / "rules" / "versions.json").read_text(encoding="utf-8"))
    committed = (ROOT / "dynalint" / "model" / "torch_releases.py").read_text(encoding="utf-8")
    assert committed == table.module_text(matrix, rule_pages.load_pages()), \
        "stale: run `python bench/versions/table.py` (matrix.py runs it too)"
    assert MEASURED == tuple(sorted(matrix["releases"], key=torch_target.release)) and BASELINE in MEASURED
    assert BASELINE == table.baseline() == "2.13.0"  # the torch the test environment pins


def test_on_2_13_every_dyn303_example_is_reported_as_the_rule_says() -> None:
    for block in DYN303_EXAMPLES:
        expected = {line for line, _ in block.expected()}
        found = dyn303(block, "2.13")
        assert {line for line, _, _ in found} == expected
        assert all(gb_ids == ("GB0007",) or gb_ids == ("GB0007", "GB2696") for _, gb_ids, _ in found)


def test_on_2_14_reduce_scatter_is_not_reported_and_the_others_name_the_ids_2_14_breaks_with() -> None:
    measured = "2.14.1"
    reported = 0
    for block in DYN303_EXAMPLES:
        on_2_13 = dyn303(block, "2.13")
        on_2_14 = dyn303(block, "2.14")
        for line, _, pattern in on_2_13:
            entry = PATTERNS.get(("DYN303", pattern))
            if pattern == REDUCE_SCATTER:
                assert entry is not None and entry[measured] == (False, ())
                assert line not in {found_line for found_line, _, _ in on_2_14}
                continue
            if entry is None:  # a pattern no Example shows: kept, named by the rule's ids on 2.14
                entry = PATTERNS[("DYN303", "*")]
            assert (line, entry[measured][1], pattern) in on_2_14
            reported += 1
    assert reported >= 4
    assert PATTERNS[("DYN303", "torch.distributed.broadcast")][measured] == (True, ("GB0156",))


def test_past_the_newest_measured_release_a_finding_says_how_far_the_measurements_go() -> None:
    block = DYN303_EXAMPLES[0]
    findings = lint_source(block.source, "case.py", Config(select=("DYN303",), target_torch="2.99"))
    newest = ".".join(MEASURED[-1].split(".")[:2])
    assert findings and all(f.message.endswith(f"(measured up to {newest})") for f in findings)
    assert all(f.torch is not None and (f.torch.target, f.torch.measured) == ("2.99", MEASURED[-1]) for f in findings)


def test_a_target_older_than_every_measured_release_reads_as_the_oldest_measured() -> None:
    block = DYN303_EXAMPLES[0]
    older = lint_source(block.source, "case.py", Config(select=("DYN303",), target_torch="2.10"))
    oldest = lint_source(block.source, "case.py", Config(select=("DYN303",), target_torch=MEASURED[0]))
    assert [(f.start, f.gb_ids, f.message) for f in older] == [(f.start, f.gb_ids, f.message) for f in oldest]
    assert all(f.torch is not None and f.torch.measured == MEASURED[0] for f in older)


def _fake_torch(folder: Path, version: str) -> Path:
    (folder / f"torch-{version}.dist-info").mkdir(parents=True)
    (folder / f"torch-{version}.dist-info" / "METADATA").write_text(f"Name: torch\nVersion: {version}\n")
    return folder


def test_the_default_target_is_the_installed_torch_read_from_its_metadata_not_imported(tmp_path: Path) -> None:
    fake = _fake_torch(tmp_path / "site", "2.14.1")
    code = ("import sys; from dynalint.project import torch_target; "
            "print(torch_target.target(None), 'torch' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake), str(ROOT)])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env,
                         cwd=tmp_path).stdout.split()
    assert out == ["2.14.1", "False"]


def test_the_faked_installed_torch_decides_the_findings(tmp_path: Path) -> None:
    fake = _fake_torch(tmp_path / "site", "2.14.1")
    project = tmp_path / "project"
    project.mkdir()
    block = next(b for b in DYN303_EXAMPLES if REDUCE_SCATTER.rsplit(".", 1)[1] in b.source)
    (project / "collective.py").write_text(block.source)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake), str(ROOT)])}
    done = subprocess.run([sys.executable, "-m", "dynalint", "check", "collective.py", "--no-cache", "--select",
                           "DYN303", "--output-format", "json"], capture_output=True, text=True, env=env, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr  # reduce_scatter does not break on 2.14
    assert json.loads(done.stdout) == []


def test_without_an_installed_torch_the_project_pins_decide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch_target, "installed_torch", lambda: None)
    torch_target.pinned_torch.cache_clear()
    pinned = tmp_path / "pinned"
    pinned.mkdir()
    (pinned / "pyproject.toml").write_text('[project]\nname = "m"\ndependencies = ["numpy", "torch>=2.4"]\n'
                                           '[project.optional-dependencies]\ntest = ["torch==2.13.0"]\n')
    ranged = tmp_path / "ranged"
    ranged.mkdir()
    (ranged / "requirements-gpu.txt").write_text("# models\ntorch>=2.10,<2.14 ; sys_platform == 'linux'\n")
    bare = tmp_path / "bare"
    bare.mkdir()
    assert torch_target.target(None, pinned) == "2.13.0"  # an exact pin anywhere wins over a range
    assert torch_target.target(None, ranged) == "2.13.0"  # the newest measured release the range admits
    assert torch_target.target(None, bare) == MEASURED[-1]  # nothing pinned: the newest measured
    assert torch_target.target("2.12", pinned) == "2.12"  # target-torch first


@pytest.mark.parametrize("version, expected", [
    ("2.13.0+cpu", ("2.13.0", False)), ("2.14", ("2.14.1", False)), ("2.14.0", ("2.14.1", False)),
    ("2.15.1", ("2.14.1", True)), ("2.12", ("2.11.0", False)), ("2.11.0+cu130", ("2.11.0", False)),
    ("2.8", ("2.11.0", False)),
])
def test_the_measured_release_that_speaks_for_a_target(version: str, expected: tuple[str, bool]) -> None:
    assert MEASURED == ("2.11.0", "2.13.0", "2.14.1")  # the cases below are written for these three
    assert torch_target.measured_for(version) == expected


@pytest.mark.parametrize("version, specifier, expected", [
    ("2.14.1", "~=2.13", True), ("2.13.4", "~=2.13.0", True), ("2.14.0", "~=2.13.0", False),
    ("2.12.1", "==2.12.*", True), ("2.13.0", "==2.12.*", False),
])
def test_compatible_and_wildcard_pins(version: str, specifier: str, expected: bool) -> None:
    assert torch_target.in_range(version, specifier) is expected


def test_a_confirmed_break_with_other_ids_than_the_finding_names_says_so() -> None:
    from dynalint.model.finding import Region
    from dynalint.verify.protocol import JobResult, ObservedBreak
    from dynalint.verify.verdicts import judge

    block = DYN303_EXAMPLES[0]
    finding = lint_source(block.source, "/tmp/case.py", Config(select=("DYN303",), target_torch="2.13"))[0]
    assert finding.gb_ids == ("GB0007", "GB2696") and isinstance(finding.region, Region)
    seen = ObservedBreak("GB0156", "Unsupported method call", "/tmp/case.py", finding.start.line, "f")
    other = judge([finding], [], {"job": JobResult("job", breaks=(seen,))})[0].verify
    assert other is not None and other.verdict == "confirmed" and other.matches_rule is False
    assert other.reason == "the page says GB0007, GB2696; this torch breaks with GB0156"
    same = ObservedBreak("GB0007", "skipped", "/tmp/case.py", finding.start.line, "f")
    agreeing = judge([finding], [], {"job": JobResult("job", breaks=(same,))})[0].verify
    assert agreeing is not None and agreeing.matches_rule is True and agreeing.reason is None


def test_dynalint_rule_shows_the_per_release_table() -> None:
    done = subprocess.run([sys.executable, "-m", "dynalint", "rule", "DYN303"], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    table_text = done.stdout.partition("## Measured releases")[2]
    assert "| pattern | torch 2.11 | torch 2.13 | torch 2.14 |" in table_text
    assert "| `torch.distributed.reduce_scatter` | breaks (GB0007) | breaks (GB0007) | no break |" in table_text
    assert "| `torch.distributed.broadcast` | breaks (GB0007) | breaks (GB0007) | breaks (GB0156) |" in table_text


def test_json_and_sarif_carry_the_target_and_its_gb_ids(tmp_path: Path) -> None:
    block = next(b for b in DYN303_EXAMPLES if "broadcast" in b.source)
    (tmp_path / "collective.py").write_text(block.source)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "dynalint", "check", "collective.py", "--no-cache", "--select", "DYN303",
               "--target-torch", "2.14"]
    as_json = subprocess.run([*command, "--output-format", "json"], capture_output=True, text=True, env=env,
                             cwd=tmp_path)
    (finding,) = json.loads(as_json.stdout)
    assert finding["torch"] == {"target": "2.14", "measured": "2.14.1"} and finding["gb_ids"] == ["GB0156"]
    as_sarif = subprocess.run([*command, "--output-format", "sarif"], capture_output=True, text=True, env=env,
                              cwd=tmp_path)
    (result,) = json.loads(as_sarif.stdout)["runs"][0]["results"]
    assert result["properties"]["torch"] == {"target": "2.14", "measured": "2.14.1"}
    assert result["properties"]["gb_ids"] == ["GB0156"]
