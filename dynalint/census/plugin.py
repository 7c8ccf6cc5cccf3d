"""The pytest plugin: the break census of a project's own test run (``pytest --dynalint-census``).

Registered through the ``pytest11`` entry point, so pytest loads this module in every project where
dynalint is installed: it imports neither torch nor the linter until one of its options is given.
With ``--dynalint-census FILE`` or ``--dynalint-baseline FILE``, a ``census.session.Recorder`` watches
every ``torch.compile`` the tests trigger (in this process, no extra compile), ``census.testrun``
turns what it saw into the census ``dynalint --verify --census-out`` writes, with each break site
matched to the static finding on its line, and ``verify.census.compare`` gates it against the
baseline: a new break site or recompile fails the run (exit 1, after the tests' own outcome).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

SECTION = "dynalint break census"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dynalint", "dynalint: the break census of torch.compile in this test run")
    group.addoption("--dynalint-census", metavar="FILE", default=None,
                    help="record every graph break, recompile and skipped frame of the tests' torch.compile "
                         "calls, per compiled function, into FILE (the dynalint --verify census format)")
    group.addoption("--dynalint-baseline", metavar="FILE", default=None,
                    help="fail the run when a break site or recompile appears that this census does not hold")
    group.addoption("--dynalint-update-baseline", action="store_true", default=False,
                    help="with --dynalint-baseline: rewrite FILE with this run's census instead of failing")


def pytest_configure(config: pytest.Config) -> None:
    out = config.getoption("dynalint_census")
    baseline = config.getoption("dynalint_baseline")
    update = config.getoption("dynalint_update_baseline")
    if update and not baseline:
        raise pytest.UsageError("--dynalint-update-baseline needs --dynalint-baseline FILE")
    if not (out or baseline):
        return
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller has no compiles to see
        return
    config.pluginmanager.register(
        CensusPlugin(config, Path(out) if out else None, Path(baseline) if baseline else None, update),
        "dynalint-census",
    )


class CensusPlugin:
    def __init__(self, config: pytest.Config, out: Path | None, baseline: Path | None, update: bool) -> None:
        import importlib.util

        from dynalint.project import config as config_module
        from dynalint.verify import census
        from dynalint.verify.blame import Project

        if importlib.util.find_spec("torch") is None:
            raise pytest.UsageError("--dynalint-census needs torch: pip install 'dynalint[verify]'")
        self.out, self.baseline_path, self.update = out, baseline, update
        self.baseline: dict[str, Any] | None = None
        if baseline is not None and not update:
            if not baseline.is_file():
                raise pytest.UsageError(f"--dynalint-baseline: {baseline} does not exist "
                                        "(record it with --dynalint-update-baseline)")
            try:
                self.baseline = census.load(baseline)
            except ValueError as error:
                raise pytest.UsageError(f"--dynalint-baseline: {error}") from None
        try:
            self.lint_config = config_module.load(start=config.rootpath)
        except config_module.ConfigError as error:
            raise pytest.UsageError(f"dynalint: {error}") from None
        root = self.lint_config.root if self.lint_config.source else config.rootpath
        paths = [root / p for p in self.lint_config.census_paths]
        self.project = Project(root, paths)
        self.test_files: dict[str, str] = {}
        self.lines: list[str] = []
        self.failed = False
        self.recorder: Any = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        from dynalint.census.session import Recorder

        self.recorder = Recorder(self.project.owns)
        self.recorder.start()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        self.test_files[item.nodeid] = str(item.path)
        self.recorder.enter(item.nodeid)
        try:
            yield
        finally:
            self.recorder.enter(None)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        from dynalint.census import testrun
        from dynalint.verify import census

        if self.recorder is None:
            return
        self.recorder.stop()
        result = testrun.build(self.recorder.breaks, self.recorder.compiles, self.project)
        tests = {t for entry in result["functions"].values() for t in entry["tests"]}
        try:
            testrun.match_static(result, self.project,
                                 [self.test_files[t] for t in sorted(tests) if t in self.test_files], self.lint_config)
        except Exception as error:  # a linter bug must not cost the user the census
            self.lines.append(f"static matching failed ({error!r}); sites carry no verdict")
        self.lines[:0] = summary(result)
        text = json.dumps(result, indent=2) + "\n"
        if self.out is not None:
            self.out.write_text(text, encoding="utf-8")
            self.lines.append(f"census written to {self.out}")
        if self.baseline_path is not None and self.update:
            self.baseline_path.write_text(text, encoding="utf-8")
            self.lines.append(f"baseline {self.baseline_path} rewritten")
        elif self.baseline is not None:
            comparison = census.compare(result, self.baseline)
            self.lines += census.report(comparison)
            if comparison.failed:
                self.failed = True
                self.lines.append(f"break census: worse than the baseline {self.baseline_path} "
                                  "(fix it, or accept it with --dynalint-update-baseline)")
                if session.exitstatus == pytest.ExitCode.OK:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.lines:
            return
        terminalreporter.write_sep("=", SECTION, red=self.failed, bold=self.failed)
        for line in self.lines:
            terminalreporter.write_line(line)


def summary(result: dict[str, Any]) -> list[str]:
    """What the terminal shows of a test run's census: totals, then one line per break site."""
    functions = result["functions"]
    details = [(site, d) for entry in functions.values() for site, d in entry["sites"].items()]
    confirmed = sum(d.get("verdict") == "confirmed" for _, d in details)
    lines = [
        f"{len(functions)} compiled functions, {sum(e['graphs'] for e in functions.values())} graphs, "
        f"{len(details)} break sites ({confirmed} confirmed by a rule, {len(details) - confirmed} DYN090), "
        f"{sum(e['skipped_frames'] for e in functions.values())} skipped frames, "
        f"{sum(e['recompiles'] for e in functions.values())} recompiles"
    ]
    for site, detail in sorted(details):
        verdict = detail.get("verdict")
        shown = f"confirmed {', '.join(detail['rules'])}" if verdict == "confirmed" else (verdict or "")
        lines.append(f"  {site} {shown}: {detail['reason']} (in {', '.join(detail['tests'])})")
    return lines
