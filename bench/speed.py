"""Whole-process lint time on real corpora, as ratios against references measured in the same run.

    python bench/speed.py [--foundation 8977f4e] [--repeat 3] [--corpus torch-nn|diffusers|all]

For each corpus (see ``corpus.py``) it times, as separate processes, alternating runs:
- ``ast``: ``ast.parse`` of every file (the floor any Python linter pays);
- ``libcst``: a bare ``libcst.parse_module`` of every file (what a LibCST linter pays before metadata);
- ``foundation``: dynalint at the ``--foundation`` commit (the issue-2 engine, extracted with
  ``git archive`` into a temporary folder);
- ``dynalint``: this checkout.
It prints the median wall time of each and the ratios ``dynalint / reference``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
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


def commands(folder: Path, foundation: Path | None) -> dict[str, list[str]]:
    lint = ["-m", "dynalint", str(folder), "--exit-zero", "--quiet"]
    found = {
        "ast": [sys.executable, "-c", PARSE_ALL.format(parse="__import__('ast').parse"), str(folder)],
        "libcst": [sys.executable, "-c", PARSE_ALL.format(parse="__import__('libcst').parse_module"), str(folder)],
        "dynalint": [sys.executable, *lint],
    }
    if foundation is not None:
        found["foundation"] = [sys.executable, *lint]
    return found


def run(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def extract(commit: str, into: Path) -> Path:
    archive = into / "foundation.tar"
    subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), commit], cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "foundation", filter="data")
    return into / "foundation"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--foundation", default="8977f4e", help="commit of the engine to compare with ('' for none)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--corpus", choices=("torch-nn", "diffusers", "all"), default="all")
    options = parser.parse_args()
    corpora = {"torch-nn": corpus.torch_nn, "diffusers": corpus.diffusers}
    chosen = corpora if options.corpus == "all" else {options.corpus: corpora[options.corpus]}
    with tempfile.TemporaryDirectory() as scratch:
        foundation = extract(options.foundation, Path(scratch)) if options.foundation else None
        for label, locate in chosen.items():
            folder = locate()
            files = sum(1 for _ in folder.rglob("*.py"))
            timings: dict[str, list[float]] = {}
            for _ in range(options.repeat):  # alternate, so that drift hits every command alike
                for name, command in commands(folder, foundation).items():
                    cwd = foundation if name == "foundation" and foundation else ROOT
                    timings.setdefault(name, []).append(run(command, cwd))
            medians = {name: statistics.median(values) for name, values in timings.items()}
            print(f"\n{label}: {files} files, median of {options.repeat} whole-process runs")
            for name, value in medians.items():
                print(f"  {name:<11} {value:7.2f} s")
            for reference in ("foundation", "libcst", "ast"):
                if reference in medians:
                    print(f"  dynalint / {reference:<10} {medians['dynalint'] / medians[reference]:5.2f}x")


if __name__ == "__main__":
    main()
