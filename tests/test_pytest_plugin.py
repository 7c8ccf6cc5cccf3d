"""The pytest plugin (``pytest --dynalint-census`` / ``--dynalint-baseline``) on a small user project.

Each case writes a project with ``pytester`` and runs pytest on it in a subprocess (this process
never imports torch): two models compiled by the project's own tests, one with a ``print`` in
``forward`` and one with a data-dependent branch, plus one that calls a helper installed under a
``site-packages`` folder, which must never be blamed. The census must hold each break at the user's
line with its GB id, its static verdict and the nodeid of the test that hit it; the baseline gate
must fail on a new break and report a fixed one; and the census must be one ``--verify`` accepts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from dynalint.verify import census as census_module

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent

MODELS = '''\
import torch
from extlib import noisy


class Printer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        print("shape", y.shape)
        return y.relu()


class Gate(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:
            return x * 2
        return x - 1


class Wrapped(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return noisy(x) + 1
'''

TESTS = '''\
import torch
from proj.models import Gate, Printer, Wrapped


def test_printer():
    model = torch.compile(Printer(), backend="eager")
    assert model(torch.ones(2, 8)).shape == (2, 8)


def test_gate():
    model = torch.compile(Gate(), backend="eager")
    model(torch.ones(2, 8))


def test_wrapped():
    model = torch.compile(Wrapped(), backend="eager")
    model(torch.ones(2, 8))
'''

# An "installed" library: the plugin must blame the project's call to it, never this file.
EXTLIB = '''\
def noisy(x):
    print("extlib sees", x.shape)
    return x
'''

CONFTEST = '''\
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(here / "src"), str(here / "lib" / "site-packages")]
'''


def plugin_args() -> list[str]:
    """``-p dynalint.census.plugin`` only where the ``pytest11`` entry point is not installed yet."""
    names = {ep.value for ep in entry_points(group="pytest11")} if sys.version_info >= (3, 10) else set()
    return [] if "dynalint.census.plugin" in names else ["-p", "dynalint.census.plugin"]


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *plugin_args(), *args, timeout=300)


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    root = pytester.path
    (root / "pyproject.toml").write_text('[tool.dynalint]\ncensus-paths = ["src", "tests"]\n', encoding="utf-8")
    (root / "src" / "proj").mkdir(parents=True)
    (root / "src" / "proj" / "__init__.py").write_text("", encoding="utf-8")
    (root / "src" / "proj" / "models.py").write_text(MODELS, encoding="utf-8")
    (root / "lib" / "site-packages").mkdir(parents=True)
    (root / "lib" / "site-packages" / "extlib.py").write_text(EXTLIB, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (root / "tests" / "test_models.py").write_text(TESTS, encoding="utf-8")
    return root


def line_of(path: Path, text: str) -> int:
    found = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if text in line]
    assert len(found) == 1, (path, text, found)
    return found[0]


def load(path: Path) -> dict[str, Any]:
    return census_module.load(path)  # also checks it is a census --verify would accept


def test_without_its_options_the_plugin_imports_neither_torch_nor_the_linter(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_quiet='''
        import sys

        def test_nothing_heavy_was_imported():
            assert "dynalint.census.plugin" in sys.modules  # the plugin is loaded...
            heavy = [m for m in ("torch", "libcst", "dynalint.api", "dynalint.verify") if m in sys.modules]
            assert heavy == []  # ...and loaded nothing that would slow every project's collection
    ''')
    result = run(pytester)
    result.assert_outcomes(passed=1)
    assert "dynalint break census" not in result.stdout.str()


def test_update_baseline_needs_a_baseline(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = run(pytester, "--dynalint-update-baseline")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dynalint-update-baseline needs --dynalint-baseline FILE*"])


@pytest.mark.torch
def test_census_blames_the_users_lines_with_gb_ids_and_tests(pytester: pytest.Pytester, project: Path) -> None:
    result = run(pytester, "--dynalint-census=census.json")
    result.assert_outcomes(passed=3)
    models = project / "src" / "proj" / "models.py"
    print_line, branch_line = line_of(models, 'print("shape"'), line_of(models, "if x.sum() > 0")
    call_line = line_of(models, "return noisy(x) + 1")
    functions = load(project / "census.json")["functions"]
    assert set(functions) == {"src/proj/models.py::Printer.forward", "src/proj/models.py::Gate.forward",
                              "src/proj/models.py::Wrapped.forward"}

    printer = functions["src/proj/models.py::Printer.forward"]
    assert printer["break_sites"] == [f"src/proj/models.py:{print_line} GB0059"]
    assert (printer["breaks"], printer["graphs"], printer["recompiles"], printer["status"]) == (1, 2, 0, "ran")
    site = printer["sites"][f"src/proj/models.py:{print_line} GB0059"]
    assert site["tests"] == ["tests/test_models.py::test_printer"]
    assert (site["verdict"], site["rules"]) == ("confirmed", ["DYN201"])

    gate = functions["src/proj/models.py::Gate.forward"]
    assert gate["break_sites"] == [f"src/proj/models.py:{branch_line} GB0170"]
    site = gate["sites"][f"src/proj/models.py:{branch_line} GB0170"]
    assert site["tests"] == ["tests/test_models.py::test_gate"] and site["verdict"] == "confirmed"

    # The print inside the "installed" helper is blamed on the project's call to it; no rule
    # flagged that line, so the site is DYN090, a break the catalogue did not predict there.
    wrapped = functions["src/proj/models.py::Wrapped.forward"]
    assert wrapped["break_sites"] == [f"src/proj/models.py:{call_line} GB0059"]
    assert wrapped["sites"][f"src/proj/models.py:{call_line} GB0059"]["verdict"] == "DYN090"

    every_site = [s for entry in functions.values() for s in entry["break_sites"]]
    assert all(s.startswith("src/proj/models.py:") for s in every_site), every_site  # never torch, never extlib
    result.stdout.fnmatch_lines([
        "*= dynalint break census =*",
        "3 compiled functions, * graphs, 3 break sites (2 confirmed by a rule, 1 DYN090), 0 skipped frames, 0 recompiles",
        f"  src/proj/models.py:{print_line} GB0059 confirmed DYN201: * (in tests/test_models.py::test_printer)",
        "census written to census.json",
    ])


@pytest.mark.torch
def test_baseline_fails_on_a_new_break_and_reports_a_removed_one(pytester: pytest.Pytester, project: Path) -> None:
    recorded = run(pytester, "--dynalint-census=baseline.json")
    assert recorded.ret == pytest.ExitCode.OK
    models = project / "src" / "proj" / "models.py"
    original = models.read_text(encoding="utf-8")

    models.write_text(original.replace("            return x * 2\n",
                                       '            print("positive")\n            return x * 2\n'), encoding="utf-8")
    new_line = line_of(models, 'print("positive")')
    worse = run(pytester, "--dynalint-baseline=baseline.json")
    worse.assert_outcomes(passed=3)  # the tests pass; the census gate fails the run
    assert worse.ret == pytest.ExitCode.TESTS_FAILED
    worse.stdout.fnmatch_lines([
        "*= dynalint break census =*",
        "regression: src/proj/models.py::Gate.forward: breaks 1 -> 2, graphs 2 -> *; new break sites: "
        f"src/proj/models.py:{new_line} GB0059 (in tests/test_models.py::test_gate)",
        "break census: worse than the baseline baseline.json*",
    ])

    print_line = line_of(models, 'print("shape"')
    models.write_text(original.replace('        print("shape", y.shape)\n', "        y = y + 0\n"), encoding="utf-8")
    better = run(pytester, "--dynalint-baseline=baseline.json")
    assert better.ret == pytest.ExitCode.OK
    better.stdout.fnmatch_lines([
        "improved: src/proj/models.py::Printer.forward: breaks 1 -> 0, graphs 2 -> 1; "
        f"fixed: src/proj/models.py:{print_line} GB0059",
        "break census: no function got worse than the baseline",
    ])
    assert "regression:" not in better.stdout.str()

    accepted = run(pytester, "--dynalint-baseline=baseline.json", "--dynalint-update-baseline")
    assert accepted.ret == pytest.ExitCode.OK
    assert load(project / "baseline.json")["functions"]["src/proj/models.py::Printer.forward"]["breaks"] == 0


def dynalint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "dynalint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)


@pytest.mark.torch
def test_the_plugin_and_verify_gate_with_each_others_census(pytester: pytest.Pytester, project: Path) -> None:
    # Only the two project models: --verify blames the innermost frame under the project folder, and
    # the "installed" helper sits inside it here (as a virtual environment in the project would).
    models, tests = project / "src" / "proj" / "models.py", project / "tests" / "test_models.py"
    models.write_text(MODELS.split("\n\n\nclass Wrapped")[0].replace("from extlib import noisy\n", "") + "\n",
                      encoding="utf-8")
    tests.write_text(TESTS.split("\n\n\ndef test_wrapped")[0].replace(", Wrapped", "") + "\n", encoding="utf-8")
    assert run(pytester, "--dynalint-census=plugin.json").ret == pytest.ExitCode.OK
    verified = dynalint("--verify", "--census-out", "verify.json", "--baseline", "plugin.json", "src", "tests",
                        cwd=project)
    assert verified.returncode == 0, verified.stderr[-4000:]
    assert "regression:" not in verified.stderr
    from_verify, from_plugin = load(project / "verify.json")["functions"], load(project / "plugin.json")["functions"]
    assert set(from_plugin) == {"src/proj/models.py::Printer.forward", "src/proj/models.py::Gate.forward"}
    for name in from_plugin:
        assert from_verify[name]["break_sites"] == from_plugin[name]["break_sites"], name
        assert from_verify[name]["graphs"] == from_plugin[name]["graphs"], name

    gated = run(pytester, "--dynalint-baseline=verify.json")
    assert gated.ret == pytest.ExitCode.OK
    gated.stdout.fnmatch_lines(["break census: no function got worse than the baseline"])


def test_compare_fails_on_a_moved_break_and_on_more_recompiles() -> None:
    def entry(sites: list[str], recompiles: int = 0) -> dict[str, Any]:
        return {"graphs": 2, "breaks": len(sites), "break_sites": sites, "skipped_frames": 0,
                "recompiles": recompiles, "seconds": 0.1, "status": "ran", "reason": None}

    baseline = {"version": 1, "functions": {"m.py::f": entry(["m.py:3 GB0059"])}}
    moved = census_module.compare({"version": 1, "functions": {"m.py::f": entry(["m.py:4 GB0059"])}}, baseline)
    assert moved.failed and moved.regressions == [
        "m.py::f: breaks 1 -> 1, graphs 2 -> 2; new break sites: m.py:4 GB0059"
    ]
    recompiled = census_module.compare({"version": 1, "functions": {"m.py::f": entry(["m.py:3 GB0059"], 1)}}, baseline)
    assert recompiled.regressions == ["m.py::f: breaks 1 -> 1, graphs 2 -> 2, recompiles 0 -> 1"]
    assert census_module.compare(baseline, baseline).regressions == []


def test_census_paths_is_a_list_of_folders_relative_to_the_config(tmp_path: Path) -> None:
    from dynalint.project import config as config_module

    (tmp_path / "pyproject.toml").write_text('[tool.dynalint]\ncensus-paths = ["src"]\n', encoding="utf-8")
    assert config_module.load(start=tmp_path).census_paths == ("src",)
    (tmp_path / "pyproject.toml").write_text('[tool.dynalint]\ncensus-paths = "src"\n', encoding="utf-8")
    with pytest.raises(config_module.ConfigError, match="census-paths"):
        config_module.load(start=tmp_path)
