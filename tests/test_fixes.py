"""``--fix``, ``--unsafe-fixes``, ``--diff`` and ``--show-fixes`` from the command line, on the sample
project ``fixtures/fixable`` (nine kinds of fixable findings over three files, one display-only) and on small cases: what
is applied, what is written, what waits for the next pass, what is dropped, and what the fix loop keeps
byte for byte. The torch-marked test compiles the sample project before and after under real Dynamo.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import invoke

from dynalint.api import fix_source
from dynalint.model.finding import Applicability, Edit, Finding, Fix, Position
from dynalint.output import fix_edits
from dynalint.project.config import Config

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "fixtures" / "fixable"
SAFE = {"DYN105", "DYN207"}  # the sample's findings whose fixes are safe
UNSAFE = {"DYN001", "DYN101", "DYN102", "DYN104", "DYN108", "DYN201", "DYN202"}
DISPLAY_ONLY = {"DYN301"}  # shown, never applied


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "fixable"
    shutil.copytree(SAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__", ".dynalint_cache"))
    monkeypatch.chdir(copy)
    return copy


def texts(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.py"))}


def findings(*args: str) -> list[dict]:
    return json.loads(invoke(["--output-format", "json", "--no-cache", *args, "."]).stdout)


def test_the_sample_has_eight_kinds_of_fixable_findings_over_three_files(sample: Path) -> None:
    found = findings()
    fixable = {f["code"] for f in found if f["fix"]}
    assert fixable == SAFE | UNSAFE | DISPLAY_ONLY and len(SAFE | UNSAFE) >= 8
    assert {f["filename"] for f in found if f["fix"]} == {"model.py", "sync.py", "train.py"}
    assert {f["code"] for f in found if f["fix"] and f["fix"]["applicability"] == "safe"} == SAFE


def test_diff_shows_the_fixes_and_writes_nothing(sample: Path) -> None:
    before = texts(sample)
    result = invoke(["--diff", "--no-cache", "."])
    assert result.exit_code == 1
    assert "+    loss = torch.where(hidden > 0, hidden, 0).sum()" in result.stdout  # safe: shown
    assert "print(" not in "".join(l for l in result.stdout.splitlines(True) if l.startswith(("+", "-")))
    assert texts(sample) == before
    unsafe = invoke(["--diff", "--unsafe-fixes", "--no-cache", "."])
    assert unsafe.exit_code == 1 and "+        print(\"hidden\", hidden.shape)" in unsafe.stdout
    assert texts(sample) == before


def test_fix_applies_only_the_safe_fixes_then_the_unsafe_ones_and_a_second_run_changes_nothing(sample: Path) -> None:
    before = texts(sample)
    result = invoke(["--fix", "--show-fixes", "--no-cache", "."])
    assert result.exit_code == 1  # what remains decides: the unsafe findings are still there
    assert {f["code"] for f in findings()} == UNSAFE | DISPLAY_ONLY
    after_safe = texts(sample)
    assert after_safe["train.py"] != before["train.py"] and after_safe["model.py"] == before["model.py"]
    assert "fixed train.py:" in result.stderr and "DYN105" in result.stderr
    result = invoke(["--fix", "--unsafe-fixes", "--no-cache", "."])
    left = findings()
    assert {f["code"] for f in left} >= DISPLAY_ONLY
    assert all(f["fix"] is None or f["fix"]["applicability"] == "display-only" for f in left)
    assert result.exit_code == 1
    fixed = texts(sample)
    again = invoke(["--fix", "--unsafe-fixes", "--no-cache", "."])
    assert texts(sample) == fixed and "Fixed 0 findings" in again.stderr
    assert "@torch.compiler.disable" in fixed["sync.py"] and "funcol" not in fixed["sync.py"]  # display-only


def test_fixes_change_only_the_lines_they_fix(sample: Path) -> None:
    before = texts(sample)
    invoke(["--fix", "--unsafe-fixes", "--no-cache", "."])
    after = texts(sample)
    for name in before:
        old, new = before[name].splitlines(), after[name].splitlines()
        kept = [line for line in old if line in new]
        changed = [line for line in old if line not in new]
        # Every line the fixes touch holds a flagged construct; comments and the rest stay as they were.
        assert all(any(mark in line for mark in ("print(", "log.info", "copy.copy", "hidden[", ".item()", "float(",
                                                 "torch._assert(", "graph_break", "disable", "dist.all_reduce",
                                                 "if ", "raise ", "out = ", "else:")) for line in changed), changed
        assert all(line in new for line in old if line.lstrip().startswith("#")), "a comment was lost"
        assert kept


def test_conflicting_flags_are_refused() -> None:
    for flags in (["--fix", "--diff"], ["--fix", "--add-noqa"], ["--diff", "--write-baseline", "b.json"],
                  ["--diff", "--verify"], ["--fix", "-"]):
        result = invoke([*flags, "."])
        assert result.exit_code == 2 and "cannot be used together" in result.stderr, flags


def test_config_keys_decide_what_is_fixed(sample: Path) -> None:
    pyproject = sample / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace("[tool.dynalint]\n", '[tool.dynalint]\nunfixable = ["DYN105"]\n'
                                                            'extend-safe-fixes = ["DYN201"]\n', 1), encoding="utf-8")
    invoke(["--fix", "--no-cache", "."])
    after = texts(sample)
    assert "hidden[hidden > 0].sum()" in after["train.py"]  # unfixable
    assert "is_compiling" in after["train.py"] and "print(" in after["train.py"]  # DYN201 now counts as safe
    assert "log.info(\"loss computed\")\n" in after["train.py"].replace("        log.info", "    log.info")
    pyproject.write_text(text.replace("[tool.dynalint]\n", '[tool.dynalint]\nfixable = ["DYN999"]\n', 1), encoding="utf-8")
    assert invoke(["--no-cache", "."]).exit_code == 2  # an unknown code in a fix key is a config error


def _finding(code: str, start: tuple[int, int], end: tuple[int, int], content: str) -> Finding:
    edit = Edit(Position(*start), Position(*end), content)
    return Finding(code, "x", "m", "f.py", Position(*start), Position(*end),
                   fix=Fix(Applicability.SAFE, "m", (edit,)))


def test_overlapping_fixes_wait_for_the_next_pass_and_unparsable_ones_are_dropped() -> None:
    text = "a = 1\nb = 2\n"
    first = _finding("DYN001", (1, 5), (1, 6), "10")
    overlapping = _finding("DYN002", (1, 1), (1, 6), "c = 3")
    broken = _finding("DYN003", (2, 5), (2, 6), "(")
    outcome = fix_edits.apply(text, [overlapping, first, broken])
    assert outcome.text == "c = 3\nb = 2\n"  # the first by position is taken, the one inside it waits
    assert outcome.waiting == [first]
    assert [f for f, _ in outcome.dropped] == [broken]
    assert fix_edits.apply(outcome.text, [broken]).text == outcome.text


def test_identical_import_edits_are_made_once_and_line_endings_and_bom_are_kept(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    source = ("import logging\r\nfrom torch import compile, Tensor\r\n\r\nlog = logging.getLogger()\r\n\r\n\r\n"
              "@compile\r\ndef f(x: Tensor) -> Tensor:\r\n    print(x)\r\n    log.info('x')\r\n    return x\r\n")
    (tmp_path / "f.py").write_bytes(b"\xef\xbb\xbf" + source.encode())
    invoke(["--fix", "--unsafe-fixes", "--no-cache", "f.py"])
    data = (tmp_path / "f.py").read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\n" not in data.replace(b"\r\n", b"")
    text = data[3:].decode()
    assert text.count("import torch\r\n") == 1
    assert "    if not torch.compiler.is_compiling():\r\n        print(x)\r\n" in text


def test_api_fix_source_matches_the_command_line(sample: Path) -> None:
    before = (sample / "train.py").read_text(encoding="utf-8")
    invoke(["--fix", "--no-cache", "train.py"])
    assert fix_source(before, "train.py", Config()) == (sample / "train.py").read_text(encoding="utf-8")


# -- under real Dynamo ---------------------------------------------------------------------------------
_MEASURE = """
import json, sys, torch
from torch._dynamo.utils import counters
sys.path.insert(0, ".")
import factories
out = {}
for name in ("train_step_inputs", "encoder_inputs"):
    function, args, kwargs = getattr(factories, name)()
    torch._dynamo.reset(); counters.clear()
    compiled = function(*args, **kwargs)
    breaks = sum(counters["graph_break"].values())
    with torch._dynamo.config.patch(disable=True):
        function, args, kwargs = getattr(factories, name)()
        eager = function(*args, **kwargs)
    out[name] = {"breaks": breaks, "eager": eager.detach().flatten().tolist(),
                 "compiled": compiled.detach().flatten().tolist()}
