"""Ground-truth bench, the static side: dynalint over a library's installed source, in process.

The installed package is copied out of ``site-packages`` (which dynalint, like other linters, skips)
into ``~/.cache/dynalint-bench/src/<library>-<version>/`` and linted whole with the default settings,
``likely`` findings included: a library has no compile sites of its own, so its findings come from
``forward`` methods and what they call, and from the entry points the models compiled
(``gt_calls.entry_points``: library functions and methods a bench wrapper calls, model classes),
declared as a user would, through ``compiled`` in ``[tool.dynalint]``. Findings of dynalint's own diagnostics (DYN9xx) and of rules
whose hazard is not a graph break (recompiles) are returned apart, since Dynamo's break log cannot
judge them. No torch is imported here.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata, util
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout's dynalint

from gt_line_guard import guarded_in_line  # noqa: E402
from gt_score import StaticFinding  # noqa: E402

from dynalint import checks  # noqa: E402
from dynalint.api import lint_paths  # noqa: E402
from dynalint.project.config import ConfigError, parse  # noqa: E402
from dynalint.lint.rule import BREAK_HAZARDS  # noqa: E402

SOURCES = Path.home() / ".cache" / "dynalint-bench" / "src"


@dataclass
class StaticResult:
    findings: list[StaticFinding] = field(default_factory=list)  # break rules only
    other: list[StaticFinding] = field(default_factory=list)  # DYN9xx and non-break hazards
    files: int = 0
    seconds: float = 0.0
    declared: tuple[str, ...] = ()  # the ``compiled`` entry points passed
    # Per file, the line spans of its functions and whether each is in a compiled region.
    spans: dict[str, list[tuple[int, int, bool]]] = field(default_factory=dict)
    # For the reach diagnostic (``gt_reach.py``): the spans with each function's qualified name, the
    # functions in a region, and the calls each of those writes.
    named_spans: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    compiled: set[str] = field(default_factory=set)
    calls: dict[str, list[str]] = field(default_factory=dict)

    def in_region(self, path: str, line: int) -> bool:
        """Whether the innermost function holding ``path:line`` is compiled (in a region)."""
        holding = [(end - start, compiled) for start, end, compiled in self.spans.get(path, ()) if start <= line <= end]
        return bool(holding) and min(holding)[1]


def source_copy(package: str) -> Path:
    """A copy of the installed ``package`` outside ``site-packages`` (made once per version). A library
    that is one module (``rtdl_revisiting_models.py``) is copied alone into a folder of its own, which is
    returned: its break sites are named relative to the folder it was installed in, as that file's name.
    Compiled extensions are copied too, as they sit beside the Python: dynalint reads which modules are
    native from the files (``analysis/native_modules``). A copy made before they were (2026-11-27) lacks
    them: delete ``~/.cache/dynalint-bench/src`` to copy again."""
    spec = util.find_spec(package)
    if spec is None or (not spec.submodule_search_locations and not (spec.origin or "").endswith(".py")):
        raise SystemExit(f"{package} is not installed")
    version = metadata.version(distribution(package))
    if not spec.submodule_search_locations:
        folder = SOURCES / f"{package}-{version}" / "module"
        if not (folder / f"{package}.py").is_file():
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(str(spec.origin), folder / f"{package}.py")
        return folder
    installed = Path(list(spec.submodule_search_locations)[0])
    target = SOURCES / f"{package}-{version}" / package
    if not target.is_dir():
        shutil.copytree(installed, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return target


def distribution(package: str) -> str:
    """The distribution that installs the import package ``package`` (``pyro`` -> ``pyro-ppl``)."""
    return metadata.packages_distributions().get(package, [package.replace("_", "-")])[0]


def _declarable(entries: Iterable[str]) -> tuple[str, ...]:
    """The entries the config accepts, each tried alone: one it refuses (an object a model entered that has no
    qualified name, written ``pkg.mod:?``) is left out by itself. Until 2026-11-28 such an entry made the whole
    list fall back to none, so cooper and torchxrayvision were linted with no declared entry at all."""
    kept = []
    for entry in sorted(entries):
        try:
            parse({"compiled": [entry]}, Path.cwd() / "pyproject.toml")
        except ConfigError:
            continue
        kept.append(entry)
    return tuple(kept)


def lint(package: str, entries: Iterable[str] = ()) -> StaticResult:
    """Lint the library's source; ``entries`` (``module:qualname``) are what the models compiled."""
    folder = source_copy(package)
    declared = _declarable({e for e in entries if e.partition(":")[0].split(".")[0] == package
                            and "<" not in e.replace(".<locals>.", ".")})  # no lambda nor comprehension
    try:
        config = parse({"compiled": list(declared)}, Path.cwd() / "pyproject.toml")
    except ConfigError:  # a dynalint from before the ``compiled`` key (scoring an older commit)
        config, declared = parse({}, Path.cwd() / "pyproject.toml"), ()
    started = time.perf_counter()
    result = lint_paths([str(folder)], config)
    out = StaticResult(files=result.files_checked, seconds=round(time.perf_counter() - started, 1),
                       declared=declared)
    if result.program is not None:
        for qualified, (module, function) in result.program.functions.items():
            path = Path(module.path).resolve().relative_to(folder.resolve()).as_posix()
            compiled = result.program.region_of(qualified) is not None
            out.spans.setdefault(path, []).append((function.start_line, function.end_line, compiled))
            out.named_spans.setdefault(path, []).append((function.start_line, function.end_line, qualified))
            if compiled:
                out.compiled.add(qualified)
                out.calls[qualified] = [record[1] for record in function.calls]
    for finding in result.findings:
        path = Path(finding.filename).resolve().relative_to(folder.resolve()).as_posix()
        guarded = guarded_in_line(finding.filename, finding.start.line, finding.start.column, finding.end.line,
                                  finding.end.column)
        static = StaticFinding(finding.code, path, finding.start.line, finding.end.line, finding.message,
                               finding.confidence.value, guarded)
        rule = checks.lookup(finding.code)
        breaks = rule is not None and rule.hazard in BREAK_HAZARDS and not finding.code.startswith("DYN9")
        (out.findings if breaks else out.other).append(static)
    return out


def source_line(package: str, path: str, line: int) -> str:
    """The stripped text of ``path:line`` in the copied source (empty when out of range)."""
    try:
        lines = (source_copy(package) / path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""
