"""Whole-process lint time and memory on real corpora, as ratios against references measured in the same run.

    python bench/speed.py [--foundation be9e1c0] [--before 4d7dfbd] [--repeat 3] [--corpus torch-nn|diffusers|all]
                          [--fixit PATH-TO-FIXIT]

For each corpus (see ``corpus.py``; a ``pyproject.toml`` beside the package makes it a project, so the
cache lives in ``.dynalint_cache`` there) it times, as separate processes, alternating runs of:

- the cases users wait on: the whole tree cold (no cache; with both cores, and with one), the whole
  tree again with a warm cache, one file inside the project cold and warm (the pre-commit case: the
  tree as the last run saw it), the same file warm right after an edit (the cache knows every other
  file, but the program is linked again), the same file alone in an empty project, and
  ``dynalint --version``;
- with ``--before COMMIT``, the same cases for dynalint at that commit (``before: ...``), so that a
  change is shown before and after in one run;
- the references: ``ast.parse`` and ``libcst.parse_module`` of every file, ``libcst.parse_module`` of
  just the compiled functions the lint stage parses (``segments.py``; summed with ``ast.parse`` of every
  file, the floor under the whole-tree ratio of a LibCST lint stage), ruff ``--select ALL`` cold
  and cached (when ruff is installed), dynalint at the ``--foundation`` commit (extracted with ``git
  archive``), ``python -c pass`` and ``import libcst``; with ``--fixit``, Fixit 2's ``fixit lint`` of
  the whole tree (slow: on diffusers about five minutes a run; install it in a venv of its own).

It prints the median wall and CPU time and the peak memory of each, then the ratios the targets are
stated in (issue 11). Every dynalint is byte-compiled first: with ``PYTHONDONTWRITEBYTECODE`` set, each
run would otherwise compile its modules again, which no installed copy does.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PARSE_ALL = (
    "import sys, pathlib\n"
    "parse = {parse}\n"
    "for p in sorted(pathlib.Path(sys.argv[1]).rglob('*.py')):\n"
    "    try:\n"
    "        parse(p.read_text(encoding='utf-8'))\n"
    "    except Exception:\n"
    "        pass\n"
)
PARSE_SEGMENTS = "import json, sys, libcst\nfor text in json.load(open(sys.argv[1])):\n    libcst.parse_module(text)\n"
ONE_FILE = {"diffusers": "models/attention_processor.py", "torch-nn": "modules/activation.py"}


@dataclass
class Case:
    command: list[str]
    cwd: Path
    prepare: Callable[[], None] | None = None  # run before each timed run (priming a cache), not timed
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    peak_mib: list[float] = field(default_factory=list)


def measure(command: list[str], cwd: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (the process and the children it waited for) and peak memory (MiB)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    wall = time.perf_counter() - started
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def run_quietly(command: list[str], cwd: Path) -> Callable[[], None]:
    return lambda: subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def edited(one: Path, original: str, warm_up: Callable[[], None]) -> Callable[[], None]:
    """Warm the cache on the file as it is, then edit it (a comment appended): what a commit stages."""
    def prepare() -> None:
        one.write_text(original, encoding="utf-8")
        warm_up()
        one.write_text(original + "\n# an edit\n", encoding="utf-8")
    return prepare


def dynalint_cases(lint: list[str], project: Path, package: Path, one: Path, alone: Path,
                   prefix: str = "") -> dict[str, Case]:
    """The cases users wait on, for the dynalint that ``lint`` (a command prefix) runs."""
    tree, staged = str(package.relative_to(project)), str(one.relative_to(project))
    quiet = [*lint, "--exit-zero", "--quiet"]
    original = one.read_text(encoding="utf-8")
    return {
        f"{prefix}tree cold (2 jobs)": Case([*quiet, "--no-cache", "-j", "2", tree], project),
        f"{prefix}tree warm": Case([*quiet, tree], project, prepare=run_quietly([*quiet, tree], project)),
        f"{prefix}one file in project, cold": Case([*quiet, "--no-cache", staged], project),
        f"{prefix}one file in project, warm": Case(
            [*quiet, staged], project, prepare=run_quietly([*quiet, staged], project)
        ),
        f"{prefix}one file in project, edited": Case(
            [*quiet, staged], project, prepare=edited(one, original, run_quietly([*quiet, staged], project))
        ),
        f"{prefix}one file alone": Case([*quiet, "--no-cache", one.name], alone),
        f"{prefix}--version": Case([*lint, "--version"], project),
    }


def from_checkout(checkout: Path) -> list[str]:
    """A command prefix that runs the dynalint of ``checkout`` (an extracted commit)."""
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(checkout)!r}); from dynalint.cli import main; main()"]


def cases(package: Path, label: str, foundation: Path | None, before: Path | None, scratch: Path,
          fixit: str | None = None) -> dict[str, Case]:
    project = package.parent
    (project / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    alone = scratch / f"alone-{label}"
    alone.mkdir(exist_ok=True)
    (alone / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    one = package / ONE_FILE[label]
    shutil.copy(one, alone / one.name)
    python = sys.executable
    tree = str(package.relative_to(project))
    segments = scratch / f"segments-{label}.json"
    subprocess.run([python, str(ROOT / "bench" / "segments.py"), tree, str(segments)], cwd=project, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    found = dynalint_cases([python, "-m", "dynalint"], project, package, one, alone)
    if before is not None:
        found.update(dynalint_cases(from_checkout(before), project, package, one, alone, prefix="before: "))
    found.update({
        "ast (every file)": Case([python, "-c", PARSE_ALL.format(parse="__import__('ast').parse"), tree], project),
        "libcst (every file)": Case(
            [python, "-c", PARSE_ALL.format(parse="__import__('libcst').parse_module"), tree], project
        ),
        "libcst (compiled functions)": Case([python, "-c", PARSE_SEGMENTS, str(segments)], project),
        "python -c pass": Case([python, "-c", "pass"], project),
        "import libcst": Case([python, "-c", "import libcst"], project),
    })
    ruff = shutil.which("ruff") or (str(Path(python).parent / "ruff") if (Path(python).parent / "ruff").exists() else None)
    if ruff:
        # Concise output: ruff's full format prints a source snippet for each of diffusers' ~212k
        # diagnostics, which alone costs about 3 s and would flatter every ratio against ruff.
        quiet = [ruff, "check", "--select", "ALL", "--exit-zero", "--quiet", "--output-format", "concise"]
        found["ruff ALL cold"] = Case([*quiet, "--no-cache", tree], project)
        found["ruff ALL cached"] = Case([*quiet, tree], project, prepare=run_quietly([*quiet, tree], project))
    if fixit:
        found["fixit lint"] = Case([fixit, "lint", tree], project)
    if foundation is not None:
        found["tree cold (1 job)"] = Case(
            [python, "-m", "dynalint", "--exit-zero", "--quiet", "--no-cache", "-j", "1", tree], project
        )
        found["foundation, tree"] = Case([*from_checkout(foundation), "--exit-zero", "--quiet", str(package)], project)
    return found


RATIOS = (
    ("one file in project, warm", "one file alone", "wall", "≤ 1.5"),
    ("one file in project, warm", "import libcst", "wall", ""),
    ("one file in project, edited", "one file alone", "wall", ""),
    ("one file in project, cold", "one file alone", "wall", ""),
    ("tree warm", "ruff ALL cached", "wall", "≤ 1.5"),
    ("tree cold (2 jobs)", "ast (every file)", "cpu", "≤ 3"),
    ("ast (every file) + libcst (compiled functions)", "ast (every file)", "cpu", "the floor under it"),
    ("tree cold (2 jobs)", "tree cold (2 jobs)", "wall/cpu", "≤ 0.6"),
    ("tree cold (1 job)", "foundation, tree", "wall", "not worse"),
    ("tree cold (2 jobs)", "libcst (every file)", "wall", ""),
    ("tree cold (2 jobs)", "ruff ALL cold", "wall", ""),
    ("fixit lint", "tree cold (2 jobs)", "wall", "≥ 20"),
    ("--version", "import libcst", "wall", "≤ 1"),
    ("before: one file in project, warm", "import libcst", "wall", "(before)"),
    ("before: tree cold (2 jobs)", "ast (every file)", "cpu", "(before)"),
    ("before: --version", "import libcst", "wall", "(before)"),
)
# Work summed into one reference: every file through ``ast`` (the summaries every run needs) and the
# compiled functions through LibCST (what the lint stage's rules walk), before any analysis runs.
FLOORS = (("ast (every file)", "libcst (compiled functions)"),)
# Targets stated in seconds (issue 11): case, wall-clock limit.
LIMITS = (("one file in project, warm", 0.3), ("one file in project, cold", 4.0))


def report(label: str, files: int, found: dict[str, Case], repeat: int) -> None:
    print(f"\n{label}: {files} files, median of {repeat} whole-process runs")
    print(f"  {'case':<28} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9}")
    median = {name: (statistics.median(c.wall), statistics.median(c.cpu), max(c.peak_mib)) for name, c in found.items()}
    for name, (wall, cpu, peak) in median.items():
        print(f"  {name:<28} {wall:8.2f} {cpu:8.2f} {peak:9.0f}")
    for first, second in FLOORS:
        if first in median and second in median:  # two parses no LibCST lint stage can skip
            median[f"{first} + {second}"] = (median[first][0] + median[second][0],
                                              median[first][1] + median[second][1], 0.0)
    print("  ratios (target):")
    for case, reference, kind, target in RATIOS:
        if case not in median or reference not in median:
            continue
        if kind == "wall/cpu":
            value = median[case][0] / median[case][1]
        else:
            index = 0 if kind == "wall" else 1
            value = median[case][index] / median[reference][index]
        print(f"    {case} / {reference if kind != 'wall/cpu' else 'its CPU'} ({kind}): {value:.2f}x  {target}")
    for case, limit in LIMITS:
        if case in median:
            print(f"    {case}: {median[case][0]:.2f} s wall (target ≤ {limit:g} s)")
    befores = [name for name in median if name.startswith("before: ")]
    if befores:
        print("  before -> after (wall s, cpu s):")
        for name in befores:
            after = name.removeprefix("before: ")
            if after in median:
                (bw, bc, _), (aw, ac, _) = median[name], median[after]
                print(f"    {after:<28} {bw:6.2f} -> {aw:6.2f}   {bc:6.2f} -> {ac:6.2f}")


def extract(commit: str, into: Path, name: str) -> Path:
    archive = into / f"{name}.tar"
    subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), commit], cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / name, filter="data")
    return into / name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--foundation", default="be9e1c0", help="commit of the engine to compare with ('' for none)")
    parser.add_argument("--before", default="", help="commit whose dynalint runs the same cases ('' for none)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="a regular expression: time only the cases whose name it finds (a loaded "
                        "machine can then repeat the quick cases more often than the whole-tree ones)")
    parser.add_argument("--diffusers", type=Path, help="an unpacked diffusers package to use (the bench edits one "
                        "file for a moment, so give a copy of your own where others read the shared corpus)")
    parser.add_argument("--fixit", help="a fixit executable: time Fixit 2 on the whole tree as a reference")
    parser.add_argument("--corpus", choices=("torch-nn", "diffusers", "all"), default="all")
    options = parser.parse_args()
    corpora = {"torch-nn": corpus.torch_nn,
               "diffusers": (lambda: options.diffusers.resolve()) if options.diffusers else corpus.diffusers}
    chosen = corpora if options.corpus == "all" else {options.corpus: corpora[options.corpus]}
    with tempfile.TemporaryDirectory() as scratch:
        foundation = extract(options.foundation, Path(scratch), "foundation") if options.foundation else None
        before = extract(options.before, Path(scratch), "before") if options.before else None
        for checkout in (ROOT, foundation, before):
            if checkout is not None:
                subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "dynalint")], check=True)
        for label, locate in chosen.items():
            package = locate()
            found = cases(package, label, foundation, before, Path(scratch), options.fixit)
            if options.only:
                found = {name: case for name, case in found.items() if re.search(options.only, name)}
            one = package / ONE_FILE[label]
            original = one.read_text(encoding="utf-8")
            try:
                for _ in range(options.repeat):  # alternate, so that drift hits every case alike
                    for case in found.values():
                        if case.prepare:
                            case.prepare()
                        wall, cpu, peak = measure(case.command, case.cwd)
                        case.wall.append(wall)
                        case.cpu.append(cpu)
                        case.peak_mib.append(peak)
                        one.write_text(original, encoding="utf-8")
            finally:
                one.write_text(original, encoding="utf-8")
            report(label, sum(1 for _ in package.rglob("*.py")), found, options.repeat)


if __name__ == "__main__":
    main()