print(json.dumps(out))
"""


def _measure(folder: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _MEASURE], cwd=folder, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.torch
def test_under_dynamo_the_fixed_sample_breaks_less_and_computes_the_same(sample: Path) -> None:
    before = _measure(sample)
    invoke(["--fix", "--unsafe-fixes", "--no-cache", "."])
    after = _measure(sample)
    total = {state: sum(run["breaks"] for run in measured.values()) for state, measured in (("before", before),
                                                                                            ("after", after))}
    assert total["after"] < total["before"], total
    for name in before:
        assert after[name]["eager"] == pytest.approx(before[name]["eager"], rel=1e-5, abs=1e-6), name
        assert after[name]["compiled"] == pytest.approx(after[name]["eager"], rel=1e-5, abs=1e-6), name
    print(f"breaks: {total['before']} -> {total['after']}")


@pytest.mark.torch
def test_fix_verify_keeps_the_fixes_that_help_and_reverts_the_one_that_does_not(sample: Path) -> None:
    census = sample / "after.json"
    result = invoke(["--fix", "--unsafe-fixes", "--verify", "--no-cache", "--census-out", str(census), "."])
    table = result.stderr
    assert "model.py::Encoder.report   0 -> 0  DYN201  reverted: break count unchanged: 0 -> 0" in table
    for kept, after in (("model.py::Encoder.forward", 0), ("model.py::Encoder.pooled", 0),
                        ("sync.py::synced_pool", 1), ("train.py::train_step", 1)):
        line = next(line for line in table.splitlines() if line.startswith(kept))
        assert line.endswith("kept") and f" -> {after} " in line, line  # the DYN301 break stays: display-only
    assert "breaks under the factories: 12 -> 2" in table
    after = texts(sample)
    assert 'print("mean activation", h.mean())' in after["model.py"]  # reverted: no guard around it
    assert "is_compiling" not in after["model.py"] and "torch._assert_async" in after["model.py"]
    assert "graph_break" not in after["sync.py"] and "@torch.compiler.disable" in after["sync.py"]
    functions = json.loads(census.read_text(encoding="utf-8"))["functions"]
    assert {name: entry["breaks"] for name, entry in functions.items()} == {
        "factory:factories:train_step_inputs": 1, "factory:factories:encoder_inputs": 1}
    assert result.exit_code == 1  # the reverted finding remains


def test_nested_fixes_are_offered_outermost_first_so_a_deep_expression_costs_one_pass() -> None:
    """A fix inside another would overlap it and wait for the next pass: only the outermost of nested
    conditional expressions carries one (rendering every level cost the square of the depth: a fuzzed
    1,500-level expression took 25 s, now 2 s)."""
    from dynalint.api import lint_source

    depth = 150
    nested = "x"
    for level in range(depth):
        nested = f"(x * {level} if x.sum() > {level} else {nested})"
    source = f"import torch\n\n\n@torch.compile\ndef pick(x: torch.Tensor) -> torch.Tensor:\n    return {nested}\n"
    found = lint_source(source, "deep.py")
    assert len(found) == depth and all(f.code == "DYN102" for f in found)
    assert [f.start for f in found if f.fix is not None] == [min(f.start for f in found)]


def test_a_fix_of_several_statements_keeps_a_crlf_file_crlf() -> None:
    source = ("import torch\r\n\r\n\r\n@torch.compile\r\ndef f(x: torch.Tensor) -> torch.Tensor:\r\n"
              "    if x.sum() > 0:\r\n        y = x * 2\r\n        z = x\r\n    else:\r\n        y = x\r\n"
              "        z = x + 1\r\n    return y + z\r\n")
    fixed = fix_source(source, "crlf.py", Config(), unsafe=True)
    assert "    y = torch.where(x.sum() > 0, x * 2, x)\r\n    z = torch.where(x.sum() > 0, x, x + 1)\r\n" in fixed
    assert "\n" not in fixed.replace("\r\n", "")
