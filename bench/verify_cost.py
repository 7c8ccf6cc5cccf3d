"""What ``--verify`` costs over compiling the same functions by hand, measured in the same run.

    python bench/verify_cost.py [--functions 20] [--repeat 3]
    python bench/verify_cost.py --installed-diffusers [--repeat 3]

Writes N small compiled functions (a mix of clean ones and ones that break: prints, ``.item()``,
data-dependent branches, logging) into a temporary folder, then times, as whole processes, alternating:
- ``verify``: ``dynalint --verify --output-format json FOLDER`` (plan, one worker, verdicts, census);
- ``reference``: one ``python`` process that imports torch once and, for the same functions and inputs,
  calls ``torch.compile(fn, backend="eager")`` and runs each twice (as the worker does).
It prints the median of each and the ratio verify / reference (the target is at most 1.3x).

With ``--installed-diffusers`` the code verified is a large installed library: the project holds only
``fixtures/diffusers/`` (tiny model factories and the ``pyproject.toml`` declaring them), and
``verify`` is ``dynalint --verify --no-cache tiny_models.py <site-packages>/diffusers`` (a cold run:
no cache to reuse); ``reference`` builds each factory's model, compiles it and calls it twice under
``no_grad`` in ``eval`` mode, as the worker does, with ``torch._dynamo.reset()`` between models.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 and older
    import tomli as tomllib

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


FACTORY_REFERENCE = textwrap.dedent("""
    import importlib, sys
    import torch
    sys.path.insert(0, sys.argv[1])
    for reference in sys.argv[2:]:
        module, _, name = reference.partition(":")
        torch._dynamo.reset()
        model, args, kwargs = getattr(importlib.import_module(module), name)()
        compiled = torch.compile(model.eval(), backend="eager")
        with torch.no_grad():
            compiled(*args, **kwargs)
            compiled(*args, **kwargs)
""")


def write_functions(folder: Path, count: int) -> None:
    for index in range(count):
        body = BODIES[index % len(BODIES)]
        source = f"{HEADER}\n\n@torch.compile\ndef step(x: torch.Tensor) -> torch.Tensor:\n    {body}\n"
        (folder / f"f{index:03d}.py").write_text(source, encoding="utf-8")


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if completed.returncode != 0:  # a reference that failed part-way would make verify look slow
        raise SystemExit(f"{command[:4]} exited {completed.returncode}:\n{completed.stderr[-2000:]}")
    return time.perf_counter() - started


def installed_diffusers(folder: Path) -> tuple[str, dict[str, list[str]]]:
    """The project of factories over the installed diffusers, and the two commands to time on it."""
    sys.path.insert(0, str(ROOT / "bench"))
    import corpus

    fixture = ROOT / "fixtures" / "diffusers"
    for name in ("tiny_models.py", "pyproject.toml"):
        shutil.copy(fixture / name, folder / name)
    factories = tomllib.loads((fixture / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["dynalint"]["verify"]
    references = [f if isinstance(f, str) else f["factory"] for f in factories["factories"]]
    library = corpus.installed("diffusers")
    title = f"{len(references)} factories over diffusers installed at {library}"
    return title, {
        "verify": [sys.executable, "-m", "dynalint", "--verify", "--no-cache", "--output-format", "json",
                   "--exit-zero", "--device", "cpu", "tiny_models.py", str(library)],
        "reference": [sys.executable, "-c", FACTORY_REFERENCE, str(folder), *references],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=20)
    parser.add_argument("--installed-diffusers", action="store_true",
                        help="time a factory run over the installed diffusers instead of generated functions")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        if options.installed_diffusers:
            title, commands = installed_diffusers(folder)
        else:
            write_functions(folder, options.functions)
            title = f"{options.functions} compiled functions"
            commands = {
                "verify": [sys.executable, "-m", "dynalint", "--verify", "--output-format", "json", "--exit-zero",
                           "--device", "cpu", str(folder)],
                "reference": [sys.executable, "-c", REFERENCE, str(folder)],
            }
        timings: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(options.repeat):
            for name, command in commands.items():
                timings[name].append(timed(command, folder if options.installed_diffusers else ROOT))
        medians = {name: statistics.median(values) for name, values in timings.items()}
        print(f"{title}, median of {options.repeat} whole-process runs")
        for name, values in timings.items():
            print(f"  {name:<10} {medians[name]:6.2f} s  (runs: {', '.join(f'{v:.1f}' for v in values)})")
        print(f"  verify / reference  {medians['verify'] / medians['reference']:.2f}x")


if __name__ == "__main__":
    main()
