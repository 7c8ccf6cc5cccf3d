"""What ``--verify`` costs over compiling the same functions by hand, measured in the same run.

    python bench/verify_cost.py [--functions 20] [--repeat 3]

Writes N small compiled functions (a mix of clean ones and ones that break: prints, ``.item()``,
data-dependent branches, logging) into a temporary folder, then times, as whole processes, alternating:
- ``verify``: ``dynalint --verify --output-format json FOLDER`` (plan, one worker, verdicts, census);
- ``reference``: one ``python`` process that imports torch once and, for the same functions and inputs,
  calls ``torch.compile(fn, backend="eager")`` and runs each twice (as the worker does).
It prints the median of each and the ratio verify / reference (the target is at most 1.3x).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BODIES = [
    "y = x.relu() * 2\n    return y + 1",
    'print("step", x.shape)\n    return x * 2',
    "s = x.sum().item()\n    return x / (abs(s) + 1)",
    "if x.mean() > 0:\n        return x * 2\n    return x - 1",
    'logger.info("forward")\n    return x.tanh()',
    "return torch.where(x > 0, x, x * 0.1).softmax(-1)",
]
HEADER = "import logging\n\nimport torch\n\nlogger = logging.getLogger(__name__)\n"
REFERENCE = textwrap.dedent("""
    import importlib.util, sys, pathlib
    import torch
    for path in sorted(pathlib.Path(sys.argv[1]).glob("f*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        compiled = torch.compile(module.step, backend="eager")
        x = torch.randn(2, 8)
        with torch.no_grad():
            compiled(x)
            compiled(x)
""")


def write_functions(folder: Path, count: int) -> None:
    for index in range(count):
        body = BODIES[index % len(BODIES)]
        source = f"{HEADER}\n\n@torch.compile\ndef step(x: torch.Tensor) -> torch.Tensor:\n    {body}\n"
        (folder / f"f{index:03d}.py").write_text(source, encoding="utf-8")


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        write_functions(folder, options.functions)
        commands = {
            "verify": [sys.executable, "-m", "dynalint", "--verify", "--output-format", "json", "--exit-zero",
                       "--device", "cpu", str(folder)],
            "reference": [sys.executable, "-c", REFERENCE, str(folder)],
        }
        timings: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(options.repeat):
            for name, command in commands.items():
                timings[name].append(timed(command, ROOT))
        medians = {name: statistics.median(values) for name, values in timings.items()}
        print(f"{options.functions} compiled functions, median of {options.repeat} whole-process runs")
        for name, value in medians.items():
            print(f"  {name:<10} {value:6.2f} s")
        print(f"  verify / reference  {medians['verify'] / medians['reference']:.2f}x")


if __name__ == "__main__":
    main()
